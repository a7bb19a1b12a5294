// Exploration: many swarm scenarios (swarm.h), one simulation per thread, each judged against the
// properties its recipe promises. Failures become scenario files that `run` and `replay` reproduce.
//
// Determinism: run i of a sweep uses seed S + i, and its outcome depends on nothing else, so the
// summary does not depend on --jobs. The combined trace hash is the sum (mod 2^64) over runs of
// mix64(seed ^ mix64(run hash)): independent of the order runs finish in, and of how a sweep is cut
// into shards, so `electsim merge` can add the shards' hashes up.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "harness/swarm.h"

namespace harness {

struct ExploreOptions {
  SwarmOptions swarm;
  std::uint64_t runs = 1000;
  std::uint64_t seed = 1;  // run i uses seed + i
  unsigned jobs = 1;       // threads
  // Only this share of the runs: shard `shard_index` (1-based) of `shard_count`, a contiguous block.
  unsigned shard_index = 1;
  unsigned shard_count = 1;
  // The properties that count as failures; empty: the recipe's promised set plus ZooKeeper's own.
  std::vector<std::string> properties;
  std::string out_dir = "failures";  // where failure files go; empty: none written
  // Stop once the failing run with the lowest seed is known: runs after it are skipped, runs before
  // it all complete, so first_failure is the same as a full sweep's (the counts are not).
  bool stop_at_first_failure = false;
  std::string found_by;              // recorded in failure files (the command line)
  sim::SimulationLimits limits;
  // FoundationDB's "unseed" check: run every seed a second time, in another thread with a heap laid
  // out differently (fresh frame pool, padding allocations first), and count a different trace hash
  // or event count as a model-sanity failure of electsim itself. Twice the work.
  bool check_determinism = false;
  // Test-only: handed to every run (RunOptions::test_hook).
  std::function<void(sim::Simulation&)> test_hook;
};

struct FailureSummary {
  std::uint64_t seed = 0;
  std::string property;  // the first violated property (or "finding" / "limit")
  std::string message;
  std::string time;
  std::string file;  // the failure file written, if any
};

// Seeds [first, end).
struct SeedRange {
  std::uint64_t first = 0;
  std::uint64_t end = 0;
};

struct ExploreSummary {
  std::uint64_t runs = 0;  // completed
  std::uint64_t failures = 0;
  std::map<std::string, std::uint64_t> failures_by_property;
  std::uint64_t events = 0;
  double sim_seconds = 0;
  double wall_seconds = 0;
  std::uint64_t trace_hash = 0;  // the combination described above
  std::optional<FailureSummary> first_failure;  // the failing run with the lowest seed
  std::map<std::string, std::uint64_t> observed;  // violations of properties not promised
  bool interrupted = false;
  bool out_of_memory = false;  // a worker ran out of memory: the sweep stopped (interrupted too)
  bool stopped_at_first_failure = false;
  std::uint64_t seed_first = 0;  // the share of seeds this summary covers: [seed_first, seed_end)
  std::uint64_t seed_end = 0;
  // The seeds of that share that did not run (an interruption, the memory running out, or
  // --stop-at-first past the first failure), in order: what a resumed sweep must still run. Empty
  // when every seed ran.
  std::vector<SeedRange> not_run;
  // The whole sweep's seeds, of which a --shard covers its block: merge checks the shards cover it
  // once. 0 and 0 in a summary written before the field existed.
  std::uint64_t sweep_first = 0;
  std::uint64_t sweep_end = 0;
  // What the sweep is beyond its seeds: everything a seed's scenario and its judgement depend on
  // (recipe, duration, bugs, fault kinds, step faults, ZooKeeper version, counted properties), as
  // JSON; shards of one sweep carry the same, and merge refuses others. Null in an older summary.
  nlohmann::ordered_json sweep;
  unsigned shard_index = 1;  // this summary's --shard I/N (1/1 for a whole sweep or a merge)
  unsigned shard_count = 1;
  // In a merge: each summary merged, with its first failure file (where its shard wrote its failures).
  struct Shard {
    std::string file;
    unsigned index = 1;
    unsigned count = 1;
    std::uint64_t seed_first = 0;
    std::uint64_t seed_end = 0;
    std::uint64_t runs = 0;
    std::uint64_t failures = 0;
    std::string first_failure_file;
  };
  std::vector<Shard> shards;
};

// What a progress display sees, from the coordinating thread.
struct ExploreProgress {
  std::uint64_t done = 0;
  std::uint64_t total = 0;
  std::uint64_t failures = 0;
  double wall_seconds = 0;
};

// Runs the sweep. `progress` is called from the calling thread every ~200 ms and once at the end;
// `stop` (e.g. set by a SIGINT handler) ends the sweep after the runs in flight.
ExploreSummary explore(const ExploreOptions& options, const std::function<void(const ExploreProgress&)>& progress,
                       const std::atomic<bool>& stop);

// One run of a sweep: the scenario of `seed`, judged as explore judges it. Exposed for tests and
// for shrink. `failed_property` is empty when the run passed.
struct ExploreRun {
  Scenario scenario;
  RunResult result;
  std::string failed_property;
  std::string message;
  std::string time;
};
ExploreRun explore_one(const ExploreOptions& options, std::uint64_t seed);

// The properties explore counts as failures for `recipe` (when options.properties is empty).
std::vector<std::string> promised_properties(Recipe recipe);

// The failure file of a failing run: the scenario with its failure record and `expect.hold` naming
// the violated property, so that `run` shows the failure and `replay` checks the trace hash; the
// limits that differ from the defaults are recorded too, so that a limit hit replays.
Scenario failure_scenario(const ExploreRun& run, const std::string& found_by, const sim::SimulationLimits& limits = {});

// The contract's `explore` JSON, and merging of shard summaries (electsim merge).
nlohmann::ordered_json toJson(const ExploreSummary& summary);
ExploreSummary summary_from_json(const nlohmann::json& json);  // throws std::runtime_error on a malformed summary
// `files` names each summary in the merge's list of shards (empty: unnamed).
ExploreSummary merge_summaries(const std::vector<ExploreSummary>& shards, const std::vector<std::string>& files = {});
// The sweep identity a summary of `options` carries (ExploreSummary::sweep).
nlohmann::ordered_json sweep_identity(const ExploreOptions& options);
void printSummary(const ExploreSummary& summary, std::ostream& out);

std::uint64_t combine_run_hash(std::uint64_t seed, std::uint64_t run_hash);

}  // namespace harness
