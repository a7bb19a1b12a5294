// QuorumCnxManager: the election connections between servers (ZooKeeper 3.8).
//
// One TCP connection per pair of servers, and only the one initiated by the larger sid survives:
// when the smaller sid dials, the larger one drops that connection and dials back
// (initiateConnection / handleConnection). Each peer has a send queue of capacity one in which a
// newer notification replaces an unsent older one (CircularBlockingQueue), and a SendWorker that
// re-sends the last message when a new connection starts; every RecvWorker feeds one recvQueue of
// capacity 100 that drops its oldest message on overflow. Connections are never re-dialled on their
// own: the next toSend() or connectAll() (FLE's notification timeout) does it. The established
// connections have no read timeout, so a silent partition is noticed only by FLE's timeouts.
#pragma once

#include <map>
#include <optional>

#include "model/zk/quorum/Vote.h"
#include "sim/network.h"
#include "sim/sync.h"

namespace zk {

class QuorumPeer;

// What travels on an election connection: first the initiator's header, then notifications.
struct ElectionPacket {
  bool header = false;  // the connection's first message: the initiator's sid
  ServerId sid = -1;
  Notification notification;
};

// The systematic search's view of an election message in flight (sim/connection.h): the vote it
// carries and the sender's state (the round is left out: rounds only count elections).
inline std::uint64_t state_digest(const ElectionPacket& packet) {
  if (packet.header) return 0x68656164 + static_cast<std::uint64_t>(packet.sid);
  const Notification& n = packet.notification;
  std::uint64_t digest = (static_cast<std::uint64_t>(n.leader) << 48) ^ static_cast<std::uint64_t>(n.zxid);
  return digest ^ (static_cast<std::uint64_t>(n.peer_epoch) << 32) ^ (static_cast<std::uint64_t>(n.state) << 60) ^ static_cast<std::uint64_t>(n.sid) << 52;
}

class QuorumCnxManager {
 public:
  // A received election message and the sid of the connection it came on (Message).
  struct Message {
    Notification notification;
    ServerId sid;
  };
  static constexpr std::size_t recv_capacity = 100;

  explicit QuorumCnxManager(QuorumPeer& self);
  QuorumCnxManager(const QuorumCnxManager&) = delete;

  void start();  // the Listener on the election port

  // Queues a message for `sid` (replacing an unsent one) and makes sure a connection is on its way.
  // To ourselves it loops straight back into the recvQueue.
  void toSend(ServerId sid, const Notification& notification);
  void connectAll();
  // True as soon as any peer's send queue is empty (QuorumCnxManager.haveDelivered).
  bool haveDelivered() const;
  sim::Queue<Message>& recvQueue() { return recv_queue_; }

 private:
  struct Peer {
    std::optional<Notification> queued;  // the capacity-one send queue
    std::optional<Notification> last_message_sent;
    sim::Socket<ElectionPacket> socket;  // the live connection, if any
    std::uint32_t connection = 0;        // bumped each time a connection is replaced
    bool connecting = false;             // inprogressConnections
    bool has_queue = false;              // queueSendMap contains the sid
  };

  sim::Task<void> listener();
  sim::Task<void> handleConnection(sim::Socket<ElectionPacket> socket);
  sim::Task<void> initiateConnection(ServerId sid);
  void connectOne(ServerId sid);
  void startWorkers(ServerId sid, sim::Socket<ElectionPacket> socket);
  sim::Task<void> sendWorker(ServerId sid, std::uint32_t connection);
  sim::Task<void> recvWorker(ServerId sid, std::uint32_t connection);
  void finish(ServerId sid, std::uint32_t connection);
  void addToRecvQueue(Message message);

  QuorumPeer& self_;
  std::map<ServerId, Peer> peers_;
  sim::Queue<Message> recv_queue_;
  sim::Condition send_ready_;  // a peer's queue got a message or its connection changed
};

}  // namespace zk
