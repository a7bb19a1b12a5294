// LearnerHandler: the leader's side of one learner (ZooKeeper 3.8).
//
// FOLLOWERINFO -> getEpochToPropose -> LEADERINFO -> ACKEPOCH -> waitForEpochAck -> syncFollower
// (DIFF, TRUNC or SNAP) -> NEWLEADER -> ACK -> waitForNewLeaderAck -> (leader serving) UPTODATE,
// then the broadcast loop: ACKs counted, PING replies carry the follower's session touches,
// REQUESTs are the follower's clients' writes, REVALIDATE its reconnecting sessions. The learner
// counts as synced while it sends something at least every syncLimit ticks.
#pragma once

#include <vector>

#include "model/zk/quorum/QuorumPacket.h"
#include "model/zk/quorum/SyncLimitCheck.h"
#include "sim/network.h"

namespace zk {

class Leader;

class LearnerHandler {
 public:
  LearnerHandler(Leader& leader, sim::Socket<QuorumPacket> socket);
  LearnerHandler(const LearnerHandler&) = delete;

  sim::Task<void> run();
  ServerId sid() const { return sid_; }
  // Alive, and heard from within syncLimit ticks (LearnerHandler.synced).
  bool synced() const;
  // Every tickTime/2 from the leader; drops the learner when a proposal it was sent has gone
  // unacknowledged for syncLimit ticks (SyncLimitCheck).
  void ping();
  // Queued until NEWLEADER is sent, then written at once (the socket never blocks).
  void queuePacket(QuorumPacket&& packet);
  void shutdown();

 private:
  // Queues what the learner misses (DIFF / TRUNC + txns) and starts forwarding; true: needs a SNAP.
  bool syncFollower(Zxid peerLastZxid);
  Zxid queueCommittedProposals(Zxid peerLastZxid, Zxid maxZxid, Zxid lastCommittedZxid, bool& needOpPacket);
  void send(QuorumPacket&& packet);

  Leader& leader_;
  sim::Socket<QuorumPacket> socket_;
  ServerId sid_ = -1;
  bool alive_ = true;
  bool sending_ = false;  // startSendingPackets has run
  std::int64_t tickOfNextAckDeadline_ = 0;
  std::vector<QuorumPacket> queued_;
  SyncLimitCheck syncLimitCheck_;
};

}  // namespace zk
