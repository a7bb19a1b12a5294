#include "model/zk/quorum/Follower.h"

#include <cstdio>

#include "model/zk/ZabSites.h"
#include "model/zk/quorum/QuorumPeer.h"
#include "sim/hash_fold.h"

namespace zk {

namespace {

std::string hex_zxid(Zxid zxid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(zxid));
  return text;
}

constexpr int connect_tries_max = 5;
constexpr sim::Duration leader_connect_delay_during_retry = 100ms;  // zookeeper.leaderConnectDelayDuringRetryMs

QuorumPacket packet(PacketType type, Zxid zxid) {
  QuorumPacket result;
  result.type = type;
  result.zxid = zxid;
  return result;
}

}  // namespace

Follower::Follower(QuorumPeer& self)
    : self_(self),
      workers_(self.sim(), self.id()),
      zks_(self, ZooKeeperServer::Role::follower),
      sync_(std::make_shared<SyncRequestProcessor>(
          self.sim(), self.id(), self.disk(), self.config().fsync_latency,
          [this](const std::shared_ptr<const Txn>& txn) {
            // SendAckRequestProcessor: the ACK goes out once the txn is on disk, on the socket the
            // QuorumPeer thread writes to as well (Learner.writePacket, synchronized on leaderOs).
            send(packet(PacketType::ack, txn->header.zxid));
            sim::pass(self_.sim(), self_.id(), sites::ack_sent, {{"zxid", txn->header.zxid}});
          },
          [&self] { return self.threadDelay(); })) {
  zks_.setSubmit([this](const Request& request) {
    // FollowerRequestProcessor: writes go to the leader as REQUEST packets.
    QuorumPacket forward = packet(PacketType::request, -1);
    forward.request = std::make_shared<const Request>(request);
    send(std::move(forward));
  });
  zks_.setRevalidate([this](SessionId id, std::int32_t timeout_ms) { return revalidate(id, timeout_ms); });
}

Follower::~Follower() {
  // A crash (or the end of shutdown()): coroutines first; nothing is flushed.
  workers_.clear();
  if (self_.getActiveServer() == &zks_) self_.setActiveServer(nullptr);
}

void Follower::send(QuorumPacket&& packet) {
  if (socket_.valid()) socket_.send(std::move(packet));
}

sim::Task<void> Follower::followLeader() {
  const QuorumPeerConfig& config = self_.config();
  ServerId leader = self_.getCurrentVote().id;
  if (!co_await connectToLeader(self_.nodeOf(leader))) {
    // Why it leaves FOLLOWING, for the narration (an observation: not hashed).
    self_.sim().trace().observe(self_.id(), "why.follower", {{"leader", leader}, {"reason", "it could not connect to the leader within initLimit (Learner.connectToLeader gave up)"}});
    co_return;
  }
  // The log writer runs in the node's own scope: in 3.8 it outlives this role (orphan()).
  sync_->start(self_.processes());
  std::optional<Zxid> newEpochZxid = co_await registerWithLeader();
  if (!newEpochZxid) co_return;
  if (epoch_of(*newEpochZxid) < self_.getAcceptedEpoch() && !config.bugs.zab_335_epoch_from_zxid) {
    self_.sim().trace().observe(self_.id(), "why.follower", {{"leader", leader}, {"reason", "the leader's epoch is lower than the one it accepted"}});
    co_return;  // "Epoch of leader is lower"
  }
  if (!co_await syncWithLeader(*newEpochZxid)) co_return;
  while (socket_.valid()) {
    sim::Received<QuorumPacket> received = co_await socket_.receive(config.sync_timeout());
    if (!received) {
      self_.sim().trace().emit(self_.id(), "zab.follower_lost_leader",
                               {{"leader", leader}, {"reason", received.timed_out() ? "read timeout" : "connection closed"}});
      co_return;
    }
    if (!processPacket(*received)) co_return;
  }
}

