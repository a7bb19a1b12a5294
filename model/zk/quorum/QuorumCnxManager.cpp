#include "model/zk/quorum/QuorumCnxManager.h"

#include "model/zk/quorum/QuorumPeer.h"

namespace zk {

QuorumCnxManager::QuorumCnxManager(QuorumPeer& self)
    : self_(self), recv_queue_(self.sim(), recv_capacity), send_ready_(self.sim()) {}

void QuorumCnxManager::start() { self_.spawn(listener()); }

sim::Task<void> QuorumCnxManager::listener() {
  sim::Listener<ElectionPacket> listening = self_.sim().network().listen<ElectionPacket>(self_.id(), election_port);
  while (true) {
    sim::Socket<ElectionPacket> socket = co_await listening.accept();
    self_.spawn(handleConnection(std::move(socket)));
  }
}

sim::Task<void> QuorumCnxManager::handleConnection(sim::Socket<ElectionPacket> socket) {
  // The initiator's header comes first; the handshake read times out after syncLimit ticks.
  sim::Received<ElectionPacket> first = co_await socket.receive(self_.config().sync_timeout());
  if (!first || !first->header) co_return;
  ServerId sid = first->sid;
  if (sid < self_.myid()) {
    // We are the larger sid: drop their connection and dial back, so ours is the one that stays.
    socket.close();
    Peer& peer = peers_[sid];
    if (peer.socket.valid()) finish(sid, peer.connection);
    connectOne(sid);
    co_return;
  }
  if (sid == self_.myid()) co_return;  // ZOOKEEPER-2164: a connection from ourselves is ignored
  startWorkers(sid, std::move(socket));
}

void QuorumCnxManager::connectOne(ServerId sid) {
  Peer& peer = peers_[sid];
  if (peer.socket.valid() || peer.connecting) return;
  peer.connecting = true;
  self_.spawn(initiateConnection(sid));
}

sim::Task<void> QuorumCnxManager::initiateConnection(ServerId sid) {
  auto socket = co_await self_.sim().network().connect<ElectionPacket>(self_.nodeOf(sid), election_port,
                                                                       self_.config().election_connect_timeout);
  peers_[sid].connecting = false;
  if (!socket) co_return;  // refused or timed out: the next toSend or connectAll tries again
  socket->send(ElectionPacket{true, self_.myid(), {}});
  if (sid > self_.myid()) {
    // We lose the challenge: the larger sid will connect to us.
    co_return;
  }
  startWorkers(sid, std::move(*socket));
}

void QuorumCnxManager::startWorkers(ServerId sid, sim::Socket<ElectionPacket> socket) {
  Peer& peer = peers_[sid];
  if (peer.socket.valid()) finish(sid, peer.connection);  // the old SendWorker is finished
  peer.socket = std::move(socket);
  peer.connection++;
  peer.has_queue = true;
  self_.spawn(sendWorker(sid, peer.connection));
  self_.spawn(recvWorker(sid, peer.connection));
}

void QuorumCnxManager::finish(ServerId sid, std::uint32_t connection) {
  Peer& peer = peers_[sid];
  if (peer.connection != connection || !peer.socket.valid()) return;
  peer.socket.close();
  peer.socket = {};
  send_ready_.notify_all();  // the worker sees its connection gone and exits
}

sim::Task<void> QuorumCnxManager::sendWorker(ServerId sid, std::uint32_t connection) {
  // A new connection re-sends the last message, in case it died with the previous one.
  {
    Peer& peer = peers_[sid];
    if (!peer.queued && peer.last_message_sent) {
      peer.socket.send(ElectionPacket{false, self_.myid(), *peer.last_message_sent});
    }
  }
  while (true) {
    Peer& peer = peers_[sid];
    if (peer.connection != connection || !peer.socket.valid()) co_return;
    if (!peer.socket.open()) {
      finish(sid, connection);
      co_return;
    }
    if (peer.queued) {
      Notification notification = *peer.queued;
      peer.queued.reset();
      peer.last_message_sent = notification;
      peer.socket.send(ElectionPacket{false, self_.myid(), notification});
      // The write takes time; what is queued meanwhile may be replaced by something newer.
      co_await self_.sim().sleep(self_.config().election_send_interval);
      continue;
    }
    co_await send_ready_.wait();
  }
}

sim::Task<void> QuorumCnxManager::recvWorker(ServerId sid, std::uint32_t connection) {
  while (true) {
    Peer& peer = peers_[sid];
    if (peer.connection != connection || !peer.socket.valid()) co_return;
    sim::Received<ElectionPacket> received = co_await peer.socket.receive();
    if (!received) {
      finish(sid, connection);
      co_return;
    }
    if (received->header) continue;
    addToRecvQueue(Message{received->notification, sid});
  }
}

void QuorumCnxManager::addToRecvQueue(Message message) {
  // CircularBlockingQueue: when full, the oldest message makes room.
  if (!recv_queue_.push(message)) {
    recv_queue_.try_pop();
    bool pushed = recv_queue_.push(message);
    ELECTSIM_ASSERT(pushed);
  }
}

void QuorumCnxManager::toSend(ServerId sid, const Notification& notification) {
  if (sid == self_.myid()) {
    addToRecvQueue(Message{notification, sid});
    return;
  }
  Peer& peer = peers_[sid];
  peer.has_queue = true;
  peer.queued = notification;  // replaces an unsent older one
  send_ready_.notify_all();
  connectOne(sid);
}

void QuorumCnxManager::connectAll() {
  for (auto& [sid, peer] : peers_) {
    if (peer.has_queue) connectOne(sid);
  }
}

bool QuorumCnxManager::haveDelivered() const {
  for (const auto& [sid, peer] : peers_) {
    if (peer.has_queue && !peer.queued) return true;
  }
  return false;
}

}  // namespace zk
