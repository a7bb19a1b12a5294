#include "sim/network.h"

#include <algorithm>

namespace sim {

Network::Network(Simulation& sim)
    : sim_(sim),
      retransmission_events_(*this),
      delivery_kind_(sim.register_handler(this)),
      retransmission_kind_(sim.register_handler(&retransmission_events_)) {}

Network::~Network() {
  // Sockets still alive at teardown must not reach back into freed connections.
  listeners_.clear();
  connections_.clear();
}

void Network::set_latency(Duration min, Duration max) {
  ELECTSIM_ASSERT(min >= Duration::zero());
  ELECTSIM_ASSERT(min <= max);
  latency_min_ = min;
  latency_max_ = max;
  latency_draw_ = SmallRng::Uniform(min.count(), max.count());
}

std::uint64_t Network::connection_seed(NodeId client, NodeId server) {
  // Names, not ids, so adding a node elsewhere does not shift this pair's draws.
  std::uint32_t ordinal = connections_between_[{client, server}]++;
  std::uint64_t seed = derive_seed(sim_.seed(), "network");
  seed = derive_seed(seed, sim_.node(client).name());
  seed = derive_seed(seed, sim_.node(server).name());
  return derive_seed(seed, static_cast<std::uint64_t>(ordinal));
}

void Network::node_added(NodeId node) { reachability_.resize(node + 1); }

void Network::partition(const std::vector<std::vector<NodeId>>& groups) {
  reachability_.partition(groups);
  if (describer_ != nullptr) trace_links();
}
void Network::isolate(NodeId node) {
  reachability_.isolate(node);
  if (describer_ != nullptr) trace_links();
}
void Network::bridge(NodeId bridge_node, const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b) {
  reachability_.bridge(bridge_node, side_a, side_b);
  if (describer_ != nullptr) trace_links();
}
void Network::drop(NodeId from, NodeId to) {
  reachability_.cut(from, to);
  if (describer_ != nullptr) trace_links();
}
void Network::heal_all() {
  reachability_.heal_all();
  if (describer_ != nullptr) trace_links();
  resume_stalled();
}

void Network::trace_push(detail::ConnectionBase& connection, int side, const MessageDescription& what) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(side)];
  std::uint32_t seq = way.traced_pushed++;
  NodeId from = connection.ends[static_cast<std::size_t>(side)].node;
  NodeId to = connection.ends[static_cast<std::size_t>(1 - side)].node;
  sim_.trace().observe(from, "net.send",
                       {{"to", sim_.node(to).name()}, {"connection", connection.index}, {"generation", connection.generation},
                        {"direction", side}, {"seq", seq}, {"category", what.category}, {"heartbeat", what.heartbeat},
                        {"what", what.text}});
}

void Network::trace_take(detail::ConnectionBase& connection, int direction, std::string_view kind, std::string_view reason) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  std::uint32_t seq = way.traced_taken++;
  ELECTSIM_ASSERT(way.traced_taken <= way.traced_pushed);
  NodeId from = connection.ends[static_cast<std::size_t>(direction)].node;
  NodeId to = connection.ends[static_cast<std::size_t>(1 - direction)].node;
  sim_.trace().observe(to, kind,
                       {{"from", sim_.node(from).name()}, {"connection", connection.index}, {"generation", connection.generation},
                        {"direction", direction}, {"seq", seq}, {"reason", reason}});
}

void Network::trace_links() {
  // "a>b,c;d>a": for each node with cut outgoing links, whom it cannot send to. Empty: all healed.
  std::string cut;
  for (NodeId from = 0; from < reachability_.size(); from++) {
    std::string unreachable;
    for (NodeId to = 0; to < reachability_.size(); to++) {
      if (reachable(from, to)) continue;
      unreachable += (unreachable.empty() ? "" : ",") + sim_.node(to).name();
    }
    if (!unreachable.empty()) cut += (cut.empty() ? "" : ";") + sim_.node(from).name() + ">" + unreachable;
  }
  sim_.trace().observe(no_node, "net.links", {{"cut", cut}});
}

