#include "bench/token_storm.h"

#include <algorithm>
#include <stdexcept>

#include <chrono>
#include <vector>

#include "sim/network.h"
#include "sim/node.h"

namespace bench {

namespace {

using namespace std::chrono_literals;

constexpr std::uint16_t storm_port = 7000;

struct Token {
  std::uint32_t id;
  std::uint32_t hops;
};

struct Storm {
  std::uint64_t deliveries = 0;
  std::uint64_t deliveries_max = 0;
};

class StormNode final : public sim::Node {
 public:
  StormNode(sim::Simulation& sim, std::string name, Storm& storm, std::uint32_t nodes)
      : Node(sim, std::move(name)), storm_(storm), rng_(sim.random().stream(this->name())), inbox_(sim), peers_(nodes) {}

  // Connects to every node with a larger id; accepts from every smaller one. One socket per pair,
  // every socket attached to the node's inbox, read by one coroutine.
  void on_start() override {
    listener_ = sim().network().listen<Token>(id(), storm_port);
    spawn(accept_peers());
    spawn(connect_peers());
    spawn(receive_tokens());
  }

  void inject(std::uint32_t token_id) { forward(Token{token_id, 0}); }

  bool fully_connected() const {
    for (sim::NodeId peer = 0; peer < peers_.size(); peer++) {
      if (peer != id() && !peers_[peer].valid()) return false;
    }
    return true;
  }

 private:
  sim::Task<void> accept_peers() {
    while (true) {
      sim::Socket<Token> socket = co_await listener_.accept();
      sim::NodeId peer = socket.peer();
      socket.attach(inbox_);
      peers_[peer] = std::move(socket);
    }
  }

  sim::Task<void> connect_peers() {
    for (sim::NodeId peer = id() + 1; peer < peers_.size(); peer++) {
      auto socket = co_await sim().network().connect<Token>(peer, storm_port, 1s);
      ELECTSIM_ASSERT(socket.has_value());
      socket->attach(inbox_);
      peers_[peer] = std::move(*socket);
    }
  }

  sim::Task<void> receive_tokens() {
    while (true) {
      sim::Envelope<Token> envelope = co_await inbox_.receive();
      ELECTSIM_ASSERT(!envelope.closed());
      storm_.deliveries++;
      // The loop stops after this event; the token keeps circulating for the next phase.
      if (storm_.deliveries >= storm_.deliveries_max) sim().request_stop();
      envelope.message->hops++;
      forward(*envelope.message);
    }
  }

  void forward(Token token) {
    // A pseudo-random other node.
    sim::NodeId target = rng_.pick(static_cast<std::uint32_t>(peers_.size()) - 1);
    if (target >= id()) target++;
    bool sent = peers_[target].send(token);
    ELECTSIM_ASSERT(sent);
  }

  Storm& storm_;
  sim::Rng rng_;
  sim::Inbox<Token> inbox_;
  sim::Listener<Token> listener_;
  std::vector<sim::Socket<Token>> peers_;
};

}  // namespace

TokenStormResult run_token_storm(const TokenStormConfig& config) {
  ELECTSIM_ASSERT(config.nodes >= 2);
  ELECTSIM_ASSERT(config.tokens >= 1);
  Storm storm;
  storm.deliveries_max = config.deliveries;
  sim::Simulation sim(config.seed);
  sim.network().set_latency(1ms, 1ms);  // constant latency, as in the SimGrid comparison
  std::vector<StormNode*> nodes;
  for (std::uint32_t i = 0; i < config.nodes; i++) {
    nodes.push_back(&sim.add_node<StormNode>("n" + std::to_string(i), storm, config.nodes));
  }
  for (StormNode* node : nodes) node->start();
  // Build the mesh: n·(n-1)/2 connections, each a handshake of a few latencies. A big mesh takes more
  // than the 1 s a small one does (1,000 nodes once tripped an assertion here); it gets up to 60 s.
  auto connected = [&] { return std::all_of(nodes.begin(), nodes.end(), [](const StormNode* node) { return node->fully_connected(); }); };
  for (int second = 0; second < 60 && (second == 0 || !connected()); second++) sim.run_for(1s);
  if (!connected()) {
    throw std::runtime_error("the mesh of " + std::to_string(config.nodes) + " nodes did not connect within 60 simulated seconds");
  }

  for (std::uint32_t token = 0; token < config.tokens; token++) nodes[token % config.nodes]->inject(token);
  // Warm up: let rings and the queue reach their steady-state sizes before measuring. Every one of
  // the n·(n-1) directions must have carried a token (a coupon collector: about d·ln d deliveries).
  std::uint64_t directions = static_cast<std::uint64_t>(config.nodes) * (config.nodes - 1);
  std::uint64_t warm_up = std::min<std::uint64_t>(config.deliveries / 2, std::max<std::uint64_t>(200'000, 20 * directions));
  storm.deliveries_max = warm_up;
  if (warm_up > 0) sim.run_until(sim::instant_max);
  storm.deliveries_max = config.deliveries;

  std::uint64_t events_before = sim.events_processed();
  std::uint64_t deliveries_before = storm.deliveries;
  std::uint64_t allocations_before = sim::heap_allocations_on_this_thread();
  auto wall_start = std::chrono::steady_clock::now();  // timing the harness, not the simulation
  sim.run_until(sim::instant_max);
  auto wall_end = std::chrono::steady_clock::now();

  TokenStormResult result;
  result.steady_state_allocations = sim::heap_allocations_on_this_thread() - allocations_before;
  result.deliveries = storm.deliveries;
  result.events = sim.events_processed() - events_before;
  result.wall_seconds = std::chrono::duration<double>(wall_end - wall_start).count();
  std::uint64_t measured = storm.deliveries - deliveries_before;
  result.deliveries_per_second = result.wall_seconds > 0 ? static_cast<double>(measured) / result.wall_seconds : 0;
  result.trace_hash = sim.trace().hash();
  return result;
}

}  // namespace bench
