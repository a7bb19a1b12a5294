// Runs one scenario: builds the cluster, schedules starts and faults, attaches the property
// checkers and trace sinks, runs to the scenario's end, and reports (SCENARIO-FORMAT.md's `run`).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "harness/triggers.h"
#include "properties/Property.h"
#include "sim/message_trace.h"
#include "sim/simulation.h"

namespace harness {

class ClusterPlatform;

struct RunOptions {
  std::optional<std::uint64_t> seed;       // overrides the scenario's
  std::ostream* trace_out = nullptr;       // JSON Lines of every event
  std::uint64_t trace_bytes_max = 0;       // its bound (harness/trace_file.h); 0: none
  sim::SimulationLimits limits;
  std::vector<std::string> properties;     // judged in addition to the recipe's and the scenario's
  bool only_listed_properties = false;     // judge `properties` only (explore --properties)
  bool timeline = true;                    // keep the key events for the human summary
  // Extra sinks (narration, diagrams), attached for the run and removed after it; not owned.
  std::vector<sim::TraceSink*> sinks;
  // When set, the network traces every message (net.* observations, not hashed) for those sinks.
  sim::MessageDescriber message_describer = nullptr;
  // Test-only: called once the cluster is built and its starts and faults are scheduled, just before
  // the run starts (tests use it to plant a failing assertion or a nondeterminism).
  std::function<void(sim::Simulation&)> test_hook;
  // Live mode: the platform with the real servers (null: simulated), and the loop that runs the
  // simulation up to the end (null: sim.run_until(end), as fast as possible in virtual time).
  ClusterPlatform* platform = nullptr;
  std::function<void(sim::Simulation&, sim::Instant end)> run_loop;
  // Properties that cannot be judged (live mode: they need the servers' internal events), with why.
  std::map<std::string, std::string> unjudgeable;
};

struct TimelineEntry {
  sim::Instant time;
  std::string node;
  std::string text;
};

struct RunResult {
  std::string scenario;
  std::uint64_t seed = 0;
  std::uint64_t events = 0;
  double sim_seconds = 0;
  double wall_seconds = 0;
  std::uint64_t trace_hash = 0;
  std::map<std::string, properties::Verdict> properties;  // every property judged
  std::vector<properties::Violation> violations;
  bool expectations_met = true;
  std::vector<std::string> unmet;  // why not, one line each
  // A failure of the model itself (an assertion inside a simulation), or a limit hit.
  std::optional<std::string> finding;
  std::optional<std::string> limit;
  nlohmann::ordered_json final;
  std::vector<TimelineEntry> timeline;
  // Properties that were not judged, and why (live mode).
  std::map<std::string, std::string> not_judged_why;
  // The step-triggered faults: which fired and when (a trigger that never fired is said, not hidden).
  std::vector<TriggerReport> triggers;
};

RunResult runScenario(const Scenario& scenario, const RunOptions& options);

// A failure record's limits (FailureRecord::limits): those of `limits` that differ from the defaults,
// and back: `limits` with the recorded ones applied, except those named in `keep` (the ones the
// user set on the command line, which win).
std::map<std::string, std::uint64_t> limits_to_record(const sim::SimulationLimits& limits);
sim::SimulationLimits with_recorded_limits(sim::SimulationLimits limits, const std::map<std::string, std::uint64_t>& recorded,
                                           const std::vector<std::string>& keep = {});

nlohmann::ordered_json toJson(const RunResult& result);
void printSummary(const RunResult& result, std::ostream& out);

}  // namespace harness
