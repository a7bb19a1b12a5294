// The network: TCP-like point-to-point connections between nodes.
//
//  - Delivery is FIFO per direction; each message's latency is drawn from the connection's own
//    random stream (seeded by the two endpoints' names and the pair's connection count), so a fault
//    elsewhere never shifts these draws.
//  - A message whose link is cut is not delivered: the endpoints are never told, they find out by
//    their own timeouts. As TCP retransmits, an open connection delivers what it held, in order,
//    after the link heals (if neither end has given up and closed it by then): at the sender's
//    first retransmission at or after the heal, whose timeout doubled from 200 ms while the link
//    was cut (sim/retransmission.h). Later sends queue behind the held ones.
//  - A process crash closes its sockets the way the operating system does: the peer reads "closed"
//    one latency later. A power-off closes nothing: the peer hears silence, and if it sends after the
//    machine comes back, the new kernel answers with a reset.
//  - connect() is a handshake: silence (cut link, machine off) times out; a machine whose process is
//    not listening refuses after a round trip.
// A connection's internals (endpoints, directions, in-flight items) are in sim/connection.h.
#pragma once

#include <array>
#include <concepts>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "sim/connection.h"
#include "sim/inbox.h"
#include "sim/message_trace.h"
#include "sim/node.h"
#include "sim/random.h"
#include "sim/reachability.h"
#include "sim/ring.h"
#include "sim/simulation.h"
#include "sim/sync.h"
#include "sim/task.h"

namespace sim {

template <class M>
class Socket;
template <class M>
class Listener;

struct NetworkStats {
  std::uint64_t messages_sent = 0;
  std::uint64_t messages_delivered = 0;
  std::uint64_t messages_dropped = 0;  // arrived at a closed endpoint
  std::uint64_t connections_opened = 0;
  std::uint64_t retransmissions = 0;   // of held messages, once their way reopened
};

namespace detail {

class ListenerBase {
 public:
  virtual ~ListenerBase() = default;
  virtual void accepted(std::uint32_t index, std::uint32_t generation) = 0;
  const void* message_type = nullptr;
};

template <class M>
const void* message_type_tag() {
  static const char tag = 0;
  return &tag;
}

}  // namespace detail

// The tag a MessageDescriber receives for messages of type M (unique per type, across files).
template <class M>
const void* message_type() {
  return detail::message_type_tag<M>();
}

class Network final : public EventHandler {
 public:
  explicit Network(Simulation& sim);
  ~Network();

  void set_latency(Duration min, Duration max);
  Duration latency_min() const { return latency_min_; }
  Duration latency_max() const { return latency_max_; }
  const NetworkStats& stats() const { return stats_; }

  // ---- reachability (faults) ----
  const Reachability& reachability() const { return reachability_; }
  bool reachable(NodeId from, NodeId to) const { return reachability_.reachable(from, to); }
  void partition(const std::vector<std::vector<NodeId>>& groups);
  void isolate(NodeId node);
  void bridge(NodeId bridge_node, const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b);
  void drop(NodeId from, NodeId to);
  void heal_all();

  // The ways whose held data waits for a retransmission already queued (the way reopened), and its
  // instant: what a cut held there is delivered then, plus a latency. Liveness bounds after a heal
  // wait for them (harness/runner.cpp).
  struct QueuedRetransmission {
    NodeId from = no_node;
    NodeId to = no_node;
    Instant at;
  };
  std::vector<QueuedRetransmission> queued_retransmissions() const;
  // A hash of what the network holds: every open connection's endpoints, and the messages in flight
  // or unread on it (sim/connection.h, message_state_digest). For the systematic search's pruning
  // (harness/systematic.h): two moments with the same digest hold the same traffic.
  std::uint64_t state_digest() const;

  // ---- the message trace (opt-in; set before the run starts) ----
  // Every message sent, delivered or dropped, each FIN and RST, and every change of reachability
  // become observations (Trace::observe: seen by sinks, not hashed): net.send, net.deliver,
  // net.drop, net.links. Off by default, when a run pays one predictable branch per send and per
  // delivery and produces the same trace hash either way.
  void trace_messages(MessageDescriber describer) { describer_ = describer; }
  bool messages_traced() const { return describer_ != nullptr; }

  // ---- sockets ----
  template <class M>
  Listener<M> listen(NodeId node, std::uint16_t port);

