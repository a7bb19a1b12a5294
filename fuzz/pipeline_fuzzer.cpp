// Fuzz target: the whole pipeline. A fuzzed scenario is parsed, cut to a short run with small
// limits, run twice (once writing its trace, once not) and judged. What may come out: a
// ScenarioError from the parser, a limit hit or a finding in the result (both model-sanity), any
// verdicts. Anything else escaping is a bug in electsim; so is a second run with another trace hash,
// a trace that does not read back, or a result that cannot be printed.
//
// ELECTSIM_FUZZ_STRICT=1 in the environment also stops on findings (a failed model assertion, an
// exception out of a model), to collect them while fuzzing for a long time.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <sstream>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/trace_reader.h"

namespace {

using namespace std::chrono_literals;

constexpr sim::Duration fuzz_duration_max = 20s;

// Short: at most 20 simulated seconds, and the faults after the new end dropped (the parser's
// invariant: no fault after the end).
void shorten(harness::Scenario& scenario) {
  if (scenario.duration <= fuzz_duration_max) return;
  scenario.duration = fuzz_duration_max;
  std::erase_if(scenario.faults, [&](const harness::Fault& fault) { return fault.at > scenario.duration; });
}

sim::SimulationLimits small_limits() {
  sim::SimulationLimits limits;
  limits.max_events = 100'000;
  limits.max_nodes = 300;
  limits.max_pending_events = 100'000;
  limits.max_memory_bytes = std::uint64_t{512} << 20;
  return limits;
}

bool strict() {
  static const bool value = [] {
    const char* setting = std::getenv("ELECTSIM_FUZZ_STRICT");
    return setting != nullptr && std::string_view(setting) == "1";
  }();
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  harness::Scenario scenario;
  try {
    scenario = harness::parse_scenario_text(input, "fuzz.yaml");
  } catch (const harness::ScenarioError&) {
    return 0;  // the parser's own target checks these errors
  }
  shorten(scenario);

  harness::RunOptions options;
  options.limits = small_limits();
  std::ostringstream trace;
  options.trace_out = &trace;
  harness::RunResult first = harness::runScenario(scenario, options);
  // `electsim run` prints these: they must not throw on anything a scenario can hold.
  std::string json = harness::toJson(first).dump();
  std::ostringstream summary;
  harness::printSummary(first, summary);

  harness::RunOptions quiet;
  quiet.limits = small_limits();
  quiet.timeline = false;
  harness::RunResult second = harness::runScenario(scenario, quiet);
  if (first.trace_hash != second.trace_hash || first.events != second.events) {
    fuzz::bug("one scenario, two runs, two results (trace hash " + sim::format_hash(first.trace_hash) + " / " +
                  sim::format_hash(second.trace_hash) + ", events " + std::to_string(first.events) + " / " +
                  std::to_string(second.events) + "): a trace sink or the timeline changed the run, or the run is not deterministic",
              input);
  }
  try {
    harness::TraceReaderLimits limits;
    limits.records_max = 10'000'000;
    harness::read_trace_text(trace.str(), "trace.jsonl", limits);
  } catch (const harness::TraceError& error) {
    fuzz::bug("the run's own trace does not read back: " + std::string(error.what()), input);
  }
  if (strict() && first.finding) fuzz::bug("finding: " + *first.finding, input);
  return 0;
}