void Network::stall(detail::ConnectionBase& connection, int direction) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  ELECTSIM_ASSERT(!way.stalled);
  ELECTSIM_ASSERT(way.held == 0);
  if (connection.in_flight(direction) == 0) return;  // a reset discarded it: nothing to hold
  // The front item is the oldest unacknowledged one (everything before it was delivered): the
  // sender's timer has run since it was sent, and every retransmission so far went into the cut.
  way.retransmission.arm(connection.front_sent(direction));
  way.stalled = true;
  way.held = 1;
  stalled_.emplace_back(connection.index, direction);
}

void Network::give_up_orphan(detail::ConnectionBase& connection, int direction) {
  // The sender's kernel dropped the connection its application had closed (tcp_orphan_retries):
  // what it held is gone, and it has no socket for the peer's next segment, which gets a reset.
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  detail::Endpoint& sender = connection.ends[static_cast<std::size_t>(direction)];
  ELECTSIM_ASSERT(way.stalled);
  ELECTSIM_ASSERT(!sender.open);
  discard(connection, direction, "its closed sender's kernel gave up retransmitting");
  sender.dead = true;
}

void Network::discard(detail::ConnectionBase& connection, int direction, std::string_view reason) {
  while (connection.in_flight(direction) > 0) {
    if (describer_ != nullptr) [[unlikely]] trace_take(connection, direction, "net.drop", reason);
    connection.drop_front(direction);
  }
  // Deliveries still queued find nothing; a retransmission still queued finds the way unstalled.
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  way.held = 0;
  way.stalled = false;
}

bool Network::way_open(const detail::ConnectionBase& connection, int direction) const {
  const detail::Endpoint& sender = connection.ends[static_cast<std::size_t>(direction)];
  const detail::Endpoint& receiver = connection.ends[static_cast<std::size_t>(1 - direction)];
  // A sender whose machine lost power retransmits nothing: its kernel's send queue is gone.
  if (sender.dead) return false;
  bool dark = receiver.dead && !sim_.node(receiver.node).machine_on();
  return reachable(sender.node, receiver.node) && !dark;
}

void Network::queue_retransmission(detail::ConnectionBase& connection, int direction) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  ELECTSIM_ASSERT(way.stalled);
  ELECTSIM_ASSERT(!way.retransmission_queued);
  Instant at = way.retransmission.advance_to(sim_.now());
  way.retransmission_queued = true;
  sim_.schedule_handler(at, retransmission_kind_, connection.index * 2 + static_cast<std::uint32_t>(direction), connection.generation);
}

void Network::retransmit(std::uint32_t target, std::uint32_t generation) {
  detail::ConnectionBase* connection = this->connection(target / 2, generation);
  if (connection == nullptr) return;  // both ends closed since: nothing is sent again
  int direction = static_cast<int>(target % 2);
  detail::Direction& way = connection->directions[static_cast<std::size_t>(direction)];
  ELECTSIM_ASSERT(way.retransmission_queued);
  way.retransmission_queued = false;
  if (!way.stalled) return;  // a reset discarded what was held (its sender's machine had lost power)
  // Cut again (or the sender's machine off) before the timer fired: this retransmission is lost as
  // well; the timer keeps doubling, and the next heal queues the next one.
  if (!way_open(*connection, direction)) return;
  if (way.retransmission.next() != sim_.now()) {
    // Held again after a reset since this was queued: its timer was re-armed.
    queue_retransmission(*connection, direction);
    return;
  }
  detail::Endpoint& sender = connection->ends[static_cast<std::size_t>(direction)];
  if (!sender.open && way.retransmission.orphan_given_up(sim_.now())) {
    give_up_orphan(*connection, direction);
    return;
  }
  // The retransmission gets through: the receiver acknowledges it and the sender's window opens
  // again, so everything held goes, in order, each with its latency from now.
  stats_.retransmissions++;
  std::uint32_t held = way.held;
  way.held = 0;
  way.stalled = false;
  for (std::uint32_t i = 0; i < held; i++) schedule_delivery(*connection, direction);
}