sim::Task<bool> Follower::connectToLeader(sim::NodeId leader) {
  // Learner.connectToLeader: up to 5 tries, all within initLimit ticks, 100 ms apart (4 sleeps).
  const QuorumPeerConfig& config = self_.config();
  sim::Instant start = self_.sim().now();
  for (int tries = 1; tries <= connect_tries_max; tries++) {
    sim::Duration remaining = config.init_timeout() - (self_.sim().now() - start);
    if (remaining <= sim::Duration::zero()) co_return false;
    auto socket = co_await self_.sim().network().connect<QuorumPacket>(leader, quorum_port, remaining);
    if (socket) {
      socket_ = std::move(*socket);
      co_return true;
    }
    remaining = config.init_timeout() - (self_.sim().now() - start);
    if (remaining <= leader_connect_delay_during_retry) co_return false;
    if (tries == connect_tries_max) co_return false;  // "retries exceeded": thrown before the sleep
    co_await self_.sim().sleep(leader_connect_delay_during_retry);
  }
  co_return false;
}

sim::Task<std::optional<Zxid>> Follower::registerWithLeader() {
  const QuorumPeerConfig& config = self_.config();
  Zxid lastLoggedZxid = self_.getLastLoggedZxid();
  bool epochFromZxid = config.bugs.zab_335_epoch_from_zxid;
  // ZOOKEEPER-335 (bug switch): the pre-1.0 FOLLOWERINFO carried the last zxid, not acceptedEpoch.
  QuorumPacket info = packet(PacketType::followerinfo, epochFromZxid ? lastLoggedZxid : make_zxid(self_.getAcceptedEpoch(), 0));
  info.sid = self_.myid();
  send(std::move(info));
  sim::Received<QuorumPacket> leaderInfo = co_await socket_.receive(config.init_timeout());
  if (!leaderInfo || leaderInfo->type != PacketType::leaderinfo) {
    self_.sim().trace().observe(self_.id(), "why.follower",
                                {{"leader", self_.getCurrentVote().id},
                                 {"reason", leaderInfo.timed_out() ? "no LEADERINFO from the leader within initLimit" : "the leader closed the connection before LEADERINFO"}});
    co_return std::nullopt;
  }
  std::int64_t newEpoch = epoch_of(leaderInfo->zxid);
  std::int64_t epochToReport;
  if (newEpoch > self_.getAcceptedEpoch() || (epochFromZxid && newEpoch == self_.getAcceptedEpoch())) {
    epochToReport = self_.getCurrentEpoch();
    self_.setAcceptedEpoch(newEpoch);  // persisted before the ACKEPOCH goes out
    co_await sim::reach(self_.sim(), self_.id(), sites::accepted_epoch_written, {"epoch", newEpoch});
  } else if (newEpoch == self_.getAcceptedEpoch()) {
    epochToReport = -1;  // already accepted this epoch: "don't count me"
  } else {
    self_.sim().trace().observe(self_.id(), "why.follower", {{"leader", self_.getCurrentVote().id}, {"reason", "the leader's epoch is less than the epoch it accepted"}});
    co_return std::nullopt;  // "Leaders epoch is less than accepted epoch"
  }
  QuorumPacket ackEpoch = packet(PacketType::ackepoch, lastLoggedZxid);
  ackEpoch.epoch = epochToReport;
  send(std::move(ackEpoch));
  co_return make_zxid(newEpoch, 0);
}