  // From the current node to `to`:`port`. Empty when refused or timed out.
  template <class M>
  Task<std::optional<Socket<M>>> connect(NodeId to, std::uint16_t port, Duration timeout);

  // ---- used by Node and Simulation ----
  void node_added(NodeId node);
  void node_started(NodeId node);
  void node_stopped(NodeId node, bool silent);
  void handle_event(std::uint32_t target, std::uint32_t generation) override;

  // ---- used by Socket and Listener ----
  detail::ConnectionBase* connection(std::uint32_t index, std::uint32_t generation) const {
    if (index >= connections_.size() || connections_[index] == nullptr) return nullptr;
    detail::ConnectionBase* connection = connections_[index].get();
    return connection->generation == generation ? connection : nullptr;
  }
  // The message is made in the in-flight buffer from what the sender's Socket::send hands over:
  // the message itself, which moves once, or one of its alternatives (a ClientRequest for a
  // ClientPacket), which moves once into a message made in place.
  template <class M, class Part>
  void send(detail::Connection<M>& connection, int side, Part&& part);
  void close_endpoint(detail::ConnectionBase& connection, int side);
  void unlisten(NodeId node, std::uint16_t port, detail::ListenerBase* listener);
  Simulation& sim() const { return sim_; }

 private:
  struct ConnectAttempt;

  // The retransmission timers' firings, a second kind of event (target and generation as a
  // delivery's): Network::retransmit.
  struct RetransmissionEvents final : EventHandler {
    explicit RetransmissionEvents(Network& network) : network(network) {}
    void handle_event(std::uint32_t target, std::uint32_t generation) override { network.retransmit(target, generation); }
    Network& network;
  };

  void schedule_delivery(detail::ConnectionBase& connection, int direction);
  void deliver_due(detail::ConnectionBase& connection, int direction);  // one delivery that came due
  void stall(detail::ConnectionBase& connection, int direction);
  bool way_open(const detail::ConnectionBase& connection, int direction) const;
  void queue_retransmission(detail::ConnectionBase& connection, int direction);
  void give_up_orphan(detail::ConnectionBase& connection, int direction);
  void discard(detail::ConnectionBase& connection, int direction, std::string_view reason);
  void retransmit(std::uint32_t target, std::uint32_t generation);
  void release_if_finished(detail::ConnectionBase& connection);
  void resume_stalled();
  void reset_connection(detail::ConnectionBase& connection, int dead_side);
  Duration draw_latency(SmallRng& rng) const;
  std::uint64_t connection_seed(NodeId client, NodeId server);
  template <class M>
  detail::Connection<M>& open_connection(NodeId client, NodeId server);
  void trace_push(detail::ConnectionBase& connection, int side, const MessageDescription& what);
  void trace_take(detail::ConnectionBase& connection, int direction, std::string_view kind, std::string_view reason);
  void trace_links();

  Simulation& sim_;
  RetransmissionEvents retransmission_events_;
  std::uint8_t delivery_kind_;
  std::uint8_t retransmission_kind_;
  Duration latency_min_ = 1ms;
  Duration latency_max_ = 1ms;
  SmallRng::Uniform latency_draw_{latency_min_.count(), latency_max_.count()};  // uniform over the two
  Reachability reachability_;
  std::vector<std::unique_ptr<detail::ConnectionBase>> connections_;
  std::vector<std::uint32_t> generations_;  // per index, survives reuse
  std::vector<std::uint32_t> free_indexes_;
  std::vector<std::pair<std::uint32_t, int>> stalled_;  // (connection index, direction)
  std::map<std::pair<NodeId, std::uint16_t>, detail::ListenerBase*> listeners_;
  std::map<std::pair<NodeId, NodeId>, std::uint32_t> connections_between_;
  NetworkStats stats_;
  MessageDescriber describer_ = nullptr;
};

// One end of a connection, owned by the coroutine (or the node state) that uses it. Destroying it
// closes it: with a FIN if the process is exiting or closing, silently if its machine lost power.
template <class M>
class Socket {
 public:
  Socket() = default;
  Socket(Network& network, std::uint32_t index, std::uint32_t generation, int side)
      : network_(&network), index_(index), generation_(generation), side_(static_cast<std::uint8_t>(side)) {}
  Socket(Socket&& other) noexcept
      : network_(std::exchange(other.network_, nullptr)), index_(other.index_), generation_(other.generation_), side_(other.side_) {}
  Socket& operator=(Socket&& other) noexcept {
    if (this != &other) {
      close();
      network_ = std::exchange(other.network_, nullptr);
      index_ = other.index_;
      generation_ = other.generation_;
      side_ = other.side_;
    }
    return *this;
  }
  Socket(const Socket&) = delete;
  ~Socket() { close(); }