// Inlined into its one caller, the delivery handler.
[[gnu::always_inline]] inline void Network::deliver_due(detail::ConnectionBase& connection, int direction) {
  detail::Direction& way = connection.directions[static_cast<std::size_t>(direction)];
  detail::Endpoint& sender = connection.ends[static_cast<std::size_t>(direction)];
  detail::Endpoint& receiver = connection.ends[static_cast<std::size_t>(1 - direction)];

  if (way.stalled) {
    // Behind held data, also once the link has healed: the stream is FIFO, and a sender whose
    // timer fired into the cut has a congestion window of one segment until it is acknowledged.
    way.held++;
    return;
  }
  if (!reachable(sender.node, receiver.node)) {
    stall(connection, direction);  // sent again by the retransmission timer, if still wanted
    return;
  }
  if (receiver.dead) {
    if (!sim_.node(receiver.node).machine_on()) {
      stall(connection, direction);  // a dark machine: silence
      return;
    }
    reset_connection(connection, 1 - direction);  // the machine is back: its kernel resets
    return;
  }
  if (!receiver.open) {
    if (connection.in_flight(direction) == 0) return;
    if (describer_ != nullptr) [[unlikely]] trace_take(connection, direction, "net.drop", "the receiver had closed its end");
    connection.drop_front(direction);
    stats_.messages_dropped++;
    release_if_finished(connection);
    return;
  }
  // A reset may have discarded what was in flight (the event then finds nothing). Delivery may
  // resume the receiver, after which `connection` may be gone: trace it first.
  if (describer_ != nullptr && connection.in_flight(direction) > 0) [[unlikely]] trace_take(connection, direction, "net.deliver", "");
  if (connection.deliver_front(direction) == detail::ConnectionBase::Delivered::message) stats_.messages_delivered++;
}

void Network::handle_event(std::uint32_t target, std::uint32_t generation) {
  // The direction's front delivery, and any others due at this instant, one after another; the
  // first later one goes into the event queue before anything here can close or free the
  // connection (that event then finds the generation changed).
  const int direction = static_cast<int>(target % 2);
  while (true) {
    detail::ConnectionBase* connection = this->connection(target / 2, generation);
    if (connection == nullptr) return;  // both ends closed since: nobody is listening
    detail::Direction& way = connection->directions[static_cast<std::size_t>(direction)];
    ELECTSIM_ASSERT(way.delivery_queued && way.next_delivery == sim_.now());
    bool another_now = false;
    if (way.later_deliveries.empty()) {
      way.delivery_queued = false;
    } else {
      way.next_delivery = way.later_deliveries.pop_front();
      another_now = way.next_delivery == sim_.now();
      if (!another_now) sim_.schedule_handler(way.next_delivery, delivery_kind_, target, generation);
    }
    deliver_due(*connection, direction);
    if (!another_now) return;
  }
}

void Network::resume_stalled() {
  // In (index, direction) order, so retransmissions due at one instant are queued in a fixed order.
  // An entry may be stale (delivered since, its index reused) or twice there (stalled again).
  std::sort(stalled_.begin(), stalled_.end());
  stalled_.erase(std::unique(stalled_.begin(), stalled_.end()), stalled_.end());
  std::size_t kept = 0;
  for (auto [index, direction] : stalled_) {
    detail::ConnectionBase* connection = index < connections_.size() ? connections_[index].get() : nullptr;
    if (connection == nullptr) continue;
    detail::Direction& way = connection->directions[static_cast<std::size_t>(direction)];
    if (!way.stalled) continue;
    stalled_[kept++] = {index, direction};
    // Open again: the held data goes at the sender's next retransmission, not now.
    if (!way.retransmission_queued && way_open(*connection, direction)) queue_retransmission(*connection, direction);
  }
  stalled_.resize(kept);
}

std::vector<Network::QueuedRetransmission> Network::queued_retransmissions() const {
  std::vector<QueuedRetransmission> queued;
  for (auto [index, direction] : stalled_) {
    const detail::ConnectionBase* connection = index < connections_.size() ? connections_[index].get() : nullptr;
    if (connection == nullptr) continue;
    const detail::Direction& way = connection->directions[static_cast<std::size_t>(direction)];
    if (!way.stalled || !way.retransmission_queued) continue;
    queued.push_back({connection->ends[static_cast<std::size_t>(direction)].node, connection->ends[static_cast<std::size_t>(1 - direction)].node,
                      way.retransmission.next()});
  }
  return queued;
}

