#include "model/zk/quorum/LearnerHandler.h"

#include "model/zk/ZabSites.h"
#include "model/zk/quorum/Leader.h"
#include "model/zk/quorum/QuorumPeer.h"

namespace zk {

std::string_view packet_type_name(PacketType type) {
  switch (type) {
    case PacketType::request: return "REQUEST";
    case PacketType::proposal: return "PROPOSAL";
    case PacketType::ack: return "ACK";
    case PacketType::commit: return "COMMIT";
    case PacketType::ping: return "PING";
    case PacketType::revalidate: return "REVALIDATE";
    case PacketType::newleader: return "NEWLEADER";
    case PacketType::followerinfo: return "FOLLOWERINFO";
    case PacketType::uptodate: return "UPTODATE";
    case PacketType::diff: return "DIFF";
    case PacketType::trunc: return "TRUNC";
    case PacketType::snap: return "SNAP";
    case PacketType::leaderinfo: return "LEADERINFO";
    case PacketType::ackepoch: return "ACKEPOCH";
  }
  return "UNKNOWN";
}

namespace {
QuorumPacket packet(PacketType type, Zxid zxid) {
  QuorumPacket result;
  result.type = type;
  result.zxid = zxid;
  return result;
}
}  // namespace

LearnerHandler::LearnerHandler(Leader& leader, sim::Socket<QuorumPacket> socket) : leader_(leader), socket_(std::move(socket)) {}

bool LearnerHandler::synced() const { return alive_ && leader_.tick() <= tickOfNextAckDeadline_; }

void LearnerHandler::shutdown() {
  if (!alive_) return;
  alive_ = false;
  socket_.close();
  leader_.removeLearnerHandler(*this);
}

void LearnerHandler::send(QuorumPacket&& packet) {
  if (packet.type == PacketType::proposal) syncLimitCheck_.updateProposal(packet.zxid, leader_.self().sim().now());
  socket_.send(std::move(packet));
}

void LearnerHandler::queuePacket(QuorumPacket&& packet) {
  if (!alive_) return;
  if (sending_) {
    send(std::move(packet));
  } else {
    queued_.push_back(std::move(packet));
  }
}

void LearnerHandler::ping() {
  if (!alive_ || !sending_) return;
  QuorumPeer& self = leader_.self();
  if (!syncLimitCheck_.check(self.sim().now(), sim::millis(self.config().sync_timeout()))) {
    self.sim().trace().emit(self.id(), "zab.learner_dropped", {{"sid", sid_}, {"reason", "transaction timeout"}});
    shutdown();
    return;
  }
  send(packet(PacketType::ping, leader_.lastProposed()));
}

sim::Task<void> LearnerHandler::run() {
  QuorumPeer& self = leader_.self();
  const QuorumPeerConfig& config = self.config();
  struct Exit {
    LearnerHandler& handler;
    ~Exit() { handler.shutdown(); }
  } exit{*this};
  tickOfNextAckDeadline_ = leader_.tick() + config.init_limit + config.sync_limit;

  // FOLLOWERINFO: who it is and the epoch it last accepted.
  sim::Received<QuorumPacket> info = co_await socket_.receive(config.init_timeout());
  if (!info || info->type != PacketType::followerinfo) co_return;
  sid_ = info->sid;
  std::optional<std::int64_t> newEpoch = co_await leader_.getEpochToPropose(sid_, epoch_of(info->zxid));
  if (!newEpoch) co_return;
  Zxid newLeaderZxid = make_zxid(*newEpoch, 0);
  send(packet(PacketType::leaderinfo, newLeaderZxid));

  sim::Received<QuorumPacket> ackEpoch = co_await socket_.receive(config.init_timeout());
  if (!ackEpoch || ackEpoch->type != PacketType::ackepoch) co_return;
  StateSummary summary{ackEpoch->epoch, ackEpoch->zxid};
  if (!co_await leader_.waitForEpochAck(sid_, summary)) co_return;

  // Synchronization: what it misses is queued; a snapshot goes straight onto the socket first.
  bool needSnap = syncFollower(summary.last_zxid);
  if (needSnap) {
    ZKDatabase& db = self.getZkDb();
    QuorumPacket snap = packet(PacketType::snap, db.getDataTreeLastProcessedZxid());
    snap.snapshot = db.takeSnapshot();
    send(std::move(snap));
  }
  queuePacket(packet(PacketType::newleader, newLeaderZxid));
  // startSendingPackets: the sync packets in order, each a site. Packets queued while a fault holds
  // one of them (a proposal made meanwhile) wait behind it, as in the sender thread's queue.
  for (std::size_t next = 0; next < queued_.size(); next++) {
    PacketType type = queued_[next].type;
    Zxid zxid = queued_[next].zxid;
    send(std::move(queued_[next]));
    co_await sim::reach(self.sim(), self.id(), sites::sync_packet_sent, {"learner", sid_}, {"type", packet_type_name(type)}, {"zxid", zxid});
    if (!alive_) co_return;
  }
  queued_.clear();
  sending_ = true;

  sim::Received<QuorumPacket> newLeaderAck = co_await socket_.receive(config.init_timeout());
  if (!newLeaderAck || newLeaderAck->type != PacketType::ack) co_return;
  if (!co_await leader_.waitForNewLeaderAck(sid_, newLeaderAck->zxid)) co_return;
  syncLimitCheck_.start();
  co_await leader_.waitForStartup();
  queuePacket(packet(PacketType::uptodate, -1));
  co_await sim::reach(self.sim(), self.id(), sites::uptodate_sent, {"learner", sid_});

  // Broadcast: from now on the learner must be heard from within syncLimit ticks.
  while (alive_) {
    sim::Received<QuorumPacket> received = co_await socket_.receive(config.sync_timeout());
    if (!received) co_return;
    tickOfNextAckDeadline_ = leader_.tick() + config.sync_limit;
    switch (received->type) {
      case PacketType::ack:
        syncLimitCheck_.updateAck(received->zxid);
        leader_.processAck(sid_, received->zxid);
        break;
      case PacketType::ping:
        for (const auto& [session, timeout_ms] : received->touches) leader_.touch(session, timeout_ms);
        break;
      case PacketType::revalidate: {
        QuorumPacket reply = packet(PacketType::revalidate, -1);
        reply.session_id = received->session_id;
        reply.valid = leader_.revalidateSession(received->session_id, received->timeout_ms, sid_);
        queuePacket(std::move(reply));
        break;
      }
      case PacketType::request:
        if (received->request) leader_.submitRequest(*received->request);
        break;
      default: break;
    }
  }
}

bool LearnerHandler::syncFollower(Zxid peerLastZxid) {
  ZKDatabase& db = leader_.self().getZkDb();
  bool isPeerNewEpochZxid = counter_of(peerLastZxid) == 0;
  Zxid currentZxid = peerLastZxid;
  bool needSnap = true;
  bool needOpPacket = true;
  Zxid maxCommittedLog = db.getmaxCommittedLog();
  Zxid minCommittedLog = db.getminCommittedLog();
  Zxid lastProcessedZxid = db.getDataTreeLastProcessedZxid();
  const char* mode = "SNAP";
  if (lastProcessedZxid == peerLastZxid) {
    // Already in sync: an empty DIFF.
    queuePacket(packet(PacketType::diff, peerLastZxid));
    needOpPacket = false;
    needSnap = false;
    mode = "DIFF";
  } else if (peerLastZxid > maxCommittedLog && !isPeerNewEpochZxid) {
    // The learner has txns we never committed (an old leader's): truncate them.
    queuePacket(packet(PacketType::trunc, maxCommittedLog));
    currentZxid = maxCommittedLog;
    needOpPacket = false;
    needSnap = false;
    mode = "TRUNC";
  } else if (minCommittedLog <= peerLastZxid && peerLastZxid <= maxCommittedLog) {
    currentZxid = queueCommittedProposals(peerLastZxid, INT64_MAX, maxCommittedLog, needOpPacket);
    needSnap = false;
    mode = "DIFF";
  }
  // Below the committedLog window: ZooKeeper may read its on-disk txn log (bounded by a third of the
  // snapshot's size); the model always falls back to SNAP there (see docs/zookeeper-model.md).
  if (needSnap) currentZxid = lastProcessedZxid;
  if (needOpPacket && !needSnap) {
    needSnap = true;  // safety fallback, as in 3.8
    mode = "SNAP";
  }
  leader_.self().sim().trace().emit(leader_.self().id(), "zab.sync",
                                    {{"learner", sid_}, {"mode", mode}, {"peer_zxid", peerLastZxid}, {"leader_zxid", lastProcessedZxid}});
  leader_.startForwarding(*this, currentZxid);
  return needSnap;
}

Zxid LearnerHandler::queueCommittedProposals(Zxid peerLastZxid, Zxid maxZxid, Zxid lastCommittedZxid, bool& needOpPacket) {
  bool isPeerNewEpochZxid = counter_of(peerLastZxid) == 0;
  Zxid queuedZxid = peerLastZxid;
  Zxid prevProposalZxid = -1;
  for (const auto& txn : leader_.self().getZkDb().getCommittedLog()) {
    Zxid zxid = txn->header.zxid;
    if (zxid > maxZxid) break;
    if (zxid < peerLastZxid) {
      prevProposalZxid = zxid;
      continue;
    }
    if (needOpPacket) {
      if (zxid == peerLastZxid) {
        // The learner's last zxid is in our history: send what follows.
        queuePacket(packet(PacketType::diff, lastCommittedZxid));
        needOpPacket = false;
        continue;
      }
      if (isPeerNewEpochZxid) {
        queuePacket(packet(PacketType::diff, lastCommittedZxid));
        needOpPacket = false;
      } else if (zxid > peerLastZxid) {
        // The learner has a txn we do not: truncate back to our previous one (same epoch only).
        if (epoch_of(zxid) != epoch_of(peerLastZxid)) return queuedZxid;  // -> SNAP
        queuePacket(packet(PacketType::trunc, prevProposalZxid));
        needOpPacket = false;
      }
    }
    if (zxid <= queuedZxid) continue;
    QuorumPacket proposal = packet(PacketType::proposal, zxid);
    proposal.txn = txn;
    queuePacket(std::move(proposal));
    queuePacket(packet(PacketType::commit, zxid));
    queuedZxid = zxid;
  }
  if (needOpPacket && isPeerNewEpochZxid) {
    queuePacket(packet(PacketType::diff, lastCommittedZxid));
    needOpPacket = false;
  }
  return queuedZxid;
}

}  // namespace zk
