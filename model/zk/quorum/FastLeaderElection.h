// FastLeaderElection (ZooKeeper 3.8), source 002's "Fast Leader election".
//
// Each server starts by voting for itself with (myid, lastLoggedZxid, currentEpoch) in a new round
// (logicalclock + 1) and tells every voter, itself included. On each notification it compares
// votes by totalOrderPredicate: peerEpoch, then zxid, then sid. A newer round resets what it
// collected; an older round is answered with our vote; in the same round a better vote is
// adopted and re-broadcast. When a quorum of this round's votes equals ours it waits finalizeWait
// (200 ms) for anything better, then decides. Votes from servers that already FOLLOW or LEAD end
// the election for a latecomer once a quorum of them names a leader that itself says LEADING.
#pragma once

#include <map>
#include <optional>

#include "model/zk/quorum/QuorumCnxManager.h"
#include "model/zk/quorum/Vote.h"
#include "sim/sync.h"

namespace zk {

class QuorumPeer;

class FastLeaderElection {
 public:
  FastLeaderElection(QuorumPeer& self, QuorumCnxManager& manager);
  FastLeaderElection(const FastLeaderElection&) = delete;

  void start();  // the Messenger's WorkerReceiver
  // Runs one election; returns the decided vote, or nothing if the server stopped looking.
  sim::Task<std::optional<Vote>> lookForLeader();

  std::int64_t getLogicalClock() const { return logicalclock_; }
  Vote getVote() const { return Vote{0, proposedLeader_, proposedZxid_, logicalclock_, proposedEpoch_, ServerState::looking}; }

  // Lexicographic on (peerEpoch, zxid, sid); with the fle-1419 bug switch, the pre-3.4.4 version.
  bool totalOrderPredicate(ServerId newId, Zxid newZxid, std::int64_t newEpoch, ServerId curId, Zxid curZxid,
                           std::int64_t curEpoch) const;

 private:
  using VoteMap = std::map<ServerId, Vote>;  // recvset / outofelection, ordered by sid

  sim::Task<void> workerReceiver();
  void updateProposal(ServerId leader, Zxid zxid, std::int64_t epoch);
  void sendNotifications();
  void reply(ServerId to, const Vote& vote, std::int64_t election_epoch, ServerState state);
  ServerId getInitId() const;
  Zxid getInitLastLoggedZxid() const;
  std::int64_t getPeerEpoch() const;
  std::size_t countMatching(const VoteMap& votes, const Vote& vote) const;
  bool checkLeader(const VoteMap& votes, ServerId leader, std::int64_t electionEpoch) const;
  std::optional<Vote> receivedFollowingNotification(VoteMap& recvset, VoteMap& outofelection, const Notification& n);
  Vote decide(ServerId leader, Zxid zxid, std::int64_t electionEpoch, std::int64_t peerEpoch, const char* how);
  void traceNotification(const Notification& n, const char* outcome);
  void traceProposal(const char* reason, ServerId from);

  QuorumPeer& self_;
  QuorumCnxManager& manager_;
  sim::Queue<Notification> recvqueue_;
  std::int64_t logicalclock_ = 0;
  ServerId proposedLeader_ = -1;
  Zxid proposedZxid_ = -1;
  std::int64_t proposedEpoch_ = -1;
};

}  // namespace zk
