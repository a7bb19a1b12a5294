#include "model/zk/server/ZooKeeperServer.h"

#include "model/zk/quorum/QuorumPeer.h"
#include "model/zk/server/ServerCnxn.h"

namespace zk {

ZooKeeperServer::ZooKeeperServer(QuorumPeer& self, Role role) : self_(self), role_(role) {
  if (role_ == Role::follower) learner_tracker_ = std::make_unique<LearnerSessionTracker>(self.myid(), self.clockMs());
}

ZooKeeperServer::~ZooKeeperServer() { shutdown(); }

void ZooKeeperServer::startup() {
  ELECTSIM_ASSERT(!running_);
  processes_ = std::make_unique<sim::Scope>(self_.sim(), self_.id());
  if (role_ == Role::leader) {
    // LeaderZooKeeperServer.createSessionTracker: every replicated session starts a full timeout now.
    tracker_ = std::make_unique<SessionTrackerImpl>(self_.myid(), sim::millis(self_.config().tick_time), self_.clockMs(),
                                                    self_.getZkDb().getSessionWithTimeOuts(),
                                                    self_.config().bugs.zk_1208_create_on_closing_session);
    processes_->spawn(sessionExpiryLoop());
  }
  running_ = true;
}

void ZooKeeperServer::shutdown() {
  running_ = false;
  processes_.reset();
  // Writes still waiting here never get their commit: their clients see the connection close.
  pending_.clear();
}

SessionId ZooKeeperServer::allocateSessionId(std::int32_t timeout_ms) {
  if (role_ == Role::leader) return tracker_->createSession(timeout_ms, self_.clockMs());
  return learner_tracker_->createSession();
}

sim::Task<bool> ZooKeeperServer::createSession(SessionId id, std::int32_t timeout_ms) {
  Request request;
  request.sessionId = id;
  request.cxid = 0;
  request.type = OpCode::create_session;
  request.timeoutMs = timeout_ms;
  request.owner = static_cast<std::uint64_t>(self_.myid());
  try {
    ProcessTxnResult result = co_await submitWrite(std::move(request));
    co_return result.error == Code::ok;
  } catch (const sim::BrokenPromise&) {
    co_return false;
  }
}

sim::Task<bool> ZooKeeperServer::revalidateSession(SessionId id, std::int32_t timeout_ms) {
  if (role_ == Role::leader) {
    // LeaderZooKeeperServer.revalidateSession: a touch; the connection's server becomes the owner.
    bool valid = tracker_->touchSession(id, timeout_ms, self_.clockMs());
    if (valid) tracker_->setOwner(id, static_cast<std::uint64_t>(self_.myid()));
    co_return valid;
  }
  // LearnerZooKeeperServer: one REVALIDATE round trip to the leader, no txn.
  ELECTSIM_ASSERT(revalidate_);
  bool valid = co_await revalidate_(id, timeout_ms);
  co_return valid;
}

bool ZooKeeperServer::touch(SessionId id, std::int32_t timeout_ms) {
  if (role_ == Role::leader) return tracker_->touchSession(id, timeout_ms, self_.clockMs());
  learner_tracker_->touchSession(id, timeout_ms);
  return true;
}

void ZooKeeperServer::expire(SessionId id) {
  self_.sim().trace().emit(self_.id(), "session.expire", {{"session", id}});
  // ZooKeeperServer.expire -> close(sessionId): a closeSession from no connection.
  Request request;
  request.sessionId = id;
  request.type = OpCode::close_session;
  submit_(request);
}

sim::Task<void> ZooKeeperServer::sessionExpiryLoop() {
  // SessionTrackerImpl.run: sleep until the next bucket is due, then expire all of it.
  while (true) {
    std::int64_t wait_ms = tracker_->getWaitTime(self_.clockMs());
    if (wait_ms > 0) {
      co_await self_.sim().sleep(std::chrono::milliseconds(wait_ms));
      continue;
    }
    for (SessionId id : tracker_->pollExpired(self_.clockMs())) expire(id);
  }
}

sim::Task<ProcessTxnResult> ZooKeeperServer::submitWrite(Request request, std::optional<WriteReply> reply) {
  ELECTSIM_ASSERT(submit_);
  auto key = std::make_pair(request.sessionId, request.cxid);
  ELECTSIM_ASSERT_MSG(!pending_.contains(key), "two writes in flight with the same session and cxid");
  sim::Promise<ProcessTxnResult> promise;
  sim::Future<ProcessTxnResult> done = promise.get_future();
  pending_.emplace(key, PendingWrite{std::move(promise), std::move(reply)});
  submit_(request);
  // Nothing of `this` is touched after the wait: the server may be gone (BrokenPromise).
  co_return co_await done.wait(self_.sim());
}

void ZooKeeperServer::commit(const std::shared_ptr<const Txn>& txn) {
  std::vector<FiredWatch> fired;
  ProcessTxnResult result = self_.applyCommitted(txn, &fired);
  // Watch notifications go out before the reply to the request that caused them.
  for (const FiredWatch& watch : fired) self_.cnxnFactory().deliverWatch(watch);

  const TxnHeader& header = txn->header;
  auto pending = pending_.find({header.session_id, header.cxid});
  bool local = pending != pending_.end();
  if (header.type == OpCode::create_session && learner_tracker_) {
    const auto* created = std::get_if<CreateSessionTxn>(&txn->body);
    ELECTSIM_ASSERT(created != nullptr);
    learner_tracker_->commitSession(header.session_id, created->timeout_ms);
  }
  if (header.type == OpCode::close_session) {
    if (tracker_) tracker_->removeSession(header.session_id);
    if (learner_tracker_) learner_tracker_->removeSession(header.session_id);
    // An expiry (or another server's close): whoever still holds a connection of the session
    // closes it. The client's own close is answered first, by its connection.
    if (!local) self_.cnxnFactory().closeSession(header.session_id, 0);
  }
  if (local) {
    PendingWrite write = std::move(pending->second);
    pending_.erase(pending);
    // The reply goes now, not when the waiting coroutine resumes: commits that follow at this
    // instant (a burst of ACKs or COMMITs read at once) must not notify ahead of it.
    if (write.reply) self_.cnxnFactory().replyToWrite(*write.reply, result, self_.getZkDb().getDataTreeLastProcessedZxid());
    write.promise.set_value(std::move(result));
  }
}

}  // namespace zk