  bool valid() const { return network_ != nullptr; }
  // Our side is open and the peer's close has not arrived.
  bool open() const {
    detail::Connection<M>* connection = resolve();
    return connection != nullptr && connection->ends[side_].open && !connection->ends[side_].peer_closed;
  }
  NodeId peer() const {
    detail::Connection<M>* connection = resolve();
    return connection != nullptr ? connection->ends[1 - side_].node : no_node;
  }
  std::uint32_t id() const { return index_; }

  // Non-blocking, like a write into the kernel's send buffer. False if this side is closed. A
  // message passed as an rvalue moves once, into the connection's in-flight buffer.
  bool send(M&& message) { return sendPart(std::move(message)); }
  bool send(const M& message) { return sendPart(message); }
  // One alternative of a variant message (socket.send(std::move(request)) on a ClientPacket
  // socket): the message is made around it in the in-flight buffer, where converting it to M first
  // would move it twice and destroy a moved-from copy (1.5% of an exploration's instructions).
  template <class Part>
    requires(!std::same_as<std::remove_cvref_t<Part>, M> && std::constructible_from<M, Part &&>)
  bool send(Part&& part) {
    return sendPart(std::forward<Part>(part));
  }

  // From now on, what this socket receives (and its close) arrives in `inbox`.
  void attach(Inbox<M>& inbox) {
    detail::Connection<M>* connection = resolve();
    ELECTSIM_ASSERT(connection != nullptr);
    detail::Endpoint& end = connection->ends[side_];
    ELECTSIM_ASSERT(end.inbox == nullptr);
    NodeId from = connection->ends[1 - side_].node;
    Ring<M>& buffered = connection->received(side_);
    while (!buffered.empty()) inbox.deliver(Envelope<M>{index_, from, buffered.pop_front()}, false);
    if (end.peer_closed) inbox.deliver(Envelope<M>{index_, from, std::nullopt}, false);
    end.inbox = &inbox;
    inbox.attached(*network_, index_, generation_, side_);
  }

  void close() {
    if (network_ == nullptr) return;
    if (detail::ConnectionBase* connection = network_->connection(index_, generation_)) {
      network_->close_endpoint(*connection, side_);
    }
    network_ = nullptr;
  }

  // Holds the connection's identity by value, not a reference to this Socket: the Socket object may
  // be moved or reassigned to another connection while a reader is suspended.
  class ReceiveAwaiter {
   public:
    ReceiveAwaiter(const Socket& socket, std::optional<Instant> deadline)
        : network_(socket.network_), index_(socket.index_), generation_(socket.generation_), side_(socket.side_),
          group_(socket.network_->sim()), deadline_(deadline) {}
    ReceiveAwaiter(const ReceiveAwaiter&) = delete;
    bool await_ready() {
      detail::Connection<M>* connection = resolve();
      return connection == nullptr || !connection->received(side_).empty() || !connection->ends[side_].open ||
             connection->ends[side_].peer_closed;
    }
    void await_suspend(std::coroutine_handle<> handle) {
      group_.suspend(handle);
      entry_.group = &group_;
      entry_.slot = &result_;
      detail::Endpoint& end = resolve()->ends[side_];
      ELECTSIM_ASSERT_MSG(end.inbox == nullptr, "a socket attached to an inbox is read through the inbox");
      end.receivers.push_back(entry_);
      if (deadline_) group_.arm_deadline(*deadline_);
    }
    Received<M> await_resume() {
      entry_.unlink();
      if (result_) return std::move(result_);
      detail::Connection<M>* connection = resolve();
      if (connection != nullptr && !connection->received(side_).empty()) {
        result_.status = Received<M>::Status::message;
        result_.message = connection->received(side_).pop_front();
        return std::move(result_);
      }
      bool closed = connection == nullptr || !connection->ends[side_].open || connection->ends[side_].peer_closed;
      result_.status = closed ? Received<M>::Status::closed : Received<M>::Status::timed_out;
      return std::move(result_);
    }

