// Google Benchmark programs for the engine: queue push/pop, coroutine resume, a send/receive round
// trip, and the token storm beside its bare-loop peer (so their ratio comes from one run).
//   ./build/bench/engine_bench --benchmark_format=json
#include <benchmark/benchmark.h>

#include "bench/bare_loop.h"
#include "bench/token_storm.h"
#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/node.h"

namespace {

using namespace std::chrono_literals;

struct QueueEvent {
  std::int64_t at;
  std::uint64_t sequence;
  std::uint32_t target;
  std::uint32_t generation;
};

// Push/pop with a steady population of `range(0)` events at random future times.
void BM_EventQueuePushPop(benchmark::State& state) {
  sim::EventQueue<QueueEvent> queue;
  sim::Rng rng(1);
  std::int64_t now = 0;
  std::uint64_t sequence = 0;
  for (std::int64_t i = 0; i < state.range(0); i++) queue.push({rng.uniform(0, 5'000'000), sequence++, 0, 0});
  for (auto _ : state) {
    QueueEvent event = queue.pop();
    now = event.at;
    queue.push({now + rng.uniform(1'000'000, 5'000'000), sequence++, 0, 0});
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_EventQueuePushPop)->Arg(16)->Arg(1024)->Arg(65536);

class SleeperNode final : public sim::Node {
 public:
  using Node::Node;
  void on_start() override { spawn(sleep_forever()); }

 private:
  sim::Task<void> sleep_forever() {
    while (true) co_await sim().sleep(1ms);
  }
};

// One coroutine sleeping in a loop: each iteration is a timer event and a resume.
void BM_CoroutineResume(benchmark::State& state) {
  sim::Simulation sim(1);
  auto& node = sim.add_node<SleeperNode>("n");
  node.start();
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_CoroutineResume);

class EchoNode final : public sim::Node {
 public:
  EchoNode(sim::Simulation& sim, std::string name, bool server) : Node(sim, std::move(name)), server_(server) {}
  void on_start() override { spawn(server_ ? serve() : ping()); }

 private:
  sim::Task<void> serve() {
    auto listener = sim().network().listen<std::uint64_t>(id(), 1);
    sim::Socket<std::uint64_t> socket = co_await listener.accept();
    while (auto received = co_await socket.receive()) socket.send(*received + 1);
  }
  sim::Task<void> ping() {
    auto socket = co_await sim().network().connect<std::uint64_t>(0, 1, 1s);
    socket->send(0);
    while (auto received = co_await socket->receive()) socket->send(*received + 1);
  }
  bool server_;
};

// A send and a receive on each side: one iteration is one message delivered to a coroutine.
void BM_SendReceiveRound(benchmark::State& state) {
  sim::Simulation sim(1);
  sim.network().set_latency(1ms, 1ms);
  sim.add_node<EchoNode>("server", true).start();
  sim.add_node<EchoNode>("client", false).start();
  sim.run_for(1s);
  for (auto _ : state) sim.step();
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_SendReceiveRound);

void BM_TokenStorm(benchmark::State& state) {
  bench::TokenStormConfig config;
  config.nodes = static_cast<std::uint32_t>(state.range(0));
  config.tokens = static_cast<std::uint32_t>(state.range(1));
  config.deliveries = 5'000'000;
  double rate = 0;
  for (auto _ : state) rate = bench::run_token_storm(config).deliveries_per_second;
  state.counters["deliveries_per_s"] = rate;
}
BENCHMARK(BM_TokenStorm)->Args({100, 100})->Unit(benchmark::kMillisecond)->Iterations(3);

void BM_BareHeapLoop(benchmark::State& state) {
  double rate = 0;
  for (auto _ : state) {
    rate = bench::run_bare_loop(static_cast<std::uint32_t>(state.range(0)), static_cast<std::uint32_t>(state.range(1)), 5'000'000, 1)
               .deliveries_per_second;
  }
  state.counters["deliveries_per_s"] = rate;
}
BENCHMARK(BM_BareHeapLoop)->Args({100, 100})->Unit(benchmark::kMillisecond)->Iterations(3);

}  // namespace

BENCHMARK_MAIN();
