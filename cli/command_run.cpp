// electsim run FILE: runs one scenario and judges its properties; electsim replay FILE: runs a
// failure file again and compares the trace hash it recorded.
#include <fstream>
#include <iostream>

#include "cli/command.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"

namespace cli {

namespace {

harness::Scenario load(const std::string& file) {
  try {
    return harness::parse_scenario_file(file);
  } catch (const harness::ScenarioError& error) {
    throw UsageError(error.what());
  }
}

}  // namespace

int command_run(const Arguments& arguments) {
  std::string file;
  std::uint64_t seed = 0;
  std::string trace_path;
  bool json = false;
  po::options_description options("run options");
  options.add_options()
      ("file", po::value(&file), "the scenario file")
      ("seed", po::value(&seed), "run with this seed instead of the scenario's")
      ("trace", po::value(&trace_path), "write every event to this JSON Lines file")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map values;
  if (!parse_options("run", "FILE [--seed N] [--trace OUT.jsonl] [--json]", arguments, options, positional, values)) return exit_ok;
  if (file.empty()) throw UsageError("run: a scenario file is required (see: electsim run --help)");

  harness::Scenario scenario = load(file);
  harness::RunOptions run_options;
  if (values.count("seed") != 0) run_options.seed = seed;
  std::ofstream trace;
  if (!trace_path.empty()) {
    trace.open(trace_path);
    if (!trace) throw UsageError("run: cannot write the trace file " + trace_path);
    run_options.trace_out = &trace;
  }
  harness::RunResult result = harness::runScenario(scenario, run_options);
  if (json) {
    std::cout << harness::toJson(result).dump() << "\n";
  } else {
    harness::printSummary(result, std::cout);
  }
  return result.expectations_met ? exit_ok : exit_failed;
}

int command_replay(const Arguments& arguments) {
  std::string file;
  po::options_description options("replay options");
  options.add_options()("file", po::value(&file), "a failure file written by electsim explore");
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map values;
  if (!parse_options("replay", "FILE", arguments, options, positional, values)) return exit_ok;
  if (file.empty()) throw UsageError("replay: a failure file is required (see: electsim replay --help)");
  harness::Scenario scenario = load(file);
  if (!scenario.failure) throw UsageError("replay: " + file + " has no failure record (failure: {property, trace_hash})");
  harness::RunOptions run_options;
  run_options.timeline = false;
  harness::RunResult result = harness::runScenario(scenario, run_options);
  std::string hash = sim::format_hash(result.trace_hash);
  bool same = hash == scenario.failure->trace_hash;
  auto verdict = result.properties.find(scenario.failure->property);
  bool violated = verdict != result.properties.end() && verdict->second == properties::Verdict::violated;
  std::cout << (same ? "identical" : "DIVERGED") << ": trace hash " << hash << " (recorded " << scenario.failure->trace_hash
            << "); " << scenario.failure->property << " " << (violated ? "violated again" : "not violated this time") << "\n";
  return same ? exit_ok : exit_failed;
}

}  // namespace cli
