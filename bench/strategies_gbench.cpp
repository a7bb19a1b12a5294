// Google Benchmark program for the sharding strategies: one call of each strategy at 100 instances
// x 10000 items, the re-shard a leader makes when nothing changed (sticky gets its own previous
// result, the others ignore it).
//   ./build/bench/strategies_bench --benchmark_format=json
#include <benchmark/benchmark.h>

#include <string>

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace {

constexpr int bench_instances = 100;
constexpr int bench_items = 10'000;

std::vector<elasticjob::JobInstance> instance_list() {
  std::vector<elasticjob::JobInstance> list;
  for (int k = 0; k < bench_instances; k++) list.emplace_back("10.0.0." + std::to_string(k + 1) + "@-@" + std::to_string(4000 + k));
  return list;
}

void BM_Sharding(benchmark::State& state, const elasticjob::JobShardingStrategy* strategy) {
  const std::vector<elasticjob::JobInstance> list = instance_list();
  const std::string job = "order-sync";
  const elasticjob::ShardingResult previous = strategy->sharding(list, job, bench_items);
  for (auto _ : state) {
    elasticjob::ShardingResult result = strategy->sharding(list, job, bench_items, &previous);
    benchmark::DoNotOptimize(result.data());
  }
  state.SetItemsProcessed(state.iterations() * bench_items);  // items assigned
  state.counters["instances"] = bench_instances;
  state.counters["items"] = bench_items;
}

}  // namespace

int main(int argc, char** argv) {
  for (const elasticjob::JobShardingStrategy* strategy : elasticjob::allStrategies()) {
    benchmark::RegisterBenchmark(("BM_Sharding/" + std::string(strategy->name())).c_str(), BM_Sharding, strategy)
        ->Unit(benchmark::kMicrosecond);
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
