// Leader (ZooKeeper 3.8 Leader.lead()): Zab's discovery, synchronization and broadcast, from the
// leader's side. Source 002: "the leader builds NEWLEADER ... waits for more than half of the
// followers to finish syncing ... only then is it really the leader".
//
//  1. snapshot the database; accept learners (one LearnerHandler each);
//  2. getEpochToPropose: a quorum (with us) of FOLLOWERINFOs; new epoch = max acceptedEpoch + 1;
//  3. waitForEpochAck: a quorum of ACKEPOCHs; persist currentEpoch;
//  4. waitForNewLeaderAck: a quorum synced and acked NEWLEADER (each wait: initLimit ticks);
//  5. serve: PROPOSAL to every synced follower, log our own copy, COMMIT in zxid order once a
//     quorum acked; PING every tickTime/2 and step down when fewer than a quorum stayed in touch
//     within syncLimit ticks.
#pragma once

#include <boost/container/flat_map.hpp>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/zk/quorum/AckSet.h"
#include "model/zk/quorum/QuorumPacket.h"
#include "model/zk/server/PrepRequestProcessor.h"
#include "model/zk/server/SyncRequestProcessor.h"
#include "model/zk/server/ZooKeeperServer.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace zk {

class QuorumPeer;
class LearnerHandler;

// Leader.StateSummary: what a learner reports in ACKEPOCH.
struct StateSummary {
  std::int64_t current_epoch = -1;
  Zxid last_zxid = -1;
  bool isMoreRecentThan(const StateSummary& other) const {
    return current_epoch > other.current_epoch || (current_epoch == other.current_epoch && last_zxid > other.last_zxid);
  }
};

class Leader {
 public:
  explicit Leader(QuorumPeer& self);
  ~Leader();
  Leader(const Leader&) = delete;

  sim::Task<void> lead();
  // Leader.shutdown: stop serving, close the clients and the learners (they go LOOKING), flush our
  // log and fast-forward the database. Called by QuorumPeer.run once lead() returned.
  void shutdown();

  // ---- used by LearnerHandlers ----
  sim::Task<std::optional<std::int64_t>> getEpochToPropose(ServerId sid, std::int64_t lastAcceptedEpoch);
  sim::Task<bool> waitForEpochAck(ServerId sid, StateSummary summary);
  sim::Task<bool> waitForNewLeaderAck(ServerId sid, Zxid zxid);
  sim::Task<void> waitForStartup();
  Zxid startForwarding(LearnerHandler& handler, Zxid lastSeenZxid);
  void removeLearnerHandler(LearnerHandler& handler);
  void processAck(ServerId sid, Zxid zxid);
  void submitRequest(const Request& request);
  void touch(SessionId id, std::int32_t timeout_ms);
  bool revalidateSession(SessionId id, std::int32_t timeout_ms, ServerId owner);

  QuorumPeer& self() const { return self_; }
  std::int64_t tick() const { return tick_; }
  Zxid lastProposed() const { return lastProposed_; }
  std::int64_t epoch() const { return epoch_; }
  bool established() const { return started_.is_set(); }
  std::vector<ServerId> syncedLearners() const;
  // The systematic search's view (QuorumPeer::state_digest): the epoch, how far it proposed and
  // committed, and how far its establishment went.
  std::uint64_t stateDigest() const;

 private:
  // The outstanding proposals (a few, in zxid order) sit in one sorted array, and their acks in a
  // word (AckSet): a write then costs no allocation here, where a node-based map and set cost
  // several (bench zk). The array iterates in zxid order, as the std::map did.
  struct Proposal {
    std::shared_ptr<const Txn> txn;
    AckSet acks;
  };

  sim::Task<void> learnerCnxAcceptor();
  void startZkServer();
  void propose(Txn txn);
  bool tryToCommit(Proposal& proposal, Zxid zxid);
  std::string sidList(const std::set<ServerId>& sids) const;

  QuorumPeer& self_;
  sim::Scope workers_;
  ZooKeeperServer zks_;
  std::shared_ptr<SyncRequestProcessor> sync_;
  std::unique_ptr<PrepRequestProcessor> prep_;
  std::vector<std::unique_ptr<LearnerHandler>> handlers_;  // every handler started, for their lifetime
  std::vector<LearnerHandler*> learners_;                  // alive
  std::vector<LearnerHandler*> forwardingFollowers_;       // synced: receive PROPOSAL and COMMIT

  StateSummary leaderStateSummary_;
  std::int64_t epoch_ = -1;
  Zxid zxid_ = 0;  // the last zxid handed out
  Zxid lastProposed_ = 0;
  Zxid lastCommitted_ = 0;
  Zxid newLeaderZxid_ = 0;
  boost::container::flat_map<Zxid, Proposal> outstandingProposals_;
  std::int64_t tick_ = 0;

  bool waitingForNewEpoch_ = true;
  std::set<ServerId> connectingFollowers_;
  sim::Condition connecting_;
  bool electionFinished_ = false;
  std::set<ServerId> electingFollowers_;
  sim::Condition electing_;
  bool quorumFormed_ = false;
  std::set<ServerId> newLeaderAcks_;
  sim::Condition newLeaderAcked_;
  sim::Signal started_;
  std::string shutdownMessage_;
};

}  // namespace zk
