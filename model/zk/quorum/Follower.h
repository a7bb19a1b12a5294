// Follower (ZooKeeper 3.8 Follower.followLeader / Learner): the learner's side of Zab.
//
// Connect to the elected leader (up to 5 tries within initLimit ticks), register with FOLLOWERINFO,
// accept the new epoch (persisting acceptedEpoch before ACKEPOCH), sync (DIFF, TRUNC or SNAP;
// currentEpoch persisted at NEWLEADER, as 3.8.0 does, before the DIFF txns reach the disk), start
// serving at UPTODATE, then follow: log each PROPOSAL and ACK it after the fsync, apply COMMITs in
// order, answer PINGs with the session touches. Any error, a closed connection or syncLimit ticks of
// silence send it back to LOOKING.
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

 private:
  enum class SyncMode : std::uint8_t { none, diff, snap, trunc };

  sim::Task<bool> connectToLeader(sim::NodeId leader);
  sim::Task<std::optional<Zxid>> registerWithLeader();
  sim::Task<bool> syncWithLeader(Zxid newLeaderZxid);
  bool processPacket(const QuorumPacket& packet);
  void logRequest(const std::shared_ptr<const Txn>& txn);
  bool commit(Zxid zxid);
  sim::Task<bool> revalidate(SessionId id, std::int32_t timeout_ms);
  void send(QuorumPacket&& packet);

  QuorumPeer& self_;
  sim::Scope workers_;
  ZooKeeperServer zks_;
  SyncRequestProcessor sync_;
  sim::Socket<QuorumPacket> socket_;
  SyncMode syncMode_ = SyncMode::none;
  std::deque<std::shared_ptr<const Txn>> pendingTxns_;  // logged, waiting for their COMMIT
  std::multimap<SessionId, sim::Promise<bool>> pendingRevalidations_;
  sim::Instant lastHeard_;
};

}  // namespace zk