void Network::close_endpoint(detail::ConnectionBase& connection, int side) {
  detail::Endpoint& end = connection.ends[static_cast<std::size_t>(side)];
  if (!end.open) return;
  end.open = false;
  end.inbox = nullptr;
  end.receivers.wake_all();  // a blocked read on a socket being closed returns "closed"
  if (sim_.tearing_down()) return;
  const Node& owner = sim_.node(end.node);
  if (owner.closing_silently()) {
    end.dead = true;  // power loss: no FIN, peers hear nothing
  } else {
    if (describer_ != nullptr) [[unlikely]] trace_push(connection, side, MessageDescription{"tcp", "FIN (connection closed)", false});
    connection.push_close(side, sim_.now());
    schedule_delivery(connection, side);
  }
  release_if_finished(connection);
}

void Network::reset_connection(detail::ConnectionBase& connection, int dead_side) {
  // Everything travelling towards the dead side is discarded; the live side reads "closed".
  int towards_dead = 1 - dead_side;
  // The delivery that found the new kernel came through: this way was not stalled.
  ELECTSIM_ASSERT(!connection.directions[static_cast<std::size_t>(towards_dead)].stalled);
  discard(connection, towards_dead, "reset by the restarted machine");
  // What the old kernel held for a retransmission died with it; the reset must not queue behind it.
  if (connection.directions[static_cast<std::size_t>(dead_side)].stalled) discard(connection, dead_side, "its sender's machine lost power");
  connection.ends[static_cast<std::size_t>(dead_side)].dead = false;
  connection.ends[static_cast<std::size_t>(dead_side)].open = false;
  if (describer_ != nullptr) [[unlikely]] trace_push(connection, dead_side, MessageDescription{"tcp", "RST (connection reset)", false});
  connection.push_close(dead_side, sim_.now());
  schedule_delivery(connection, dead_side);
}

void Network::release_if_finished(detail::ConnectionBase& connection) {
  const detail::Endpoint& a = connection.ends[0];
  const detail::Endpoint& b = connection.ends[1];
  bool a_done = !a.open && !a.dead;
  bool b_done = !b.open && !b.dead;
  if (!a_done || !b_done) return;
  // Both applications have closed: nothing still in flight can matter to anyone, and its delivery
  // events find the generation changed.
  std::uint32_t index = connection.index;
  connections_[index].reset();
  free_indexes_.push_back(index);
}

void Network::node_started(NodeId node) {
  (void)node;
  // Connections held towards this machine's old incarnation now meet its new kernel: resets.
  resume_stalled();
}

void Network::node_stopped(NodeId node, bool silent) {
  // Listeners are owned by the node's frames and state, so they are gone; anything left was leaked.
  for (auto it = listeners_.begin(); it != listeners_.end();) {
    it = it->first.first == node ? listeners_.erase(it) : std::next(it);
  }
  // Sockets the node's code did not close (held in state that outlives a crash) are closed by its
  // operating system, or fall silent with its machine.
  for (std::size_t index = 0; index < connections_.size(); index++) {
    detail::ConnectionBase* connection = connections_[index].get();
    if (connection == nullptr) continue;
    for (int side = 0; side < 2 && connections_[index] != nullptr; side++) {
      detail::Endpoint& end = connection->ends[static_cast<std::size_t>(side)];
      if (end.node != node || !end.open) continue;
      if (silent) {
        end.open = false;
        end.dead = true;
        end.receivers.wake_all();
      } else {
        close_endpoint(*connection, side);
      }
    }
  }
}

void Network::unlisten(NodeId node, std::uint16_t port, detail::ListenerBase* listener) {
  auto it = listeners_.find({node, port});
  if (it != listeners_.end() && it->second == listener) listeners_.erase(it);
}

std::uint64_t Network::state_digest() const {
  // A sum over connections: which slot a connection got, and so their order, says nothing about the
  // state; node ids do.
  std::uint64_t sum = 0;
  for (const auto& connection : connections_) {
    if (connection == nullptr) continue;
    if (!connection->ends[0].open && !connection->ends[1].open && connection->in_flight(0) == 0 && connection->in_flight(1) == 0) continue;
    std::uint64_t one = hash_fold(0x636f6e6e, (std::uint64_t{connection->ends[0].node} << 32) | connection->ends[1].node);
    one = hash_fold(one, (connection->ends[0].open ? 1u : 0u) | (connection->ends[1].open ? 2u : 0u));
    one = hash_fold(one, connection->state_digest(0));
    one = hash_fold(one, connection->state_digest(1));
    sum += mix64(one);
  }
  return hash_fold(hash_fold(0x6e657477, sum), reachability_.fully_connected() ? 1 : 0);
}

}  // namespace sim