sim::Task<bool> Follower::syncWithLeader(Zxid newLeaderZxid) {
  const QuorumPeerConfig& config = self_.config();
  const ZkVersion version = config.version;
  ZKDatabase& db = self_.getZkDb();
  std::int64_t newEpoch = epoch_of(newLeaderZxid);
  bool snapshotNeeded = true;

  sim::Received<QuorumPacket> first = co_await socket_.receive(config.init_timeout());
  if (!first) {
    self_.sim().trace().observe(self_.id(), "why.follower",
                                {{"leader", self_.getCurrentVote().id},
                                 {"reason", first.timed_out() ? "no DIFF, SNAP or TRUNC from the leader within initLimit" : "the leader closed the connection before the sync"}});
    co_return false;
  }
  switch (first->type) {
    case PacketType::diff:
      syncMode_ = SyncMode::diff;
      snapshotNeeded = false;
      break;
    case PacketType::snap:
      syncMode_ = SyncMode::snap;
      db.deserializeSnapshot(*first->snapshot);
      db.setlastProcessedZxid(first->zxid);
      break;
    case PacketType::trunc:
      syncMode_ = SyncMode::trunc;
      // ZKDatabase.truncateLog: cut the log, reload the database from disk.
      self_.disk().truncate_log(first->zxid);
      db.loadDataBase(self_.disk());
      db.setlastProcessedZxid(first->zxid);
      break;
    default:
      self_.exitProcess("unexpected first packet during sync");  // System.exit(QUORUM_PACKET_ERROR)
      co_return false;
  }
  // After a SNAP (or TRUNC) this server's state is the leader's snapshot (or its own truncated log)
  // at that zxid: what it delivered beyond is superseded.
  self_.sim().trace().emit(self_.id(), "zab.synced_mode",
                           {{"mode", packet_type_name(first->type)}, {"zxid", first->zxid}, {"leader", self_.getCurrentVote().id}});
  co_await sim::reach(self_.sim(), self_.id(), sites::sync_mode_received, {"mode", packet_type_name(first->type)}, {"zxid", first->zxid});

  bool writeToTxnLog = !snapshotNeeded;
  bool newLeaderSeen = false;
  std::deque<std::shared_ptr<const Txn>> packetsNotCommitted;  // 3.9.3: packetsNotLogged
  std::deque<Zxid> packetsCommitted;
  std::vector<std::shared_ptr<const Txn>> requestsToAck;  // 3.8.5: appended at NEWLEADER, ACKed after UPTODATE
  while (true) {
    sim::Received<QuorumPacket> received = co_await socket_.receive(newLeaderSeen ? config.sync_timeout() : config.init_timeout());
    if (!received) {
      self_.sim().trace().observe(self_.id(), "why.follower",
                                  {{"leader", self_.getCurrentVote().id},
                                   {"reason", !received.timed_out() ? "the leader closed the connection during the sync"
                                              : newLeaderSeen       ? "the leader was silent for syncLimit during the sync (after NEWLEADER)"
                                                                    : "the leader was silent for initLimit during the sync (before NEWLEADER)"}});
      co_return false;
    }
    const QuorumPacket& qp = *received;
    if (qp.type == PacketType::proposal) {
      packetsNotCommitted.push_back(qp.txn);
    } else if (qp.type == PacketType::commit) {
      if (packetsNotCommitted.empty()) {
        // packetsNotCommitted.peekFirst().hdr: a COMMIT after NEWLEADER for an outstanding proposal
        // sent before it, whose buffer NEWLEADER cleared (Learner.java:654-655).
        self_.protocolError("NullPointerException: COMMIT " + hex_zxid(qp.zxid) + " with no uncommitted proposal in sync", "Learner.syncWithLeader",
                            "ZOOKEEPER-4394");
        self_.sim().trace().observe(self_.id(), "why.follower",
                                    {{"leader", self_.getCurrentVote().id},
                                     {"reason", "a COMMIT arrived during the sync for a proposal it never got (NEWLEADER had cleared them): Learner.syncWithLeader "
                                                "throws a NullPointerException and the follower goes back to LOOKING (ZOOKEEPER-4394)"}});
        co_return false;
      }
      if (!writeToTxnLog) {
        // SNAP/TRUNC before NEWLEADER: applied in memory, captured by the snapshot at NEWLEADER.
        if (packetsNotCommitted.front()->header.zxid == qp.zxid) {
          self_.applyCommitted(packetsNotCommitted.front(), nullptr);
          packetsNotCommitted.pop_front();
        }
      } else {
        packetsCommitted.push_back(qp.zxid);
      }
    } else if (qp.type == PacketType::newleader) {
      co_await sim::reach(self_.sim(), self_.id(), sites::newleader_received, {"zxid", qp.zxid});
      if (snapshotNeeded) {
        // A SNAP or TRUNC ends in a snapshot of what we now have; older log entries after it are
        // superseded (the model rolls the log there).
        self_.disk().snapshot = db.takeSnapshot();
        self_.disk().truncate_log(self_.disk().snapshot->zxid);
      }
      writeToTxnLog = true;
      newLeaderSeen = true;
      syncMode_ = SyncMode::none;
      // The ZOOKEEPER-3911 switch is an older code, whatever the release: the 3.8.0 branch, without
      // even the queueing.
      if (version == ZkVersion::v3_8_0 || config.bugs.zk_3911_diff_logged_after_uptodate) {
        self_.setCurrentEpoch(newEpoch);  // before the DIFF txns are on disk (ZOOKEEPER-4643)
        co_await sim::reach(self_.sim(), self_.id(), sites::current_epoch_written, {"epoch", newEpoch});
        // ZOOKEEPER-3911 (bug switch): before 3.5.9 they stayed in memory until UPTODATE.
        if (!config.bugs.zk_3911_diff_logged_after_uptodate) {
          for (const auto& txn : packetsNotCommitted) logRequest(txn);  // queued to the log writer only
          packetsNotCommitted.clear();
        }
        // The log writer runs meanwhile: if this thread is slow enough, its ACKs of the DIFF txns
        // reach the leader before the NEWLEADER ACK (ZOOKEEPER-4685).
        if (sim::Duration delay = self_.threadDelay(); delay > sim::Duration::zero()) co_await self_.sim().sleep(delay);
      } else if (version == ZkVersion::v3_8_5) {
        // ZOOKEEPER-4785: every buffered txn written and fsynced by this thread, then the epoch.
        for (const auto& txn : packetsNotCommitted) {
          appendRequest(txn);
          requestsToAck.push_back(txn);
        }
        packetsNotCommitted.clear();
        co_await syncLog();
        self_.setCurrentEpoch(newEpoch);
        co_await sim::reach(self_.sim(), self_.id(), sites::current_epoch_written, {"epoch", newEpoch});
      } else {
        // 3.9.3 (ZOOKEEPER-4394): the committed txns written and applied, in order; the uncommitted
        // stay buffered until UPTODATE. A commit whose proposal is not at the head is skipped.
        if (!packetsCommitted.empty()) {
          while (!packetsCommitted.empty()) {
            Zxid zxid = packetsCommitted.front();
            packetsCommitted.pop_front();
            if (packetsNotCommitted.empty() || packetsNotCommitted.front()->header.zxid != zxid) continue;  // LOG.warn
            std::shared_ptr<const Txn> txn = packetsNotCommitted.front();
            packetsNotCommitted.pop_front();
            appendToLog(txn);
            self_.applyCommitted(txn, nullptr);
          }
          co_await syncLog();
        }
        self_.setCurrentEpoch(newEpoch);
        co_await sim::reach(self_.sim(), self_.id(), sites::current_epoch_written, {"epoch", newEpoch});
      }
      send(packet(PacketType::ack, newLeaderZxid));
      // What the log holds of the sync when the leader may count us (the history properties
      // attribute a lost txn to the step a crash interrupted: ZOOKEEPER-4643 before this, 4646 after).
      self_.sim().trace().emit(self_.id(), "zab.newleader_ack",
                               {{"zxid", newLeaderZxid}, {"unwritten", static_cast<std::int64_t>(sync_->unflushed() + unflushed_.size())}});
      co_await sim::reach(self_.sim(), self_.id(), sites::newleader_acked, {"zxid", newLeaderZxid},
                          {"queued", static_cast<std::int64_t>(sync_->queued())});
    } else if (qp.type == PacketType::uptodate) {
      co_await sim::reach(self_.sim(), self_.id(), sites::uptodate_received);
      break;
    }
  }
  send(packet(PacketType::ack, make_zxid(newEpoch, 0)));
  zks_.startup();
  self_.setActiveServer(&zks_);
  co_await sim::reach(self_.sim(), self_.id(), sites::uptodate_acked);
  self_.updateElectionVote(newEpoch);
  // 3.8.5: the ACKs of the txns written at NEWLEADER, only now, after the NEWLEADER ACK.
  for (const auto& txn : requestsToAck) send(packet(PacketType::ack, txn->header.zxid));
  for (const auto& txn : packetsNotCommitted) logRequest(txn);
  // fzk.commit: handed to the CommitProcessor, which applies them while this server already serves.
  for (Zxid zxid : packetsCommitted) {
    if (!commit(zxid)) co_return false;
  }
  self_.sim().trace().emit(self_.id(), "zab.following", {{"leader", self_.getCurrentVote().id}, {"epoch", newEpoch}, {"sid", self_.myid()}});
  co_return true;
}

