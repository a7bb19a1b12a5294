// Google Benchmark programs for the models and whole runs (bench/README.md):
//   - the ZooKeeper data tree: create+delete beside N siblings, getChildren of N children, and the
//     heap bytes one znode costs;
//   - elections: a whole ensemble of 3, 5 or 7 servers from start until every server follows or
//     leads (FastLeaderElection, then Zab's discovery and synchronisation);
//   - the flagship scenario (scenarios/flagship-1h.yaml: one simulated hour of ElasticJob on
//     ZooKeeper) as a multiple of real time, with its heap growth per instance;
//   - exploration of 60-s ElasticJob runs, in runs per second on one core.
//   ./build/bench/model_bench --benchmark_format=json
// Figures are read from the JSON counters, never asserted: machines are noisy.
#include <benchmark/benchmark.h>

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/explore.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "model/zk/server/DataTree.h"
#include "sim/frame_pool.h"

namespace {

using namespace std::chrono_literals;

std::string child_path(std::int64_t index) { return "/jobs/job/sharding/" + std::to_string(index); }

zk::DataTree tree_with_children(std::int64_t children) {
  zk::DataTree tree;
  zk::Zxid zxid = 1;
  for (const char* path : {"/jobs", "/jobs/job", "/jobs/job/sharding"}) tree.createNode(path, "", 0, -1, zxid++, 0, nullptr, nullptr);
  for (std::int64_t index = 0; index < children; index++) tree.createNode(child_path(index), "", 0, -1, zxid++, 0, nullptr, nullptr);
  return tree;
}

// One create and one delete of a node among `range(0)` siblings: two committed txns applied.
void BM_DataTreeCreateDelete(benchmark::State& state) {
  zk::DataTree tree = tree_with_children(state.range(0));
  zk::Zxid zxid = 1'000'000;
  const std::string path = "/jobs/job/sharding/new";
  for (auto _ : state) {
    benchmark::DoNotOptimize(tree.createNode(path, "10.0.0.1@-@1", 0, -1, zxid++, 0, nullptr, nullptr));
    benchmark::DoNotOptimize(tree.deleteNode(path, zxid++, nullptr));
  }
  state.SetItemsProcessed(2 * state.iterations());
}
BENCHMARK(BM_DataTreeCreateDelete)->Arg(10)->Arg(1000)->Arg(100000);

// getChildren of a node with `range(0)` children (the list ElasticJob reads for every resharding).
void BM_DataTreeGetChildren(benchmark::State& state) {
  zk::DataTree tree = tree_with_children(state.range(0));
  std::vector<std::string> children;
  for (auto _ : state) {
    children.clear();
    benchmark::DoNotOptimize(tree.getChildren("/jobs/job/sharding", std::nullopt, &children, nullptr));
  }
  state.SetItemsProcessed(state.iterations());
}
BENCHMARK(BM_DataTreeGetChildren)->Arg(10)->Arg(1000)->Arg(10000);

// Heap bytes per znode (path, stat, data of 12 bytes, the parent's child entry): counted by the
// allocation counter of sim/frame_pool.cpp over 100,000 nodes.
void BM_DataTreeBytesPerZnode(benchmark::State& state) {
  constexpr std::int64_t nodes = 100'000;
  double bytes_per_znode = 0;
  for (auto _ : state) {
    std::int64_t before = sim::memory_in_use_bytes();
    zk::DataTree tree = tree_with_children(nodes);
    bytes_per_znode = static_cast<double>(sim::memory_in_use_bytes() - before) / nodes;
    benchmark::DoNotOptimize(tree.nodeCount());
  }
  state.counters["bytes_per_znode"] = bytes_per_znode;
  state.counters["measured"] = sim::memory_measure() == sim::MemoryMeasure::this_thread ? 1 : 0;
}
BENCHMARK(BM_DataTreeBytesPerZnode)->Iterations(1)->Unit(benchmark::kMillisecond);

harness::Scenario election_scenario(int servers) {
  std::string text = "name: election\nrecipe: none\nduration: 2s\nzookeeper: {servers: " + std::to_string(servers) +
                     "}\n";
  return harness::parse_scenario_text(text, "<election>");
}

// A whole ensemble elects and synchronises from a cold start (2 simulated seconds, the rest idle
// pings): one iteration is one run with a new seed.
void BM_EnsembleElection(benchmark::State& state) {
  harness::Scenario scenario = election_scenario(static_cast<int>(state.range(0)));
  harness::RunOptions options;
  options.timeline = false;
  std::uint64_t seed = 1;
  std::uint64_t events = 0;
  for (auto _ : state) {
    options.seed = seed++;
    harness::RunResult result = harness::runScenario(scenario, options);
    events += result.events;
  }
  state.SetItemsProcessed(state.iterations());
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
}
BENCHMARK(BM_EnsembleElection)->Arg(3)->Arg(5)->Arg(7)->Unit(benchmark::kMicrosecond);

// The flagship: one simulated hour. x_real_time is simulated seconds per wall second.
void BM_Flagship1h(benchmark::State& state) {
  harness::Scenario scenario = harness::parse_scenario_file(ELECTSIM_FLAGSHIP_SCENARIO);
  harness::RunOptions options;
  options.timeline = false;
  double simulated = 0;
  double wall = 0;
  std::uint64_t events = 0;
  std::int64_t heap_growth = 0;
  for (auto _ : state) {
    std::int64_t before = sim::memory_in_use_bytes();
    harness::RunResult result = harness::runScenario(scenario, options);
    heap_growth = std::max<std::int64_t>(heap_growth, sim::memory_in_use_bytes() - before);
    if (!result.expectations_met) state.SkipWithError("the flagship's expectations were not met");
    simulated += result.sim_seconds;
    wall += result.wall_seconds;
    events += result.events;
  }
  state.counters["x_real_time"] = simulated / wall;
  state.counters["events_per_s"] = static_cast<double>(events) / wall;
  state.counters["events_per_run"] = static_cast<double>(events) / static_cast<double>(state.iterations());
  // What the run still holds at its end (freed by then: nothing; this is the residue, an upper bound
  // on leaks, not the peak).
  state.counters["heap_residue_bytes"] = static_cast<double>(heap_growth);
}
BENCHMARK(BM_Flagship1h)->Iterations(2)->Unit(benchmark::kMillisecond);

// Heap held by a running simulation, sampled 1 ns before its end (everything built and in steady
// state), minus what it held before: the bytes of a whole run of `scenario`.
std::int64_t heap_at_end(const harness::Scenario& scenario) {
  std::int64_t before = sim::memory_in_use_bytes();
  std::int64_t at_end = before;
  harness::RunOptions options;
  options.timeline = false;
  options.test_hook = [&at_end, &scenario](sim::Simulation& sim) {
    sim.schedule_callback(sim::epoch + scenario.duration - std::chrono::nanoseconds(1), sim::no_node,
                          [&at_end] { at_end = sim::memory_in_use_bytes(); });
  };
  harness::runScenario(scenario, options);
  return at_end - before;
}

// Bytes per ZooKeeper session: writers (one session each, writing a node every 100 ms) on three
// servers, 100 writers against none.
void BM_BytesPerSession(benchmark::State& state) {
  auto scenario = [](int writers) {
    return harness::parse_scenario_text("name: sessions\nrecipe: none\nduration: 10s\nclients: {writers: " + std::to_string(writers) + "}\n",
                                        "<sessions>");
  };
  double per_session = 0;
  for (auto _ : state) per_session = static_cast<double>(heap_at_end(scenario(100)) - heap_at_end(scenario(0))) / 100;
  state.counters["bytes_per_session"] = per_session;
}
BENCHMARK(BM_BytesPerSession)->Iterations(1)->Unit(benchmark::kMillisecond);

// Bytes per simulated ElasticJob instance (its process, Curator client and session, CuratorCache of
// the job's subtree, listeners, Quartz, executor): `range(0)` instances against 10, one job of
// `range(1)` items, 40 s.
void BM_BytesPerInstance(benchmark::State& state) {
  auto scenario = [&state](std::int64_t instances) {
    return harness::parse_scenario_text("name: instances\nrecipe: elasticjob\nduration: 40s\ninstances: {count: " + std::to_string(instances) +
                                            "}\njobs:\n  - {name: job, sharding_total_count: " + std::to_string(state.range(1)) +
                                            ", strategy: average, fire_interval: 10s, execution_time: {min: 10ms, max: 100ms}}\n",
                                        "<instances>");
  };
  double per_instance = 0;
  double total = 0;
  for (auto _ : state) {
    std::int64_t many = heap_at_end(scenario(state.range(0)));
    per_instance = static_cast<double>(many - heap_at_end(scenario(10))) / static_cast<double>(state.range(0) - 10);
    total = static_cast<double>(many);
  }
  state.counters["bytes_per_instance"] = per_instance;
  state.counters["run_bytes"] = total;
}
BENCHMARK(BM_BytesPerInstance)->Args({100, 100})->Args({100, 1000})->Iterations(1)->Unit(benchmark::kMillisecond);

// Recovery after an instance crash, per sharding strategy (the flagship's deployment: three servers,
// five instances, ten items every second, 10-s sessions): the time from the crash of i1 at 60 s to
// the first fire at which every item runs on a live instance again, and the items that changed owner
// in the resharding. The crash is only seen when ZooKeeper expires i1's session, so most of the time
// is the session timeout; the strategies differ in what moves.
class RecoveryProbe final : public sim::TraceSink {
 public:
  RecoveryProbe(sim::Instant crash, int items) : crash_(crash), items_(items) {}
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind == "node.crash") crashed_.insert(event.node);
    if (event.kind == "job.sharding") {
      std::string assignment(event.text("assignment"));
      if (event.time < crash_) before_ = assignment;
      else if (after_.empty()) after_ = assignment;
    }
    if (event.kind != "job.exec.start" || recovered_ || event.time < crash_) return;
    std::int64_t fire = event.integer("fire");
    if (sim::epoch + std::chrono::nanoseconds(fire) <= crash_) return;
    if (crashed_.contains(event.node)) return;
    std::set<std::int64_t>& items = fires_[fire];
    items.insert(event.integer("item"));
    if (static_cast<int>(items.size()) == items_) recovered_ = sim::epoch + std::chrono::nanoseconds(fire);
  }
  std::optional<sim::Instant> recovered() const { return recovered_; }
  // The least any strategy must move: the items the crashed instance owned (i1 is 10.0.0.1@-@1).
  int ownedByCrashed() const {
    int owned = 0;
    for (const auto& [item, owner] : owners(before_)) owned += owner == "10.0.0.1@-@1" ? 1 : 0;
    return owned;
  }
  // Items whose owner differs between the last assignment before the crash and the first after it,
  // from job.sharding's "id:[0,1];id:[2]".
  int moved() const {
    std::map<int, std::string> before = owners(before_), after = owners(after_);
    int moved = 0;
    for (const auto& [item, owner] : after) moved += before.contains(item) && before.at(item) != owner ? 1 : 0;
    return moved;
  }

 private:
  static std::map<int, std::string> owners(const std::string& assignment) {
    std::map<int, std::string> result;
    std::size_t at = 0;
    while (at < assignment.size()) {
      std::size_t colon = assignment.find(":[", at);
      std::size_t close = assignment.find(']', colon);
      if (colon == std::string::npos || close == std::string::npos) break;
      std::string owner = assignment.substr(at, colon - at);
      std::string list = assignment.substr(colon + 2, close - colon - 2);
      for (std::size_t start = 0; start < list.size();) {
        std::size_t comma = list.find(',', start);
        if (comma == std::string::npos) comma = list.size();
        result[std::stoi(list.substr(start, comma - start))] = owner;
        start = comma + 1;
      }
      at = close + 2;  // past "];"
    }
    return result;
  }
  sim::Instant crash_;
  int items_;
  std::set<sim::NodeId> crashed_;
  std::map<std::int64_t, std::set<std::int64_t>> fires_;
  std::optional<sim::Instant> recovered_;
  std::string before_, after_;
};