   private:
    detail::Connection<M>* resolve() const {
      return static_cast<detail::Connection<M>*>(network_->connection(index_, generation_));
    }
    Network* network_;
    std::uint32_t index_;
    std::uint32_t generation_;
    std::uint8_t side_;
    WaitGroup group_;
    WaitEntry entry_;
    Received<M> result_;
    std::optional<Instant> deadline_;
  };

  // co_await socket.receive() -> Received<M>: a message, or closed. The socket must be valid.
  ReceiveAwaiter receive() {
    ELECTSIM_ASSERT(valid());
    return ReceiveAwaiter(*this, std::nullopt);
  }
  // co_await socket.receive(timeout) -> Received<M>: a message, closed, or timed out.
  ReceiveAwaiter receive(Duration timeout) {
    ELECTSIM_ASSERT(valid());
    return ReceiveAwaiter(*this, network_->sim().now() + timeout);
  }

 private:
  template <class Part>
  bool sendPart(Part&& part) {
    detail::Connection<M>* connection = resolve();
    if (connection == nullptr || !connection->ends[side_].open) return false;
    network_->send(*connection, side_, std::forward<Part>(part));
    return true;
  }

  detail::Connection<M>* resolve() const {
    if (network_ == nullptr) return nullptr;
    return static_cast<detail::Connection<M>*>(network_->connection(index_, generation_));
  }

  Network* network_ = nullptr;
  std::uint32_t index_ = 0;
  std::uint32_t generation_ = 0;
  std::uint8_t side_ = 0;
};

// A listening port. Destroying it stops accepting; connections already accepted stay open.
template <class M>
class Listener {
  struct State final : detail::ListenerBase {
    State(Network& network, NodeId node, std::uint16_t port)
        : network(network), node(node), port(port), backlog(network.sim(), 1024) {
      message_type = detail::message_type_tag<M>();
    }
    void accepted(std::uint32_t index, std::uint32_t generation) override {
      if (!backlog.push(Socket<M>(network, index, generation, 1))) {
        // A full backlog drops the connection, as an overflowing accept queue does.
      }
    }
    Network& network;
    NodeId node;
    std::uint16_t port;
    Queue<Socket<M>> backlog;
  };

 public:
  Listener() = default;
  Listener(Network& network, NodeId node, std::uint16_t port) : state_(std::make_unique<State>(network, node, port)) {}
  Listener(Listener&&) noexcept = default;
  Listener& operator=(Listener&& other) noexcept {
    stop();
    state_ = std::move(other.state_);
    return *this;
  }
  ~Listener() { stop(); }

  bool listening() const { return state_ != nullptr; }
  detail::ListenerBase* base() const { return state_.get(); }
  // co_await listener.accept() -> Socket<M>
  auto accept() { return state_->backlog.pop(); }

 private:
  void stop() {
    if (state_ == nullptr) return;
    state_->network.unlisten(state_->node, state_->port, state_.get());
    state_.reset();
  }
  std::unique_ptr<State> state_;
};

// ---- template definitions ----

template <class M>
Inbox<M>::~Inbox() {
  if (network_ == nullptr) return;
  for (auto [index, generation, side] : attached_) {
    if (detail::ConnectionBase* connection = network_->connection(index, generation)) {
      if (connection->ends[static_cast<std::size_t>(side)].inbox == this) connection->ends[static_cast<std::size_t>(side)].inbox = nullptr;
    }
  }
}

template <class M>
Listener<M> Network::listen(NodeId node, std::uint16_t port) {
  auto key = std::make_pair(node, port);
  ELECTSIM_ASSERT_MSG(!listeners_.contains(key), "port " + std::to_string(port) + " is already in use on " + sim_.node(node).name());
  Listener<M> listener(*this, node, port);
  listeners_[key] = listener.base();
  return listener;
}

template <class M>
detail::Connection<M>& Network::open_connection(NodeId client, NodeId server) {
  std::uint32_t index;
  if (!free_indexes_.empty()) {
    index = free_indexes_.back();
    free_indexes_.pop_back();
  } else {
    index = static_cast<std::uint32_t>(connections_.size());
    connections_.emplace_back();
    generations_.push_back(0);
  }
  std::uint32_t generation = ++generations_[index];
  auto connection = std::make_unique<detail::Connection<M>>(index, generation, client, server, connection_seed(client, server));
  detail::Connection<M>& reference = *connection;
  connections_[index] = std::move(connection);
  stats_.connections_opened++;
  return reference;
}

template <class M, class Part>
void Network::send(detail::Connection<M>& connection, int side, Part&& part) {
  stats_.messages_sent++;
  const M& message = connection.push(side, sim_.now(), std::forward<Part>(part));
  if (describer_ != nullptr) [[unlikely]] trace_push(connection, side, describer_(sim_, detail::message_type_tag<M>(), &message));
  schedule_delivery(connection, side);
}

inline Duration Network::draw_latency(SmallRng& rng) const {
  return Duration{rng.uniform(latency_draw_)};
}

inline void Network::schedule_delivery(detail::ConnectionBase& connection, int direction) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  // FIFO: never deliver before the previous message on this direction.
  Instant at = std::max(sim_.now() + draw_latency(connection.rng), way.last_delivery);
  way.last_delivery = at;
  if (way.delivery_queued) {
    way.later_deliveries.push_back(at);
    return;
  }
  way.delivery_queued = true;
  way.next_delivery = at;
  sim_.schedule_handler(at, delivery_kind_, connection.index * 2 + static_cast<std::uint32_t>(direction), connection.generation);
}

