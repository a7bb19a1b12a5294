#include "model/zk/server/SessionTracker.h"

#include "sim/assert.h"

namespace zk {

ExpiryQueue::ExpiryQueue(std::int64_t interval_ms, std::int64_t now_ms)
    : interval_ms_(interval_ms), next_expiration_ms_((now_ms / interval_ms + 1) * interval_ms) {
  ELECTSIM_ASSERT(interval_ms > 0);
}

void ExpiryQueue::update(SessionId session, std::int64_t now_ms, std::int64_t timeout_ms) {
  std::int64_t expiry = roundToNextInterval(now_ms + timeout_ms);
  auto current = expiry_of_.find(session);
  if (current != expiry_of_.end()) {
    if (current->second == expiry) return;
    auto bucket = buckets_.find(current->second);
    if (bucket != buckets_.end()) {
      bucket->second.erase(session);
      if (bucket->second.empty()) buckets_.erase(bucket);
    }
  }
  buckets_[expiry].insert(session);
  expiry_of_[session] = expiry;
}

void ExpiryQueue::remove(SessionId session) {
  auto current = expiry_of_.find(session);
  if (current == expiry_of_.end()) return;
  auto bucket = buckets_.find(current->second);
  if (bucket != buckets_.end()) {
    bucket->second.erase(session);
    if (bucket->second.empty()) buckets_.erase(bucket);
  }
  expiry_of_.erase(current);
}

std::vector<SessionId> ExpiryQueue::poll(std::int64_t now_ms) {
  if (now_ms < next_expiration_ms_) return {};
  // ExpiryQueue.poll: advance by one interval and take the bucket keyed at the old time exactly.
  std::int64_t due = next_expiration_ms_;
  next_expiration_ms_ += interval_ms_;
  auto bucket = buckets_.find(due);
  if (bucket == buckets_.end()) return {};
  std::vector<SessionId> expired(bucket->second.begin(), bucket->second.end());
  buckets_.erase(bucket);
  for (SessionId session : expired) expiry_of_.erase(session);
  return expired;
}

SessionId initializeNextSessionId(ServerId sid, std::int64_t now_ms) {
  // ((currentElapsedTime << 24) >>> 8) | (sid << 56): 40 bits of the clock above a 16-bit counter.
  auto clock_bits = static_cast<std::uint64_t>(now_ms) << 24 >> 8;
  auto id = static_cast<std::int64_t>(clock_bits | (static_cast<std::uint64_t>(sid) << 56));
  if (id == INT64_MIN) id++;  // EphemeralType.CONTAINER_EPHEMERAL_OWNER is reserved
  return id;
}

SessionTrackerImpl::SessionTrackerImpl(ServerId sid, std::int64_t tick_ms, std::int64_t now_ms,
                                       const std::map<SessionId, std::int32_t>& sessions, bool accept_closing_sessions)
    : expiry_(tick_ms, now_ms),
      next_session_id_(initializeNextSessionId(sid, now_ms)),
      accept_closing_sessions_(accept_closing_sessions) {
  // A new tracker (a new leader) tracks every replicated session afresh: each gets a full timeout
  // from now (SessionTrackerImpl's constructor).
  for (const auto& [id, timeout_ms] : sessions) trackSession(id, timeout_ms, now_ms);
}

SessionId SessionTrackerImpl::createSession(std::int32_t timeout_ms, std::int64_t now_ms) {
  SessionId id = next_session_id_++;
  trackSession(id, timeout_ms, now_ms);
  return id;
}

void SessionTrackerImpl::trackSession(SessionId id, std::int32_t timeout_ms, std::int64_t now_ms) {
  ELECTSIM_ASSERT(timeout_ms > 0);
  auto [session, inserted] = sessions_.try_emplace(id, Session{timeout_ms});
  if (!inserted) session->second.timeout_ms = timeout_ms;
  expiry_.update(id, now_ms, timeout_ms);
}

bool SessionTrackerImpl::touchSession(SessionId id, std::int32_t timeout_ms, std::int64_t now_ms) {
  auto session = sessions_.find(id);
  if (session == sessions_.end() || session->second.closing) return false;
  expiry_.update(id, now_ms, timeout_ms);
  return true;
}

void SessionTrackerImpl::removeSession(SessionId id) {
  sessions_.erase(id);
  expiry_.remove(id);
}

Code SessionTrackerImpl::setOwner(SessionId id, std::uint64_t owner) {
  auto session = sessions_.find(id);
  if (session == sessions_.end() || session->second.closing) return Code::session_expired;
  session->second.owner = owner;
  return Code::ok;
}

std::vector<SessionId> SessionTrackerImpl::pollExpired(std::int64_t now_ms) {
  std::vector<SessionId> expired = expiry_.poll(now_ms);
  for (SessionId id : expired) setSessionClosing(id);
  return expired;
}

Code SessionTrackerImpl::checkSession(SessionId id, std::uint64_t owner) {
  auto session = sessions_.find(id);
  if (session == sessions_.end()) return Code::session_expired;
  // ZOOKEEPER-1208's fix: a closing session can write nothing more (the bug switch undoes it).
  if (session->second.closing && !accept_closing_sessions_) return Code::session_expired;
  if (session->second.owner == 0) {
    session->second.owner = owner;  // first write after a leader change claims it
    return Code::ok;
  }
  return session->second.owner == owner ? Code::ok : Code::session_moved;
}

void SessionTrackerImpl::setSessionClosing(SessionId id) {
  auto session = sessions_.find(id);
  if (session != sessions_.end()) session->second.closing = true;
}

std::vector<std::pair<SessionId, std::int32_t>> LearnerSessionTracker::getTouchSnapshot() {
  std::vector<std::pair<SessionId, std::int32_t>> snapshot(touch_table_.begin(), touch_table_.end());
  touch_table_.clear();
  return snapshot;
}

}  // namespace zk