void Follower::logRequest(const std::shared_ptr<const Txn>& txn) {
  if (counter_of(txn->header.zxid) != 0) pendingTxns_.push_back(txn);
  sync_->processRequest(txn);
}

void Follower::appendRequest(const std::shared_ptr<const Txn>& txn) {
  if (counter_of(txn->header.zxid) != 0) pendingTxns_.push_back(txn);
  appendToLog(txn);
}

void Follower::appendToLog(const std::shared_ptr<const Txn>& txn) {
  // zkDb.append on this thread: into the JVM's buffered stream, flushed by syncLog (zkDb.commit).
  unflushed_.push_back(txn);
}

sim::Task<void> Follower::syncLog() {
  // zkDb.commit(): flush to the page cache, then fsync, on this thread.
  ServerDisk& disk = self_.disk();
  for (auto& txn : unflushed_) disk.log.push_back(std::move(txn));
  unflushed_.clear();
  co_await sim::reach(self_.sim(), self_.id(), sites::log_flushed, {"zxid", disk.log.empty() ? Zxid{0} : disk.log.back()->header.zxid});
  co_await self_.sim().sleep(self_.config().fsync_latency);
  disk.synced = disk.log.size();
  co_await sim::reach(self_.sim(), self_.id(), sites::log_synced, {"zxid", disk.log.empty() ? Zxid{0} : disk.log.back()->header.zxid});
}

