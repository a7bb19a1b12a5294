#include "model/zk/quorum/Follower.h"

#include "model/zk/quorum/QuorumPeer.h"

namespace zk {

namespace {

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
      sync_(self.sim(), self.disk(), self.config().fsync_latency, [this](const std::shared_ptr<const Txn>& txn) {
        // SendAckRequestProcessor: the ACK goes out once the txn is on disk.
        send(packet(PacketType::ack, txn->header.zxid));
      }) {
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
  if (!co_await connectToLeader(self_.nodeOf(leader))) co_return;
  sync_.start(workers_);
  std::optional<Zxid> newEpochZxid = co_await registerWithLeader();
  if (!newEpochZxid) co_return;
  if (epoch_of(*newEpochZxid) < self_.getAcceptedEpoch() && !config.bugs.zab_335_epoch_from_zxid) co_return;  // "Epoch of leader is lower"
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
  if (!leaderInfo || leaderInfo->type != PacketType::leaderinfo) co_return std::nullopt;
  std::int64_t newEpoch = epoch_of(leaderInfo->zxid);
  std::int64_t epochToReport;
  if (newEpoch > self_.getAcceptedEpoch() || (epochFromZxid && newEpoch == self_.getAcceptedEpoch())) {
    epochToReport = self_.getCurrentEpoch();
    self_.setAcceptedEpoch(newEpoch);  // persisted before the ACKEPOCH goes out
  } else if (newEpoch == self_.getAcceptedEpoch()) {
    epochToReport = -1;  // already accepted this epoch: "don't count me"
  } else {
    co_return std::nullopt;  // "Leaders epoch is less than accepted epoch"
  }
  QuorumPacket ackEpoch = packet(PacketType::ackepoch, lastLoggedZxid);
  ackEpoch.epoch = epochToReport;
  send(std::move(ackEpoch));
  co_return make_zxid(newEpoch, 0);
}

sim::Task<bool> Follower::syncWithLeader(Zxid newLeaderZxid) {
  const QuorumPeerConfig& config = self_.config();
  ZKDatabase& db = self_.getZkDb();
  std::int64_t newEpoch = epoch_of(newLeaderZxid);
  bool snapshotNeeded = true;

  sim::Received<QuorumPacket> first = co_await socket_.receive(config.init_timeout());
  if (!first) co_return false;
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

  bool writeToTxnLog = !snapshotNeeded;
  bool newLeaderSeen = false;
  std::deque<std::shared_ptr<const Txn>> packetsNotCommitted;
  std::deque<Zxid> packetsCommitted;
  while (true) {
    sim::Received<QuorumPacket> received = co_await socket_.receive(newLeaderSeen ? config.sync_timeout() : config.init_timeout());
    if (!received) co_return false;
    const QuorumPacket& qp = *received;
    if (qp.type == PacketType::proposal) {
      packetsNotCommitted.push_back(qp.txn);
    } else if (qp.type == PacketType::commit) {
      if (packetsNotCommitted.empty()) co_return false;  // the NullPointerException of ZOOKEEPER-4394
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
      if (snapshotNeeded) {
        // A SNAP or TRUNC ends in a snapshot of what we now have; older log entries after it are
        // superseded (the model rolls the log there).
        self_.disk().snapshot = db.takeSnapshot();
        self_.disk().truncate_log(self_.disk().snapshot->zxid);
      }
      self_.setCurrentEpoch(newEpoch);  // 3.8.0: before the DIFF txns are on disk (ZOOKEEPER-4643)
      writeToTxnLog = true;
      newLeaderSeen = true;
      syncMode_ = SyncMode::none;
      for (const auto& txn : packetsNotCommitted) logRequest(txn);  // asynchronously
      packetsNotCommitted.clear();
      send(packet(PacketType::ack, newLeaderZxid));
    } else if (qp.type == PacketType::uptodate) {
      break;
    }
  }
  send(packet(PacketType::ack, make_zxid(newEpoch, 0)));
  zks_.startup();
  self_.setActiveServer(&zks_);
  self_.updateElectionVote(newEpoch);
  for (const auto& txn : packetsNotCommitted) logRequest(txn);
  for (Zxid zxid : packetsCommitted) {
    if (!commit(zxid)) co_return false;
  }
  self_.sim().trace().emit(self_.id(), "zab.following", {{"leader", self_.getCurrentVote().id}, {"epoch", newEpoch}, {"sid", self_.myid()}});
  co_return true;
}

void Follower::logRequest(const std::shared_ptr<const Txn>& txn) {
  if (counter_of(txn->header.zxid) != 0) pendingTxns_.push_back(txn);
  sync_.processRequest(txn);
}

bool Follower::commit(Zxid zxid) {
  if (pendingTxns_.empty()) return true;  // "Committing without any pending txn": ignored
  if (pendingTxns_.front()->header.zxid != zxid) {
    self_.exitProcess("UNMATCHED_TXN_COMMIT");  // System.exit(12)
    return false;
  }
  std::shared_ptr<const Txn> txn = pendingTxns_.front();
  pendingTxns_.pop_front();
  zks_.commit(txn);
  return true;
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

void Follower::shutdown() {
  if (self_.getActiveServer() == &zks_) self_.setActiveServer(nullptr);
  self_.cnxnFactory().closeAllConnections();
  socket_.close();
  zks_.shutdown();
  pendingRevalidations_.clear();
  sync_.shutdown();
  if (syncMode_ == SyncMode::snap) {
    // ZOOKEEPER-3642: a SNAP that never reached NEWLEADER is not trusted; reload from disk.
    self_.getZkDb().loadDataBase(self_.disk());
  } else {
    self_.getZkDb().fastForwardDataBase(self_.disk());
  }
  workers_.clear();
}

}  // namespace zk
