// Runs one scenario: builds the cluster, schedules starts and faults, attaches the property
// checkers and trace sinks, runs to the scenario's end, and reports (SCENARIO-FORMAT.md's `run`).
#pragma once

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "properties/Property.h"
#include "sim/simulation.h"

namespace harness {

struct RunOptions {
  std::optional<std::uint64_t> seed;       // overrides the scenario's
  std::ostream* trace_out = nullptr;       // JSON Lines of every event
  sim::SimulationLimits limits;
  std::vector<std::string> properties;     // judged in addition to the recipe's and the scenario's
  bool only_listed_properties = false;     // judge `properties` only (explore --properties)
  bool timeline = true;                    // keep the key events for the human summary
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
};

RunResult runScenario(const Scenario& scenario, const RunOptions& options);

nlohmann::ordered_json toJson(const RunResult& result);
void printSummary(const RunResult& result, std::ostream& out);

}  // namespace harness
