// The sharding-strategy workload behind `electsim bench strategies`: for each strategy and each
// (instances, items) cell of a grid, how even the loads are, how many items move when one instance
// leaves or joins (against the fewest any balanced strategy must move), how many instances ever get
// item 0 across many jobs, and how fast the strategy is.
//
// Conventions: the instance list is always given in the same order (as ElasticJob's
// getChildrenKeys does); "leave" removes the LAST instance of the list, "join" appends a new one;
// the strategy gets the assignment before the change as `previous` (only sticky reads it).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace bench {

struct StrategyBenchConfig {
  std::vector<std::string> strategies;  // empty: all of them
  std::vector<std::uint32_t> instance_counts{1, 3, 10, 100, 1000};
  std::vector<std::uint32_t> item_counts{1, 10, 100, 1000, 10000, 100000};
  // Speed: calls are repeated until at least this much wall time has passed.
  std::chrono::nanoseconds measure_wall_min = std::chrono::milliseconds(20);
  // low_item_spread: this many jobs named "job-0", "job-1", ..., each with spread_items items.
  std::uint32_t spread_jobs = 100;
  std::uint32_t spread_items = 8;
  // Cells whose estimated work for one call (hash evaluations or item placements) exceeds this
  // are skipped. The full grid stays below it (rendezvous at 1000 x 100000 is 1e8).
  double work_per_call_max = 2e8;
  std::string job_name = "order-sync";

  // A small grid for tests: 1, 3, 10 instances x 1, 10, 100 items, 2 ms of timing, 20 jobs.
  static StrategyBenchConfig quick();
};

struct StrategyBenchRow {
  std::string strategy;
  std::uint32_t instances = 0;
  std::uint32_t items = 0;
  // Balance of one call: largest load over smallest (none when an instance gets nothing), and the
  // population standard deviation of the loads.
  std::optional<double> max_over_min;
  double stddev = 0;
  // Leave: none with a single instance (nobody would be left to take the items).
  std::optional<std::uint32_t> moved_on_leave;
  std::optional<std::uint32_t> min_possible_moved_on_leave;  // the leaver's item count
  std::uint32_t moved_on_join = 0;
  std::uint32_t min_possible_moved_on_join = 0;  // items / (instances + 1): the newcomer's share
  std::uint32_t low_item_spread = 0;             // distinct instances that get item 0, over spread_jobs jobs
  double assignments_per_second = 0;             // items assigned per wall second
  double calls_per_second = 0;
};

struct SkippedCell {
  std::string strategy;
  std::uint32_t instances = 0;
  std::uint32_t items = 0;
};

struct StrategyBenchResult {
  std::vector<StrategyBenchRow> rows;
  std::vector<SkippedCell> skipped;
};

// Called after each row (for progress): the row, rows done, rows planned.
using StrategyBenchProgress = std::function<void(const StrategyBenchRow&, std::size_t, std::size_t)>;

// Throws std::invalid_argument for an unknown strategy name or an empty grid.
StrategyBenchResult run_strategy_bench(const StrategyBenchConfig& config, const StrategyBenchProgress& progress = {});

}  // namespace bench