bool Follower::commit(Zxid zxid) {
  if (pendingTxns_.empty()) return true;  // "Committing without any pending txn": ignored
  if (pendingTxns_.front()->header.zxid != zxid) {
    self_.protocolError("UNMATCHED_TXN_COMMIT: COMMIT " + hex_zxid(zxid) + " while the first pending txn is " + hex_zxid(pendingTxns_.front()->header.zxid),
                        "FollowerZooKeeperServer.commit", "");
    self_.exitProcess("UNMATCHED_TXN_COMMIT");  // System.exit(12)
    return false;
  }
  std::shared_ptr<const Txn> txn = pendingTxns_.front();
  pendingTxns_.pop_front();
  commitToServer(txn);
  return true;
}

void Follower::commitToServer(const std::shared_ptr<const Txn>& txn) {
  // CommitProcessor: commits are applied in order by their own thread. One that finds the thread
  // idle and undelayed is applied at once; the others wait behind it.
  if (committing_.empty()) {
    sim::Duration delay = self_.threadDelay();
    if (delay == sim::Duration::zero()) {
      zks_.commit(txn);
      return;
    }
    workers_.spawn(applyCommits(delay));
  }
  committing_.push_back(txn);
}

sim::Task<void> Follower::applyCommits(sim::Duration delay) {
  co_await self_.sim().sleep(delay);
  while (!committing_.empty()) {
    std::shared_ptr<const Txn> txn = std::move(committing_.front());
    committing_.pop_front();
    zks_.commit(txn);
  }
}

