#include "bench/strategy_bench.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include "model/elasticjob/strategies/JavaString.h"
#include "model/elasticjob/strategies/JobShardingStrategy.h"
#include "sim/assert.h"

namespace bench {

namespace {

using elasticjob::JobInstance;
using elasticjob::JobShardingStrategy;
using elasticjob::ShardingResult;

constexpr std::uint32_t instances_max = 100'000;
constexpr std::uint32_t items_max = 10'000'000;

// Instance k of the list: "10.0.{k/250}.{k%250+1}@-@{4000+k}", an ElasticJob-shaped id.
JobInstance bench_instance(std::uint32_t k) {
  return JobInstance("10.0." + std::to_string(k / 250) + "." + std::to_string(k % 250 + 1) + "@-@" + std::to_string(4000 + k));
}

std::vector<JobInstance> bench_instances(std::uint32_t count) {
  std::vector<JobInstance> result;
  result.reserve(count + 1);
  for (std::uint32_t k = 0; k < count; k++) result.push_back(bench_instance(k));
  return result;
}

// Owner of each item as an index into `universe` (every id that appears in either result).
std::vector<std::uint32_t> owners_of(const ShardingResult& result, const std::map<std::string_view, std::uint32_t>& universe,
                                     std::uint32_t items) {
  constexpr std::uint32_t no_owner = std::numeric_limits<std::uint32_t>::max();
  std::vector<std::uint32_t> owners(items, no_owner);
  for (const elasticjob::InstanceItems& entry : result) {
    const std::uint32_t index = universe.at(entry.instance.jobInstanceId);
    for (int item : entry.items) owners[static_cast<std::size_t>(item)] = index;
  }
  ELECTSIM_ASSERT(std::find(owners.begin(), owners.end(), no_owner) == owners.end());
  return owners;
}

std::uint32_t moved_between(const ShardingResult& before, const ShardingResult& after, const std::vector<JobInstance>& universe_list,
                            std::uint32_t items) {
  std::map<std::string_view, std::uint32_t> universe;
  for (std::uint32_t index = 0; index < universe_list.size(); index++) universe.emplace(universe_list[index].jobInstanceId, index);
  const std::vector<std::uint32_t> owners_before = owners_of(before, universe, items);
  const std::vector<std::uint32_t> owners_after = owners_of(after, universe, items);
  std::uint32_t moved = 0;
  for (std::uint32_t item = 0; item < items; item++) moved += owners_before[item] != owners_after[item] ? 1 : 0;
  return moved;
}

void measure_balance(const ShardingResult& result, StrategyBenchRow& row) {
  ELECTSIM_ASSERT(result.size() == row.instances);
  std::size_t least = std::numeric_limits<std::size_t>::max(), most = 0;
  double sum = 0, sum_of_squares = 0;
  for (const elasticjob::InstanceItems& entry : result) {
    least = std::min(least, entry.items.size());
    most = std::max(most, entry.items.size());
    sum += static_cast<double>(entry.items.size());
    sum_of_squares += static_cast<double>(entry.items.size()) * static_cast<double>(entry.items.size());
  }
  const double mean = sum / row.instances;
  row.stddev = std::sqrt(std::max(0.0, sum_of_squares / row.instances - mean * mean));
  if (least > 0) row.max_over_min = static_cast<double>(most) / static_cast<double>(least);
}

// Leave the last instance, then a newcomer joins; `base` is what the strategy gave the full list.
void measure_movement(const JobShardingStrategy& strategy, const std::string& job, const std::vector<JobInstance>& list,
                      const ShardingResult& base, StrategyBenchRow& row) {
  std::vector<JobInstance> joined = list;
  joined.push_back(bench_instance(row.instances));
  if (row.instances >= 2) {
    const std::vector<JobInstance> rest(list.begin(), list.end() - 1);
    const ShardingResult after_leave = strategy.sharding(rest, job, static_cast<int>(row.items), &base);
    row.moved_on_leave = moved_between(base, after_leave, joined, row.items);
    row.min_possible_moved_on_leave = static_cast<std::uint32_t>(elasticjob::findItems(base, list.back().jobInstanceId)->size());
  }
  const ShardingResult after_join = strategy.sharding(joined, job, static_cast<int>(row.items), &base);
  row.moved_on_join = moved_between(base, after_join, joined, row.items);
  row.min_possible_moved_on_join = row.items / (row.instances + 1);
}

std::uint32_t measure_low_item_spread(const JobShardingStrategy& strategy, const std::vector<JobInstance>& list,
                                      const StrategyBenchConfig& config) {
  std::set<std::string> owners_of_item_zero;
  for (std::uint32_t job = 0; job < config.spread_jobs; job++) {
    const ShardingResult result = strategy.sharding(list, "job-" + std::to_string(job), static_cast<int>(config.spread_items));
    for (const elasticjob::InstanceItems& entry : result) {
      if (!entry.items.empty() && entry.items.front() == 0) owners_of_item_zero.insert(entry.instance.jobInstanceId);
    }
  }
  return static_cast<std::uint32_t>(owners_of_item_zero.size());
}

// The call a re-shard makes with nothing changed (sticky gets its own result as previous).
void measure_speed(const JobShardingStrategy& strategy, const std::string& job, const std::vector<JobInstance>& list,
                   const ShardingResult& base, std::chrono::nanoseconds wall_min, StrategyBenchRow& row) {
  using clock = std::chrono::steady_clock;
  const clock::time_point start = clock::now();
  clock::duration elapsed{};
  std::uint64_t calls = 0;
  std::size_t entries = 0;  // consumed, so the calls cannot be optimised away
  while (calls == 0 || elapsed < wall_min) {
    entries += strategy.sharding(list, job, static_cast<int>(row.items), &base).size();
    calls++;
    elapsed = clock::now() - start;
  }
  ELECTSIM_ASSERT(entries == calls * list.size());
  const double seconds = std::chrono::duration<double>(elapsed).count();
  row.calls_per_second = static_cast<double>(calls) / seconds;
  row.assignments_per_second = row.calls_per_second * row.items;
}

// Rough work of one call: rendezvous hashes every (item, instance) pair; the ring builds 160
// points per instance and searches it per item; the rest are linear.
double work_per_call(const JobShardingStrategy& strategy, std::uint32_t instances, std::uint32_t items) {
  if (strategy.name() == "rendezvous") return static_cast<double>(instances) * items;
  if (strategy.name() == "consistent-hash") {
    const double points = 160.0 * instances;
    return (points + items) * std::log2(points + 1);
  }
  return static_cast<double>(instances) + items;
}

std::vector<const JobShardingStrategy*> chosen_strategies(const StrategyBenchConfig& config) {
  std::vector<const JobShardingStrategy*> result;
  if (config.strategies.empty()) {
    for (const JobShardingStrategy* each : elasticjob::allStrategies()) result.push_back(each);
    return result;
  }
  for (const std::string& name : config.strategies) {
    const JobShardingStrategy* found = elasticjob::findStrategy(name);
    if (found == nullptr) throw std::invalid_argument("unknown strategy '" + name + "'");
    result.push_back(found);
  }
  return result;
}

}  // namespace

StrategyBenchConfig StrategyBenchConfig::quick() {
  StrategyBenchConfig config;
  config.instance_counts = {1, 3, 10};
  config.item_counts = {1, 10, 100};
  config.measure_wall_min = std::chrono::milliseconds(2);
  config.spread_jobs = 20;
  return config;
}

StrategyBenchResult run_strategy_bench(const StrategyBenchConfig& config, const StrategyBenchProgress& progress) {
  const std::vector<const JobShardingStrategy*> strategies = chosen_strategies(config);
  if (config.instance_counts.empty() || config.item_counts.empty()) throw std::invalid_argument("empty grid");
  for (std::uint32_t count : config.instance_counts) {
    if (count < 1 || count > instances_max) throw std::invalid_argument("instance counts must be within 1..100000");
  }
  for (std::uint32_t count : config.item_counts) {
    if (count > items_max) throw std::invalid_argument("item counts must be within 0..10000000");
  }
  // No job name may make RoundRobinByName throw (see RoundRobinByNameJobShardingStrategy.h).
  ELECTSIM_ASSERT(elasticjob::javaStringHashCode(config.job_name) != std::numeric_limits<std::int32_t>::min());
  StrategyBenchResult result;
  const std::size_t planned = strategies.size() * config.instance_counts.size() * config.item_counts.size();
  for (const JobShardingStrategy* strategy : strategies) {
    for (std::uint32_t instances : config.instance_counts) {
      const std::vector<JobInstance> list = bench_instances(instances);
      std::optional<std::uint32_t> spread;  // depends on the instance count only
      for (std::uint32_t items : config.item_counts) {
        if (work_per_call(*strategy, instances, items) > config.work_per_call_max) {
          result.skipped.push_back({std::string(strategy->name()), instances, items});
          continue;
        }
        StrategyBenchRow row;
        row.strategy = strategy->name();
        row.instances = instances;
        row.items = items;
        const ShardingResult base = strategy->sharding(list, config.job_name, static_cast<int>(items));
        measure_balance(base, row);
        measure_movement(*strategy, config.job_name, list, base, row);
        if (!spread) spread = measure_low_item_spread(*strategy, list, config);
        row.low_item_spread = *spread;
        measure_speed(*strategy, config.job_name, list, base, config.measure_wall_min, row);
        result.rows.push_back(row);
        if (progress) progress(result.rows.back(), result.rows.size() + result.skipped.size(), planned);
      }
    }
  }
  return result;
}

}  // namespace bench
