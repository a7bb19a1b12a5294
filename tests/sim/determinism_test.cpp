#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <thread>

#include "bench/token_storm.h"
#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::ScriptNode;

// A random engine workload: nodes gossip over connections with random latencies, sleep random
// times, and the harness throws crashes, power-offs, restarts, pauses and partitions at them. Everything is
// derived from the seed; the trace hash summarises the run.
struct Workload {
  std::uint32_t nodes;
  std::vector<std::tuple<int, int, int>> faults;  // (at_ms, kind, node)
};

Task<void> gossip(ScriptNode& self, std::uint32_t nodes) {
  Simulation& sim = self.sim();
  Listener<std::uint64_t> listener = sim.network().listen<std::uint64_t>(self.id(), 1);
  Rng rng = sim.random().stream(self.name() + "/" + std::to_string(self.starts()));
  Scope children(sim, self.id());
  auto serve = [](ScriptNode& node, Listener<std::uint64_t>& listener, Scope& children) -> Task<void> {
    while (true) {
      Socket<std::uint64_t> socket = co_await listener.accept();
      auto reader = [](ScriptNode& node, Socket<std::uint64_t> socket) -> Task<void> {
        while (true) {
          Received<std::uint64_t> received = co_await socket.receive(3s);
          if (!received) co_return;
          node.sim().trace().emit(node.id(), "test.receive", {{"value", *received}});
        }
      };
      children.spawn(reader(node, std::move(socket)));
    }
  };
  children.spawn(serve(self, listener, children));
  while (true) {
    co_await sim.sleep(Duration(rng.uniform(1'000'000, 300'000'000)));
    auto peer = static_cast<NodeId>(rng.pick(nodes));
    if (peer == self.id()) continue;
    auto socket = co_await sim.network().connect<std::uint64_t>(peer, 1, 500ms);
    sim.trace().emit(self.id(), "test.connect", {{"peer", peer}, {"ok", socket.has_value()}});
    if (!socket) continue;
    for (std::int64_t i = rng.uniform(1, 5); i > 0; i--) socket->send(rng.next_u64());
  }
}

std::uint64_t run_workload(std::uint64_t seed, const Workload& workload) {
  Simulation sim(seed);
  sim.network().set_latency(1ms, 30ms);
  std::vector<ScriptNode*> nodes;
  for (std::uint32_t i = 0; i < workload.nodes; i++) {
    nodes.push_back(&sim.add_node<ScriptNode>("n" + std::to_string(i), [count = workload.nodes](ScriptNode& self) {
      return gossip(self, count);
    }));
  }
  for (ScriptNode* node : nodes) node->start();
  for (auto [at_ms, fault_kind, index] : workload.faults) {
    ScriptNode* node = nodes[static_cast<std::size_t>(index) % nodes.size()];
    auto kind = fault_kind;  // clang 14 cannot capture a structured binding
    sim.schedule_callback(epoch + Duration(std::chrono::milliseconds(at_ms)), no_node, [&sim, node, kind] {
      switch (kind % 7) {
        case 0: if (node->up()) node->crash(); break;
        case 6: if (node->up()) node->power_off(); break;
        case 1: if (!node->up()) node->start(); break;
        case 2: node->pause(); break;
        case 3: node->resume(); break;
        case 4: sim.network().isolate(node->id()); break;
        default: sim.network().heal_all(); break;
      }
    });
  }
  sim.run_for(20s);
  return sim.trace().hash() ^ sim.events_processed();
}

Workload sample_workload() {
  return Workload{5, {{1000, 0, 1}, {1500, 2, 2}, {2500, 4, 3}, {4000, 1, 1}, {5000, 3, 2}, {6000, 5, 0}, {7000, 0, 4}}};
}

TEST(Determinism, SameSeedSameTraceHashTwiceInOneProcess) {
  std::uint64_t first = run_workload(99, sample_workload());
  EXPECT_EQ(run_workload(99, sample_workload()), first);
  EXPECT_NE(run_workload(100, sample_workload()), first);
}

TEST(Determinism, SameSeedSameTraceHashInTwoThreadsAtOnce) {
  std::uint64_t alone = run_workload(5, sample_workload());
  std::uint64_t in_thread_a = 0;
  std::uint64_t in_thread_b = 0;
  std::thread a([&] { in_thread_a = run_workload(5, sample_workload()); });
  std::thread b([&] { in_thread_b = run_workload(5, sample_workload()); });
  a.join();
  b.join();
  EXPECT_EQ(in_thread_a, alone);
  EXPECT_EQ(in_thread_b, alone);
}

TEST(Determinism, TokenStormHashIsReproducible) {
  bench::TokenStormConfig config{.nodes = 12, .tokens = 20, .deliveries = 50'000, .seed = 4};
  EXPECT_EQ(bench::run_token_storm(config).trace_hash, bench::run_token_storm(config).trace_hash);
}

RC_GTEST_PROP(Determinism, AnyRandomWorkloadReplaysIdentically, ()) {
  Workload workload;
  workload.nodes = *rc::gen::inRange<std::uint32_t>(2, 7);
  workload.faults = *rc::gen::container<std::vector<std::tuple<int, int, int>>>(
      rc::gen::tuple(rc::gen::inRange(0, 19'000), rc::gen::inRange(0, 7), rc::gen::inRange(0, 7)));
  auto seed = *rc::gen::arbitrary<std::uint64_t>();
  RC_ASSERT(run_workload(seed, workload) == run_workload(seed, workload));
}

}  // namespace