bool Follower::processPacket(const QuorumPacket& qp) {
  switch (qp.type) {
    case PacketType::ping: {
      // Learner.ping: echo, with the sessions our clients touched since the last ping.
      QuorumPacket reply = packet(PacketType::ping, qp.zxid);
      reply.touches = zks_.learnerSessionTracker()->getTouchSnapshot();
      send(std::move(reply));
      return true;
    }
    case PacketType::proposal: logRequest(qp.txn); return true;
    case PacketType::commit: return commit(qp.zxid);
    case PacketType::revalidate: {
      auto pending = pendingRevalidations_.find(qp.session_id);
      if (pending != pendingRevalidations_.end()) {
        sim::Promise<bool> promise = std::move(pending->second);
        pendingRevalidations_.erase(pending);
        promise.set_value(qp.valid);
      }
      return true;
    }
    default: return true;
  }
}

sim::Task<bool> Follower::revalidate(SessionId id, std::int32_t timeout_ms) {
  QuorumPacket request = packet(PacketType::revalidate, -1);
  request.session_id = id;
  request.timeout_ms = timeout_ms;
  sim::Promise<bool> promise;
  sim::Future<bool> answer = promise.get_future();
  pendingRevalidations_.emplace(id, std::move(promise));
  send(std::move(request));
  try {
    co_return co_await answer.wait(self_.sim());  // `this` may be gone afterwards
  } catch (const sim::BrokenPromise&) {
    co_return false;
  }
}

std::uint64_t Follower::stateDigest() const {
  std::uint64_t digest = sim::hash_fold(0x666f6c, static_cast<std::uint64_t>(syncMode_));
  digest = sim::hash_fold(digest, sync_->queued());
  digest = sim::hash_fold(digest, committing_.size());
  digest = sim::hash_fold(digest, pendingTxns_.size());
  if (!pendingTxns_.empty()) digest = sim::hash_fold(digest, static_cast<std::uint64_t>(pendingTxns_.front()->header.zxid));
  return digest;
}

void Follower::shutdown() {
  const ZkVersion version = self_.config().version;
  // ZooKeeperServer.shutdown(boolean) does anything only for a server that reached UPTODATE.
  bool running = zks_.isRunning();
  if (self_.getActiveServer() == &zks_) self_.setActiveServer(nullptr);
  self_.cnxnFactory().closeAllConnections();
  socket_.close();
  pendingRevalidations_.clear();
  if (version == ZkVersion::v3_9_3) {
    // ZOOKEEPER-4712's fix (shutdownComponents): the log writer drained and synced first.
    sync_->shutdown();
  } else {
    // 3.8: Learner.shutdown -> zk.shutdown(boolean) never stops the SyncRequestProcessor: it goes on
    // writing what is queued after the memory below is caught up with the log (ZOOKEEPER-4712).
    if (sync_->queued() > 0) {
      self_.sim().trace().emit(self_.id(), "zab.log_writer_orphaned", {{"queued", static_cast<std::int64_t>(sync_->queued())}, {"running", running}});
    }
    sync_->orphan();
  }
  if (running) {
    zks_.shutdown();
    committing_.clear();  // the CommitProcessor is halted: what it had not applied is dropped
  }
  if (syncMode_ == SyncMode::snap) {
    // ZOOKEEPER-3642: a SNAP that never reached NEWLEADER is not trusted (the database is cleared
    // and loaded again from disk).
    self_.getZkDb().loadDataBase(self_.disk());
  } else if (running && !self_.config().bugs.zk_2845_retain_database) {
    self_.getZkDb().fastForwardDataBase(self_.disk());
  }
  workers_.clear();
}

}  // namespace zk
