// electsim shrink FILE: the smallest scenario that still violates the same property.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <system_error>
#include <thread>

#include "cli/command.h"
#include "cli/limits.h"
#include "cli/output_file.h"
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

// Ctrl-C (or SIGTERM): the candidates in flight stop, and the smallest failing scenario found so far
// is written as if shrinking had ended there (exit 1). A second signal ends the process at once.
std::atomic<bool> shrink_interrupted{false};

extern "C" void interrupt_shrink(int) {
  shrink_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

// The input is what shrink reads and keeps violating: writing the result over it would lose the
// original failure.
bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error) && !error;
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
  if (same_file(file, out)) throw UsageError("shrink: --out " + out + " is the input file: the result would replace the failure it comes from");
  // Opened now, so an unwritable --out is said before the work, not after it.
  std::optional<harness::AtomicFile> output;
  open_output_file("shrink", "result", out, output);
  sim::SimulationLimits run_limits = scenario_limits("shrink", limits, values, scenario);
  harness::ShrinkOptions shrink_options;
  shrink_options.limits = run_limits;
  shrink_options.property = property;
  shrink_options.max_runs = max_runs;
  shrink_options.jobs = jobs;
  shrink_options.interrupted = &shrink_interrupted;
  // Every accepted step gets a line; on a terminal a status line also counts the candidates run, so
  // a long first step (thousands of faults) is not silence.
  const bool terminal = isatty(STDERR_FILENO) != 0;
  auto progress = [terminal](const harness::ShrinkStep& step) {
    if (step.accepted) {
      std::cerr << (terminal ? "\r\033[K" : "") << "shrink: " << step.what << ": " << step.faults << " faults, "
                << sim::format_duration(step.duration) << " (" << step.runs << " runs)\n";
    } else if (terminal) {
      std::cerr << "\r\033[Kshrink: " << step.runs << " runs, best so far " << step.faults << " faults, " << sim::format_duration(step.duration)
                << std::flush;
    }
  };
  if (terminal) std::cerr << "shrink: running " << file << " as it is" << std::flush;
  shrink_interrupted.store(false);
  auto previous_interrupt = std::signal(SIGINT, interrupt_shrink);
  auto previous_terminate = std::signal(SIGTERM, interrupt_shrink);
  std::optional<harness::ShrinkResult> result = harness::shrink(scenario, shrink_options, progress);
  std::signal(SIGINT, previous_interrupt);
  std::signal(SIGTERM, previous_terminate);
  if (terminal) std::cerr << "\r\033[K" << std::flush;
  if (result && result->steps == 0 && (result->interrupted || result->out_of_memory)) {
    // Nothing smaller found: the input is the best there is, and stays where it is.
    std::cerr << "shrink: " << (result->interrupted ? "interrupted" : "out of memory (a candidate run or its thread got none)") << " after "
              << result->runs << " runs, before any simplification: nothing written\n";
    if (json) std::cout << nlohmann::ordered_json{{"shrunk", false}, {result->interrupted ? "interrupted" : "out_of_memory", true}}.dump() << "\n";
    return result->interrupted ? exit_failed : exit_bad_input;
  }
  if (!result) {
    std::cerr << "shrink: " << file << " does not violate " << (property.empty() ? "any property it names or its recipe promises" : property)
              << " with seed " << scenario.seed << ": nothing to shrink\n";
    if (json) std::cout << nlohmann::ordered_json{{"shrunk", false}}.dump() << "\n";
    return exit_failed;
  }

  harness::Scenario shrunk = result->scenario;
  shrunk.name = scenario.name + "-shrunk";
  const char* stopped_early = result->interrupted ? ", interrupted: the smallest found so far"
                              : result->out_of_memory ? ", stopped out of memory: the smallest found so far"
                                                      : "";
  shrunk.description = "Shrunk by electsim shrink from " + file + " (" + std::to_string(result->faults_before) + " faults to " +
                       std::to_string(shrunk.faults.size()) + stopped_early + "); still violates " + result->property + ".";
  shrunk.expect = harness::Expect{};
  shrunk.expect.hold = {result->property};
  // The failure record names the new run's trace hash, so `replay` checks the shrunk file too.
  harness::RunOptions run_options;
  run_options.limits = run_limits;
  run_options.timeline = false;
  harness::RunResult rerun = harness::runScenario(shrunk, run_options);
  shrunk.failure = harness::FailureRecord{result->property, sim::format_hash(rerun.trace_hash), "electsim shrink " + file,
                                          harness::limits_to_record(run_limits)};
  output->stream() << harness::write_scenario(shrunk);
  commit_output_file("shrink", "result", output);  // whole or not at all

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
    if (result->interrupted) summary["interrupted"] = true;
    if (result->out_of_memory) summary["out_of_memory"] = true;
    std::cout << summary.dump() << "\n";
  } else {
    std::cout << "shrunk " << file << " (" << result->property << "): " << result->faults_before << " -> " << shrunk.faults.size()
              << " faults, " << node_count(scenario) << " -> " << node_count(shrunk) << " nodes, " << sim::format_duration(scenario.duration)
              << " -> " << sim::format_duration(shrunk.duration) << ", in " << result->runs << " runs\n"
              << "written to " << out << " (electsim run " << out << ")\n";
  }
  if (result->interrupted) {
    std::cerr << "shrink: interrupted; " << out << " holds the smallest failing scenario found so far\n";
    return exit_failed;
  }
  if (result->out_of_memory) {
    std::cerr << "shrink: out of memory (a candidate run or its thread got none); " << out << " holds the smallest failing scenario found so far\n";
    return exit_bad_input;
  }
  return exit_ok;
}

}  // namespace cli
