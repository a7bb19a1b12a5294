// ZooKeeperServer: the serving side of a server in one role (LeaderZooKeeperServer or
// FollowerZooKeeperServer), from the moment a leader is established (or a follower synced) until
// the role ends.
//
// Writes from this server's clients wait here until their txn is committed and applied locally
// (the CommitProcessor holds a session's later requests behind its pending write, so replies stay
// in order and reads see the session's own writes). Every committed txn goes through commit(),
// the FinalRequestProcessor: apply to the database, notify watchers on their connections (before
// any later reply), update sessions, and answer the request if it came from here.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "model/zk/PendingMap.h"
#include "model/zk/server/Request.h"
#include "model/zk/server/SessionTracker.h"
#include "model/zk/server/ZKDatabase.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace zk {

class QuorumPeer;

class ZooKeeperServer {
 public:
  enum class Role : std::uint8_t { leader, follower };

  // How the role moves a request on: the leader prepares and proposes it, a follower forwards it.
  using Submit = std::function<void(const Request&)>;
  // A follower asks the leader to revalidate a reconnecting session (REVALIDATE).
  using Revalidate = std::function<sim::Task<bool>(SessionId, std::int32_t)>;

  ZooKeeperServer(QuorumPeer& self, Role role);
  ~ZooKeeperServer();
  ZooKeeperServer(const ZooKeeperServer&) = delete;

  Role role() const { return role_; }
  bool isRunning() const { return running_; }
  // Leader: a new SessionTrackerImpl over the replicated sessions, each with a fresh timeout.
  void startup();
  void shutdown();
  void setSubmit(Submit submit) { submit_ = std::move(submit); }
  void setRevalidate(Revalidate revalidate) { revalidate_ = std::move(revalidate); }

  // ---- sessions ----
  SessionId allocateSessionId(std::int32_t timeout_ms);
  // A new session: its createSession txn must commit before the client is told. False if the
  // server stopped meanwhile.
  sim::Task<bool> createSession(SessionId id, std::int32_t timeout_ms);
  sim::Task<bool> revalidateSession(SessionId id, std::int32_t timeout_ms);
  // Every request from a client touches its session. False: the leader no longer knows it.
  bool touch(SessionId id, std::int32_t timeout_ms);
  void expire(SessionId id);  // the leader's tracker found it expired
  SessionTrackerImpl* sessionTracker() { return tracker_.get(); }
  LearnerSessionTracker* learnerSessionTracker() { return learner_tracker_.get(); }

  // ---- requests ----
  // Submits a write and waits until it is committed and applied here; with `reply`, commit answers
  // the client then. Throws BrokenPromise if the server stops first (the client then sees its
  // connection close).
  sim::Task<ProcessTxnResult> submitWrite(Request request, std::optional<WriteReply> reply = std::nullopt);
  // FinalRequestProcessor: applies a committed txn, in zxid order.
  void commit(const std::shared_ptr<const Txn>& txn);

 private:
  sim::Task<void> sessionExpiryLoop();

  QuorumPeer& self_;
  Role role_;
  bool running_ = false;
  Submit submit_;
  Revalidate revalidate_;
  std::unique_ptr<SessionTrackerImpl> tracker_;
  std::unique_ptr<LearnerSessionTracker> learner_tracker_;
  struct PendingWrite {
    sim::Promise<ProcessTxnResult> promise;
    std::optional<WriteReply> reply;
  };
  PendingMap<std::pair<SessionId, std::int32_t>, PendingWrite> pending_;  // (session, cxid)
  std::unique_ptr<sim::Scope> processes_;
};

}  // namespace zk
