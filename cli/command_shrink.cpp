// electsim shrink FILE: the smallest scenario that still violates the same property.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <thread>

#include "cli/command.h"
#include "cli/limits.h"
#include "harness/atomic_file.h"
#include "harness/registry.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"
#include "harness/shrink.h"
#include "sim/trace.h"

namespace cli {

namespace {

std::string default_output(const std::string& file) {
  std::filesystem::path path(file);
  return (path.parent_path() / (path.stem().string() + ".shrunk.yaml")).string();
}

int node_count(const harness::Scenario& scenario) {
  if (scenario.elasticsearch) return scenario.elasticsearch->nodes;
  int instances = harness::has_instances(scenario.recipe) ? scenario.instances.count : 0;
  return scenario.zookeeper.servers + instances + scenario.clients.writers;
}

}  // namespace

int command_shrink(const Arguments& arguments) {
  std::string file;
  std::string out;
  std::string property;
  std::uint64_t max_runs = 2000;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  bool json = false;
  po::options_description options("shrink options");
  options.add_options()
      ("file", po::value(&file), "a failing scenario (a failure file from explore, or any scenario)")
      ("out", po::value(&out), "where to write the result (default: FILE with .shrunk.yaml)")
      ("property", po::value(&property), "the property to keep violated (default: the failure record's, or the first violated)")
      ("max-runs", po::value(&max_runs), "candidate runs at most (default 2000)")
      ("jobs", po::value(&jobs), "candidates run in parallel (default: all cores; the result does not depend on it)")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  LimitOptions limits;
  po::variables_map values;
  if (!parse_file_command("shrink", "FILE [--out FILE] [--property P] [--max-runs N] [--jobs J] [--json]", "a scenario file", arguments,
                          options, limits, file, values)) {
    return exit_ok;
  }
  if (!property.empty() && !harness::is_known_property(property)) throw UsageError("shrink: unknown property '" + property + "' (see: electsim properties)");
  if (max_runs == 0) throw UsageError("shrink: --max-runs must be at least 1");
  if (jobs == 0 || jobs > 1024) throw UsageError("shrink: --jobs must be within 1..1024");
  if (values.count("out") != 0 && out.empty()) throw UsageError("shrink: --out needs a file name (without it: FILE with .shrunk.yaml)");
  if (out.empty()) out = default_output(file);

  harness::Scenario scenario = load_scenario(file, file_size_limit("shrink", limits));
  sim::SimulationLimits run_limits = scenario_limits("shrink", limits, values, scenario);
  harness::ShrinkOptions shrink_options;
  shrink_options.limits = run_limits;
  shrink_options.property = property;
  shrink_options.max_runs = max_runs;
  shrink_options.jobs = jobs;
  auto progress = [](const harness::ShrinkStep& step) {
    std::cerr << "shrink: " << step.what << ": " << step.faults << " faults, " << sim::format_duration(step.duration) << " (" << step.runs
              << " runs)\n";
  };
  std::optional<harness::ShrinkResult> result = harness::shrink(scenario, shrink_options, progress);
  if (!result) {
    std::cerr << "shrink: " << file << " does not violate " << (property.empty() ? "any property it names or its recipe promises" : property)
              << " with seed " << scenario.seed << ": nothing to shrink\n";
    if (json) std::cout << nlohmann::ordered_json{{"shrunk", false}}.dump() << "\n";
    return exit_failed;
  }

  harness::Scenario shrunk = result->scenario;
  shrunk.name = scenario.name + "-shrunk";
  shrunk.description = "Shrunk by electsim shrink from " + file + " (" + std::to_string(result->faults_before) + " faults to " +
                       std::to_string(shrunk.faults.size()) + "); still violates " + result->property + ".";
  shrunk.expect = harness::Expect{};
  shrunk.expect.hold = {result->property};
  // The failure record names the new run's trace hash, so `replay` checks the shrunk file too.
  harness::RunOptions run_options;
  run_options.limits = run_limits;
  run_options.timeline = false;
  harness::RunResult rerun = harness::runScenario(shrunk, run_options);
  shrunk.failure = harness::FailureRecord{result->property, sim::format_hash(rerun.trace_hash), "electsim shrink " + file,
                                          harness::limits_to_record(run_limits)};
  try {
    harness::write_file_atomically(out, harness::write_scenario(shrunk));  // whole or not at all
  } catch (const harness::FileWriteError& error) {
    throw UsageError("shrink: " + std::string(error.what()));
  }

  if (json) {
    nlohmann::ordered_json summary{{"shrunk", true},
                                   {"property", result->property},
                                   {"file", out},
                                   {"faults_before", result->faults_before},
                                   {"faults_after", shrunk.faults.size()},
                                   {"nodes_before", node_count(scenario)},
                                   {"nodes_after", node_count(shrunk)},
                                   {"duration_before", sim::format_duration(scenario.duration)},
                                   {"duration_after", sim::format_duration(shrunk.duration)},
                                   {"runs", result->runs},
                                   {"steps", result->steps}};
    std::cout << summary.dump() << "\n";
  } else {
    std::cout << "shrunk " << file << " (" << result->property << "): " << result->faults_before << " -> " << shrunk.faults.size()
              << " faults, " << node_count(scenario) << " -> " << node_count(shrunk) << " nodes, " << sim::format_duration(scenario.duration)
              << " -> " << sim::format_duration(shrunk.duration) << ", in " << result->runs << " runs\n"
              << "written to " << out << " (electsim run " << out << ")\n";
  }
  return exit_ok;
}

}  // namespace cli
