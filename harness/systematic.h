// The systematic crash-point search (`electsim explore --systematic`): instead of drawing faults, it
// enumerates them, as SAMC (OSDI 2014) and FlyMC (EuroSys 2019) do. For a given scenario it crashes
// each node at every occurrence of every named site it reaches (sim/site.h), restarting it a set
// delay later, then does it again inside each of those runs, up to K faults a run.
//
// One level at a time. Level 1's points are the site occurrences of the scenario run as it is; level
// k+1's are those of each level-k run after its last injected fault. A point becomes a run with one
// more step-triggered fault (`after: {event: site, node: n, nth: i}`, and the restart `delay` after
// the same trigger), so every run is an ordinary scenario, and a failure an ordinary file.
//
// Pruning (SAMC's state hashing): at each point the recorder hashes what the cluster would be if the
// node crashed there: the crashed node's durable state (epochs, snapshot, log), every other node's
// durable and volatile state (role, vote, queues), and the traffic in flight (sim/network.h). Points
// with a hash already seen lead to the same state and get no run of their own. Level 1 prunes over
// all its points; deeper levels within the subtree of their level-1 point, so that a shard (a block
// of level-1 points) covers exactly its subtrees and shards merge into the whole search.
//
// Determinism: the points, the pruning and the runs depend on the options only, never on --jobs;
// runs of a level execute in parallel and are gathered in point order.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "sim/simulation.h"

namespace harness {

struct SystematicOptions {
  Scenario base;                        // its own faults stay; the search's are added to them
  int depth = 1;                        // K: injected faults a run, 1..3
  FaultKind fault = FaultKind::crash;   // crash, power_off, or isolate (then healed instead of restarted)
  sim::Duration restart_after = std::chrono::seconds(1);
  std::vector<std::string> sites;       // the site kinds enumerated; empty: every site the recipe runs
  std::vector<std::string> nodes;       // the nodes faulted; empty: every node that reaches a site
  bool prune = true;
  std::uint64_t max_runs = 100'000;     // a budget over all levels (of this shard)
  bool stop_at_first_failure = false;
  unsigned jobs = 1;
  unsigned shard_index = 1;  // a contiguous block of the level-1 points, and their subtrees
  unsigned shard_count = 1;
  std::vector<std::string> properties;  // counted as failures; empty: what the recipe promises
  std::string out_dir;                  // failure files; empty: none
  std::string found_by;
  sim::SimulationLimits limits;
};

struct SystematicLevel {
  int depth = 0;
  std::uint64_t points = 0;    // site occurrences found (level 1: in the scenario as it is)
  std::uint64_t distinct = 0;  // of those, with a state not seen before (all of them without pruning)
  std::uint64_t runs = 0;      // runs made (fewer than distinct when the budget or a stop cut it)
  std::uint64_t subtrees = 0;  // level-1 points with at least one run at this depth (the budget's spread)
};

struct SystematicFailure {
  int depth = 0;
  std::uint64_t index = 0;     // the run's position among its level's runs
  std::uint64_t run = 0;       // how many runs the search had made when it ran (1-based), this one included
  std::vector<std::string> faults;  // the injected faults, described
  std::string property;
  std::string message;
  std::string time;
  std::string file;
};

struct SystematicSummary {
  std::string scenario;
  int depth = 1;
  std::uint64_t runs = 0;
  std::uint64_t points = 0;           // every level's points
  std::uint64_t distinct_states = 0;  // every level's distinct points
  std::uint64_t pruned = 0;           // points - distinct_states
  std::uint64_t failures = 0;
  std::map<std::string, std::uint64_t> failures_by_property;
  std::vector<SystematicLevel> levels;
  std::optional<SystematicFailure> first_failure;  // the shallowest, then the first in point order
  std::uint64_t trace_hash = 0;       // a sum over runs, as explore's: independent of --jobs and shards
  double wall_seconds = 0;
  std::optional<double> wall_to_first_failure;  // when the search first knew of a failure
  bool interrupted = false;
  bool stopped_at_first_failure = false;
  bool budget_exhausted = false;
  unsigned shard_index = 1;
  unsigned shard_count = 1;
  std::uint64_t roots = 0;        // level-1 distinct points of the whole search
  std::uint64_t roots_first = 0;  // this shard's block of them: [roots_first, roots_end)
  std::uint64_t roots_end = 0;
};

struct SystematicProgress {
  int depth = 0;
  std::uint64_t done = 0;   // runs of this level made
  std::uint64_t total = 0;  // runs of this level to make
  std::uint64_t runs = 0;   // all levels
  std::uint64_t distinct_states = 0;
  std::uint64_t failures = 0;
  double wall_seconds = 0;
};

// The scenario `explore --systematic` searches when given none: three servers, one writer making
// three writes, 12 s.
Scenario systematic_default_scenario();

SystematicSummary explore_systematic(const SystematicOptions& options, const std::function<void(const SystematicProgress&)>& progress,
                                     const std::atomic<bool>& stop);

nlohmann::ordered_json toJson(const SystematicSummary& summary);
SystematicSummary systematic_summary_from_json(const nlohmann::json& json);  // throws std::runtime_error
// The shards of one search (the same scenario and options, every --shard I/N) into its whole.
SystematicSummary merge_systematic(const std::vector<SystematicSummary>& shards);
void printSummary(const SystematicSummary& summary, std::ostream& out);

}  // namespace harness
