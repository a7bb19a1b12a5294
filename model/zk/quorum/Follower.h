// Follower (ZooKeeper 3.8 Follower.followLeader / Learner): the learner's side of Zab.
//
// Connect to the elected leader (up to 5 tries within initLimit ticks), register with FOLLOWERINFO,
// accept the new epoch (persisting acceptedEpoch before ACKEPOCH), sync (DIFF, TRUNC or SNAP), start
// serving at UPTODATE, then follow: log each PROPOSAL and ACK it after the fsync, apply COMMITs in
// order, answer PINGs with the session touches. Any error, a closed connection or syncLimit ticks of
// silence send it back to LOOKING.
//
// Synchronization follows the release configured (QuorumPeerConfig::version; docs/zookeeper-model.md,
// Versions): 3.8.0 persists currentEpoch at NEWLEADER before the DIFF txns reach the disk (they are
// only queued to the log writer) and ACKs at once (ZOOKEEPER-4643, 4646, 4685); 3.8.5 writes and
// fsyncs them first (ZOOKEEPER-4785); 3.9.3 writes and applies only the committed ones, keeps the
// rest for after UPTODATE (ZOOKEEPER-4394) and drains the log writer at step-down (ZOOKEEPER-4712).
// The threads that race in Java race here too: the log writer (SyncRequestProcessor), the
// CommitProcessor that applies commits, and this one, each delayed at its race point by
// QuorumPeer::threadDelay.
#pragma once

#include <deque>
#include <map>
#include <memory>
#include <optional>

#include "model/zk/quorum/QuorumPacket.h"
#include "model/zk/server/SyncRequestProcessor.h"
#include "model/zk/server/ZooKeeperServer.h"
#include "sim/network.h"

namespace zk {

class QuorumPeer;

class Follower {
 public:
  explicit Follower(QuorumPeer& self);
  ~Follower();
  Follower(const Follower&) = delete;

  sim::Task<void> followLeader();
  // Learner.shutdown: stop serving, close clients and the leader connection, flush the log, and
  // fast-forward the database (or reload it after an unfinished SNAP: ZOOKEEPER-3642).
  void shutdown();
  // The systematic search's view (QuorumPeer::state_digest): the sync mode and the txns on their way
  // to the log and to their COMMIT.
  std::uint64_t stateDigest() const;

 private:
  enum class SyncMode : std::uint8_t { none, diff, snap, trunc };

  sim::Task<bool> connectToLeader(sim::NodeId leader);
  sim::Task<std::optional<Zxid>> registerWithLeader();
  sim::Task<bool> syncWithLeader(Zxid newLeaderZxid);
  bool processPacket(const QuorumPacket& packet);
  void logRequest(const std::shared_ptr<const Txn>& txn);
  // 3.8.5's FollowerZooKeeperServer.appendRequest: written to the log by this thread (no ACK yet).
  void appendRequest(const std::shared_ptr<const Txn>& txn);
  // zkDb.append / zkDb.commit on this thread (3.8.5 and 3.9.3 at NEWLEADER): into the JVM's buffer,
  // then flushed and fsynced.
  void appendToLog(const std::shared_ptr<const Txn>& txn);
  sim::Task<void> syncLog();
  bool commit(Zxid zxid);
  // CommitProcessor.commit: applied by the commit thread, in order, after its race-point delay.
  void commitToServer(const std::shared_ptr<const Txn>& txn);
  sim::Task<void> applyCommits(sim::Duration delay);
  sim::Task<bool> revalidate(SessionId id, std::int32_t timeout_ms);
  void send(QuorumPacket&& packet);

  QuorumPeer& self_;
  sim::Scope workers_;
  ZooKeeperServer zks_;
  std::shared_ptr<SyncRequestProcessor> sync_;
  sim::Socket<QuorumPacket> socket_;
  SyncMode syncMode_ = SyncMode::none;
  std::deque<std::shared_ptr<const Txn>> pendingTxns_;  // logged, waiting for their COMMIT
  std::deque<std::shared_ptr<const Txn>> committing_;   // handed to the CommitProcessor, not applied yet
  std::vector<std::shared_ptr<const Txn>> unflushed_;   // appended by this thread, not yet flushed
  std::multimap<SessionId, sim::Promise<bool>> pendingRevalidations_;
  sim::Instant lastHeard_;
};

}  // namespace zk