const char* const recovery_strategies[] = {"average", "odevity", "rotate", "consistent-hash", "rendezvous", "sticky"};

void BM_RecoveryAfterInstanceCrash(benchmark::State& state) {
  const std::string strategy = recovery_strategies[state.range(0)];
  state.SetLabel(strategy);
  harness::Scenario scenario = harness::parse_scenario_text(
      "name: recovery\nrecipe: elasticjob\nduration: 120s\nzookeeper: {servers: 3, tick_time: 2s}\nclients: {session_timeout: 10s}\n"
      "instances: {count: 5}\njobs:\n  - {name: flagship-job, sharding_total_count: 10, strategy: " + strategy +
          ", fire_interval: 1s, execution_time: {min: 10ms, max: 100ms}}\nfaults:\n  - {at: 60s, crash: i1}\n",
      "<recovery>");
  double seconds = 0;
  double moved = 0;
  double min_moved = 0;
  std::uint64_t seed = 1;
  for (auto _ : state) {
    RecoveryProbe probe(sim::epoch + 60s, 10);
    harness::RunOptions options;
    options.timeline = false;
    options.seed = seed++;
    options.sinks = {&probe};
    harness::runScenario(scenario, options);
    if (!probe.recovered()) {
      state.SkipWithError("no full coverage after the crash");
      break;
    }
    seconds += std::chrono::duration<double>(*probe.recovered() - (sim::epoch + 60s)).count();
    moved += probe.moved();
    min_moved += probe.ownedByCrashed();
  }
  state.counters["min_possible_moved"] = min_moved / static_cast<double>(state.iterations());
  state.counters["recovery_s"] = seconds / static_cast<double>(state.iterations());
  state.counters["items_moved"] = moved / static_cast<double>(state.iterations());
}
BENCHMARK(BM_RecoveryAfterInstanceCrash)->DenseRange(0, 5)->Iterations(5)->Unit(benchmark::kMillisecond);

// Exploration of 60-s ElasticJob runs on one core (explore spreads runs over every core; the
// figure on a machine is this times its cores, minus contention).
void BM_ExploreElasticJob60s(benchmark::State& state) {
  harness::ExploreOptions options;
  options.swarm.recipe = harness::Recipe::elasticjob;
  options.swarm.duration = 60s;
  options.out_dir = "";
  std::uint64_t seed = 1;
  for (auto _ : state) benchmark::DoNotOptimize(harness::explore_one(options, seed++));
  state.SetItemsProcessed(state.iterations());  // items_per_second = runs per second per core
}
BENCHMARK(BM_ExploreElasticJob60s)->Iterations(100)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
