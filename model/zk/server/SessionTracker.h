// Sessions on the server side (ZooKeeper 3.8, global sessions only: localSessionsEnabled=false).
//
// The leader's SessionTrackerImpl keeps every session in an ExpiryQueue of tickTime-wide buckets
// aligned to multiples of tickTime on its clock: a touch at time a moves the session to the bucket
// at roundToNextInterval(a + timeout), and the tracker expires whole buckets when their time comes,
// so a session outlives its last touch by (timeout, timeout + tickTime]. Expiring marks it closing
// (from then on it can create nothing) and submits a closeSession, which deletes its ephemerals in
// one txn. A follower's LearnerSessionTracker only records touches (its clients' packets, and every
// session whose creation it commits) in a table that the follower sends to the leader in its next
// PING reply (every tickTime/2).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "model/zk/server/PrepRequestProcessor.h"
#include "model/zk/types.h"

namespace zk {

// ExpiryQueue<SessionImpl> with expirationInterval = tickTime. Times are the server's clock in ms.
class ExpiryQueue {
 public:
  ExpiryQueue(std::int64_t interval_ms, std::int64_t now_ms);
  std::int64_t roundToNextInterval(std::int64_t time_ms) const { return (time_ms / interval_ms_ + 1) * interval_ms_; }
  // Moves `session` to the bucket for now + timeout.
  void update(SessionId session, std::int64_t now_ms, std::int64_t timeout_ms);
  void remove(SessionId session);
  std::int64_t getWaitTime(std::int64_t now_ms) const { return std::max<std::int64_t>(0, next_expiration_ms_ - now_ms); }
  // The bucket that is due, if any (the whole bucket expires at once).
  std::vector<SessionId> poll(std::int64_t now_ms);
  std::size_t size() const { return expiry_of_.size(); }

 private:
  std::int64_t interval_ms_;
  std::int64_t next_expiration_ms_;
  std::map<std::int64_t, std::set<SessionId>> buckets_;
  std::map<SessionId, std::int64_t> expiry_of_;
};

// The session-id layout of SessionTrackerImpl.initializeNextSessionId: the server's sid in the top
// byte, then 40 bits of its clock in ms, then a 16-bit counter.
SessionId initializeNextSessionId(ServerId sid, std::int64_t now_ms);

class SessionTrackerImpl final : public SessionValidator {
 public:
  struct Session {
    std::int32_t timeout_ms;
    bool closing = false;
    std::uint64_t owner = 0;  // which server holds the client's connection (0: not yet known)
  };

  SessionTrackerImpl(ServerId sid, std::int64_t tick_ms, std::int64_t now_ms, const std::map<SessionId, std::int32_t>& sessions,
                     bool accept_closing_sessions = false);

  SessionId createSession(std::int32_t timeout_ms, std::int64_t now_ms);
  void trackSession(SessionId id, std::int32_t timeout_ms, std::int64_t now_ms);
  bool touchSession(SessionId id, std::int32_t timeout_ms, std::int64_t now_ms);
  void removeSession(SessionId id);
  Code setOwner(SessionId id, std::uint64_t owner);
  bool isTrackingSession(SessionId id) const { return sessions_.contains(id); }
  std::vector<SessionId> pollExpired(std::int64_t now_ms);
  std::int64_t getWaitTime(std::int64_t now_ms) const { return expiry_.getWaitTime(now_ms); }

  // SessionValidator, for the PrepRequestProcessor.
  Code checkSession(SessionId id, std::uint64_t owner) override;
  Code checkGlobalSession(SessionId id, std::uint64_t owner) override { return checkSession(id, owner); }
  void setSessionClosing(SessionId id) override;

 private:
  ExpiryQueue expiry_;  // holds the tick (expirationInterval)
  std::map<SessionId, Session> sessions_;
  SessionId next_session_id_;
  bool accept_closing_sessions_;  // bug switch zk-1208-create-on-closing-session
};

// LearnerSessionTracker for global sessions: touches are only recorded, for the next PING reply.
class LearnerSessionTracker {
 public:
  LearnerSessionTracker(ServerId sid, std::int64_t now_ms) : next_session_id_(initializeNextSessionId(sid, now_ms)) {}
  SessionId createSession() { return next_session_id_++; }
  void touchSession(SessionId id, std::int32_t timeout_ms) { touch_table_[id] = timeout_ms; }
  // ZooKeeperServer.processTxnForSessionEvents on a follower: a committed createSession is touched
  // (its next PING reply relays it to the leader), a committed closeSession leaves the table.
  void commitSession(SessionId id, std::int32_t timeout_ms) { touchSession(id, timeout_ms); }
  void removeSession(SessionId id) { touch_table_.erase(id); }
  // The timeout a touch of `id` waiting for the next PING reply carries, if there is one.
  std::optional<std::int32_t> pendingTouch(SessionId id) const {
    auto found = touch_table_.find(id);
    return found == touch_table_.end() ? std::nullopt : std::optional<std::int32_t>(found->second);
  }
  // Learner.ping: hands over the touches since the last ping and starts a new table.
  std::vector<std::pair<SessionId, std::int32_t>> getTouchSnapshot();

 private:
  SessionId next_session_id_;
  std::map<SessionId, std::int32_t> touch_table_;
};

}  // namespace zk