struct Network::ConnectAttempt {
  bool waiting = true;  // the caller still wants the connection
  std::optional<Promise<std::optional<std::pair<std::uint32_t, std::uint32_t>>>> promise;
  std::function<void(std::uint32_t, std::uint32_t)> accept;  // hands the server side to its listener
};

template <class M>
Task<std::optional<Socket<M>>> Network::connect(NodeId to, std::uint16_t port, Duration timeout) {
  NodeId from = sim_.current_node();
  ELECTSIM_ASSERT_MSG(from != no_node, "connect() must be called from a node's coroutine");
  auto attempt = std::make_shared<ConnectAttempt>();
  attempt->promise.emplace();
  auto outcome = attempt->promise->get_future();
  // The caller's frame may be destroyed (a crash) while the handshake is under way.
  struct Abandon {
    std::shared_ptr<ConnectAttempt> attempt;
    ~Abandon() { attempt->waiting = false; }
  } abandon{attempt};

  SmallRng handshake_rng(connection_seed(from, to) ^ 0x5eedULL);
  Duration there = draw_latency(handshake_rng);
  Duration back = draw_latency(handshake_rng);
  sim_.schedule_callback(sim_.now() + there, no_node, [this, attempt, from, to, port, back] {
    // The SYN arrives, or vanishes into a cut link or a dark machine.
    if (!reachable(from, to) || !sim_.node(to).machine_on()) return;
    auto listener = listeners_.find({to, port});
    bool listening = listener != listeners_.end() && sim_.node(to).up() &&
                     listener->second->message_type == detail::message_type_tag<M>();
    std::optional<std::pair<std::uint32_t, std::uint32_t>> established;
    if (listening) {
      detail::Connection<M>& connection = open_connection<M>(from, to);
      established = std::make_pair(connection.index, connection.generation);
      listener->second->accepted(connection.index, connection.generation);
    }
    sim_.schedule_callback(sim_.now() + back, no_node, [this, attempt, from, to, established] {
      // The SYN-ACK (or RST) comes back, unless the way back is cut.
      if (!reachable(to, from)) {
        if (established) {
          if (auto* connection = this->connection(established->first, established->second)) {
            connection->ends[0].open = false;  // the client never learns of it
            release_if_finished(*connection);
          }
        }
        return;
      }
      if (attempt->waiting && attempt->promise && !attempt->promise->fulfilled()) {
        attempt->promise->set_value(established);
        return;
      }
      if (established) {
        // The caller gave up: its kernel answers the late SYN-ACK with a reset.
        if (auto* connection = this->connection(established->first, established->second)) close_endpoint(*connection, 0);
      }
    });
  });

  auto result = co_await outcome.wait_for(sim_, timeout);
  attempt->waiting = false;
  if (!result.has_value() || !result->has_value()) co_return std::nullopt;  // timed out, or refused
  auto [index, generation] = **result;
  if (connection(index, generation) == nullptr) co_return std::nullopt;
  co_return Socket<M>(*this, index, generation, 0);
}

}  // namespace sim
