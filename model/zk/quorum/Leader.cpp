#include "model/zk/quorum/Leader.h"

#include <cstdio>

#include "model/zk/ZabSites.h"
#include "model/zk/quorum/LearnerHandler.h"
#include "model/zk/quorum/QuorumPeer.h"
#include "sim/hash_fold.h"

namespace zk {

Leader::Leader(QuorumPeer& self)
    : self_(self),
      workers_(self.sim(), self.id()),
      zks_(self, ZooKeeperServer::Role::leader),
      sync_(std::make_shared<SyncRequestProcessor>(
          self.sim(), self.id(), self.disk(), self.config().fsync_latency,
          [this](const std::shared_ptr<const Txn>& txn) { processAck(self_.myid(), txn->header.zxid); }, [&self] { return self.threadDelay(); })),
      connecting_(self.sim()),
      electing_(self.sim()),
      newLeaderAcked_(self.sim()),
      started_(self.sim()) {}

Leader::~Leader() {
  // A crash (or the end of shutdown()): destroy the coroutines first, while what they point at is
  // still here. Nothing is flushed: a crash loses what was not synced. The graceful path is
  // shutdown(), called by QuorumPeer.run.
  workers_.clear();
  if (self_.getActiveServer() == &zks_) self_.setActiveServer(nullptr);
}

sim::Task<void> Leader::lead() {
  const QuorumPeerConfig& config = self_.config();
  ZKDatabase& db = self_.getZkDb();
  tick_ = 0;
  // ZooKeeperServer.loadData: every new leader starts with a snapshot.
  self_.disk().snapshot = db.takeSnapshot();
  leaderStateSummary_ = StateSummary{self_.getCurrentEpoch(), db.getDataTreeLastProcessedZxid()};
  sync_->start(workers_);
  workers_.spawn(learnerCnxAcceptor());

  // ZOOKEEPER-335 (bug switch): before Zab 1.0 the epoch came from the last zxid, not acceptedEpoch.
  std::int64_t lastAcceptedEpoch = config.bugs.zab_335_epoch_from_zxid ? epoch_of(db.getDataTreeLastProcessedZxid()) : self_.getAcceptedEpoch();
  std::optional<std::int64_t> epoch = co_await getEpochToPropose(self_.myid(), lastAcceptedEpoch);
  if (!epoch) {
    shutdownMessage_ = "Timeout while waiting for epoch from quorum";
    co_return;
  }
  zxid_ = make_zxid(*epoch, 0);
  lastProposed_ = zxid_;
  newLeaderZxid_ = zxid_;
  self_.sim().trace().emit(self_.id(), "zab.discovery", {{"epoch", *epoch}});

  if (!co_await waitForEpochAck(self_.myid(), leaderStateSummary_)) {
    shutdownMessage_ = "Timeout while waiting for epoch to be acked by quorum";
    co_return;
  }
  self_.setCurrentEpoch(*epoch);
  co_await sim::reach(self_.sim(), self_.id(), sites::current_epoch_written, {"epoch", *epoch});

  if (!co_await waitForNewLeaderAck(self_.myid(), zxid_)) {
    shutdownMessage_ = "Waiting for a quorum of followers, only synced with sids: [" + sidList(newLeaderAcks_) + "]";
    co_return;
  }
  co_await sim::reach(self_.sim(), self_.id(), sites::newleader_quorum, {"epoch", *epoch});
  startZkServer();

  // Ping every tickTime/2; every tickTime, check that a quorum is still in touch.
  bool tickSkip = true;
  while (true) {
    co_await self_.sim().sleep(config.tick_time / 2);
    if (!tickSkip) tick_++;
    std::set<ServerId> synced{self_.myid()};
    for (LearnerHandler* learner : learners_) {
      if (learner->synced()) synced.insert(learner->sid());
    }
    if (!tickSkip && !config.is_quorum(synced.size())) {
      shutdownMessage_ = "Not sufficient followers synced, only synced with sids: [" + sidList(synced) + "]";
      co_await sim::reach(self_.sim(), self_.id(), sites::quorum_lost, {"synced", static_cast<std::int64_t>(synced.size())});
      co_return;
    }
    tickSkip = !tickSkip;
    std::vector<LearnerHandler*> learners = learners_;  // ping() may drop a handler
    for (LearnerHandler* learner : learners) learner->ping();
  }
}

void Leader::startZkServer() {
  lastCommitted_ = zxid_;
  zks_.startup();
  prep_ = std::make_unique<PrepRequestProcessor>(self_.getZkDb().getDataTree(), *zks_.sessionTracker());
  zks_.setSubmit([this](const Request& request) { submitRequest(request); });
  self_.updateElectionVote(epoch_);
  // The leader's database now says epoch<<32, though no txn has that zxid.
  self_.getZkDb().setlastProcessedZxid(zxid_);
  self_.setActiveServer(&zks_);
  started_.set();
  // history_zxid: the last txn of the history the new leader brings into its epoch.
  self_.sim().trace().emit(self_.id(), "zab.established",
                           {{"epoch", epoch_}, {"sid", self_.myid()}, {"zxid", zxid_}, {"history_zxid", leaderStateSummary_.last_zxid}});
}

void Leader::shutdown() {
  if (!shutdownMessage_.empty()) {
    self_.sim().trace().emit(self_.id(), "zab.leader_shutdown", {{"reason", shutdownMessage_}});
    shutdownMessage_.clear();
  }
  if (self_.getActiveServer() == &zks_) self_.setActiveServer(nullptr);
  self_.cnxnFactory().closeAllConnections();
  zks_.shutdown();
  prep_.reset();
  // What we logged but have not synced reaches the disk; memory catches up with the log.
  sync_->shutdown();
  // ZOOKEEPER-2845 (bug switch): before 3.4.12/3.5.4 memory was not caught up with the log here.
  if (!self_.config().bugs.zk_2845_retain_database) self_.getZkDb().fastForwardDataBase(self_.disk());
  for (LearnerHandler* learner : learners_) learner->shutdown();
  learners_.clear();
  forwardingFollowers_.clear();
  workers_.clear();
}

sim::Task<void> Leader::learnerCnxAcceptor() {
  sim::Listener<QuorumPacket> listener = self_.sim().network().listen<QuorumPacket>(self_.id(), quorum_port);
  while (true) {
    sim::Socket<QuorumPacket> socket = co_await listener.accept();
    handlers_.push_back(std::make_unique<LearnerHandler>(*this, std::move(socket)));
    LearnerHandler& handler = *handlers_.back();
    learners_.push_back(&handler);
    workers_.spawn(handler.run());
  }
}

void Leader::removeLearnerHandler(LearnerHandler& handler) {
  std::erase(learners_, &handler);
  std::erase(forwardingFollowers_, &handler);
}

sim::Task<std::optional<std::int64_t>> Leader::getEpochToPropose(ServerId sid, std::int64_t lastAcceptedEpoch) {
  if (!waitingForNewEpoch_) co_return epoch_;
  if (lastAcceptedEpoch >= epoch_) epoch_ = lastAcceptedEpoch + 1;
  connectingFollowers_.insert(sid);
  if (connectingFollowers_.contains(self_.myid()) && self_.config().is_quorum(connectingFollowers_.size())) {
    waitingForNewEpoch_ = false;
    self_.setAcceptedEpoch(epoch_);
    connecting_.notify_all();
    co_await sim::reach(self_.sim(), self_.id(), sites::accepted_epoch_written, {"epoch", epoch_});
    co_return epoch_;
  }
  sim::Instant deadline = self_.sim().now() + self_.config().init_timeout();
  while (waitingForNewEpoch_ && self_.sim().now() < deadline) co_await connecting_.wait_until(deadline);
  if (waitingForNewEpoch_) co_return std::nullopt;
  co_return epoch_;
}

sim::Task<bool> Leader::waitForEpochAck(ServerId sid, StateSummary summary) {
  if (electionFinished_) co_return true;
  if (summary.current_epoch != -1) {
    if (summary.isMoreRecentThan(leaderStateSummary_)) co_return false;  // "Follower is ahead of the leader"
    if (summary.last_zxid != -1) electingFollowers_.insert(sid);
  }
  if (electingFollowers_.contains(self_.myid()) && self_.config().is_quorum(electingFollowers_.size())) {
    electionFinished_ = true;
    electing_.notify_all();
    co_return true;
  }
  sim::Instant deadline = self_.sim().now() + self_.config().init_timeout();
  while (!electionFinished_ && self_.sim().now() < deadline) co_await electing_.wait_until(deadline);
  co_return electionFinished_;
}

sim::Task<bool> Leader::waitForNewLeaderAck(ServerId sid, Zxid zxid) {
  if (quorumFormed_) co_return true;
  if (zxid != newLeaderZxid_) {
    // Leader.waitForNewLeaderAck logs an error and returns without counting the ACK: the learner's
    // first packet after NEWLEADER was another ACK (a DIFF txn's, sent by its log writer before its
    // QuorumPeer thread sent the NEWLEADER ACK: ZOOKEEPER-4685).
    char text[160];
    std::snprintf(text, sizeof text, "NEWLEADER ACK from sid: %lld is from a different epoch - current 0x%llx received 0x%llx",
                  static_cast<long long>(sid), static_cast<unsigned long long>(newLeaderZxid_), static_cast<unsigned long long>(zxid));
    self_.protocolError(text, "Leader.waitForNewLeaderAck", "ZOOKEEPER-4685");
    co_return true;
  }
  newLeaderAcks_.insert(sid);
  if (self_.config().is_quorum(newLeaderAcks_.size())) {
    quorumFormed_ = true;
    newLeaderAcked_.notify_all();
    co_return true;
  }
  sim::Instant deadline = self_.sim().now() + self_.config().init_timeout();
  while (!quorumFormed_ && self_.sim().now() < deadline) co_await newLeaderAcked_.wait_until(deadline);
  co_return quorumFormed_;
}

sim::Task<void> Leader::waitForStartup() { co_await started_.wait(); }

Zxid Leader::startForwarding(LearnerHandler& handler, Zxid lastSeenZxid) {
  // Proposals the learner has not seen yet go ahead of the live traffic.
  if (lastProposed_ > lastSeenZxid) {
    for (const auto& [zxid, proposal] : outstandingProposals_) {
      if (zxid <= lastSeenZxid) continue;
      QuorumPacket packet;
      packet.type = PacketType::proposal;
      packet.zxid = zxid;
      packet.txn = proposal.txn;
      handler.queuePacket(std::move(packet));
    }
  }
  forwardingFollowers_.push_back(&handler);
  return lastProposed_;
}

void Leader::submitRequest(const Request& request) {
  if (!zks_.isRunning() || prep_ == nullptr) return;  // not serving: the request is dropped
  SessionTrackerImpl& tracker = *zks_.sessionTracker();
  if (request.type == OpCode::create_session) {
    // PrepRequestProcessor, createSession: track it (a follower only allocated the id) and note
    // which server holds its connection.
    tracker.trackSession(request.sessionId, request.timeoutMs, self_.clockMs());
    tracker.setOwner(request.sessionId, request.owner);
  }
  zxid_++;
  ELECTSIM_ASSERT_MSG(counter_of(zxid_) != 0xffffffffLL, "zxid counter rollover (ZOOKEEPER-1277) is not modelled");
  // PrepRequestProcessor: new TxnHeader(..., Time.currentWallTime(), type).
  propose(prep_->pRequest2Txn(request, zxid_, self_.wallClockMs()));
}

void Leader::propose(Txn txn) {
  auto shared = std::make_shared<const Txn>(std::move(txn));
  Zxid zxid = shared->header.zxid;
  ELECTSIM_ASSERT(zxid > lastProposed_);
  outstandingProposals_[zxid] = Proposal{shared, {}};
  lastProposed_ = zxid;
  self_.sim().trace().emit(self_.id(), "zab.propose",
                           {{"zxid", zxid}, {"type", static_cast<std::int32_t>(shared->header.type)}, {"epoch", epoch_}});
  // Followers first, then our own log write (ProposalRequestProcessor).
  for (LearnerHandler* follower : forwardingFollowers_) {
    QuorumPacket packet;
    packet.type = PacketType::proposal;
    packet.zxid = zxid;
    packet.txn = shared;
    follower->queuePacket(std::move(packet));
  }
  sim::pass(self_.sim(), self_.id(), sites::proposal_sent, {{"zxid", zxid}});
  sync_->processRequest(shared);
}

void Leader::processAck(ServerId sid, Zxid zxid) {
  if (counter_of(zxid) == 0) return;  // NEWLEADER and UPTODATE acks
  if (outstandingProposals_.empty()) return;
  if (lastCommitted_ >= zxid) return;
  auto proposal = outstandingProposals_.find(zxid);
  if (proposal == outstandingProposals_.end()) return;  // "Trying to commit future proposal"
  proposal->second.acks.insert(sid);
  tryToCommit(proposal->second, zxid);
}

bool Leader::tryToCommit(Proposal& proposal, Zxid zxid) {
  // Strictly in order: nothing commits while its predecessor is outstanding. Checked only when an
  // ack arrives (no cascade), as in 3.8.
  if (outstandingProposals_.contains(zxid - 1)) return false;
  bool quorum = self_.config().is_quorum(proposal.acks.size());
  bool bug_own_ack = self_.config().bugs.zab_commit_without_quorum && proposal.acks.contains(self_.myid());
  if (!quorum && !bug_own_ack) return false;
  std::shared_ptr<const Txn> txn = proposal.txn;
  outstandingProposals_.erase(zxid);
  lastCommitted_ = zxid;
  for (LearnerHandler* follower : forwardingFollowers_) {
    QuorumPacket packet;
    packet.type = PacketType::commit;
    packet.zxid = zxid;
    follower->queuePacket(std::move(packet));
  }
  sim::pass(self_.sim(), self_.id(), sites::commit_sent, {{"zxid", zxid}});
  zks_.commit(txn);
  if (prep_) prep_->applied(zxid);
  return true;
}

void Leader::touch(SessionId id, std::int32_t timeout_ms) {
  if (zks_.isRunning()) zks_.touch(id, timeout_ms);
}

bool Leader::revalidateSession(SessionId id, std::int32_t timeout_ms, ServerId owner) {
  if (!zks_.isRunning()) return false;
  SessionTrackerImpl& tracker = *zks_.sessionTracker();
  bool valid = tracker.touchSession(id, timeout_ms, self_.clockMs());
  if (valid) tracker.setOwner(id, static_cast<std::uint64_t>(owner));
  return valid;
}

std::vector<ServerId> Leader::syncedLearners() const {
  std::vector<ServerId> synced;
  for (LearnerHandler* learner : learners_) {
    if (learner->synced()) synced.push_back(learner->sid());
  }
  return synced;
}

std::uint64_t Leader::stateDigest() const {
  std::uint64_t digest = sim::hash_fold(0x6c6561, static_cast<std::uint64_t>(epoch_));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(lastProposed_));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(lastCommitted_));
  digest = sim::hash_fold(digest, outstandingProposals_.size());
  digest = sim::hash_fold(digest, (waitingForNewEpoch_ ? 1u : 0u) | (electionFinished_ ? 2u : 0u) | (quorumFormed_ ? 4u : 0u));
  for (LearnerHandler* learner : learners_) digest = sim::hash_fold(digest, static_cast<std::uint64_t>(learner->sid()) * 2 + (learner->synced() ? 1 : 0));
  return digest;
}

std::string Leader::sidList(const std::set<ServerId>& sids) const {
  std::string list;
  for (ServerId sid : sids) list += (list.empty() ? "" : ",") + std::to_string(sid);
  return list;
}

}  // namespace zk
