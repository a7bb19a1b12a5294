// electsim run FILE: runs one scenario and judges its properties; electsim replay FILE: runs a
// failure file again and compares the trace hash it recorded.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <optional>
#include <stdexcept>

#include "cli/command.h"
#include "cli/limits.h"
#include "cli/output_file.h"
#include "harness/diagram.h"
#include "harness/message_summary.h"
#include "harness/narration.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/view.h"

namespace cli {

namespace {

harness::Scenario load(const std::string& command, const std::string& file, const LimitOptions& limits) {
  return load_scenario(file, file_size_limit(command, limits));
}

// Ctrl-C (or SIGTERM) during `run`: the run stops between two slices of simulated time, and what it
// judged so far is reported, marked interrupted (exit 1); the trace and diagram are written for the
// part that ran, so no temporary file is left behind. A second signal ends the process at once.
std::atomic<bool> run_interrupted{false};

extern "C" void interrupt_run(int) {
  run_interrupted.store(true);
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace

int command_run(const Arguments& arguments) {
  std::string file;
  Seed seed;
  std::string trace_path;
  std::string narrate;
  std::string diagram_path;
  std::string view_path;
  std::string view_from_text;
  std::string view_to_text;
  std::string zookeeper_version;
  bool json = false;
  po::options_description options("run options");
  options.add_options()
      ("file", po::value(&file), "the scenario file")
      ("seed", po::value(&seed), "run with this seed instead of the scenario's")
      ("trace", po::value(&trace_path), "write every event to this JSON Lines file")
      ("narrate", po::value(&narrate)->implicit_value("all"),
       "tell the run as a timeline on standard error, repeats folded; =LIST limits it: topics (zk, latch, job, es, naive, session, "
       "watch, fault, property, net: messages, not in all), a window (from=2s, to=5s) and nodes (nodes=zk1+i2), e.g. =zk,from=2s,nodes=zk1")
      ("diagram", po::value(&diagram_path), "write a space-time diagram of the run to this HTML file")
      ("view", po::value(&view_path), "write the run viewer to this HTML file: step through the run, every node's state at each step")
      ("view-from", po::value(&view_from_text), "with --view: show every step from this simulated time on (a long run's page folds the middle)")
      ("view-to", po::value(&view_to_text), "with --view: ... up to this simulated time")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  add_zookeeper_version_option(options, zookeeper_version);
  std::string trace_size_text;
  add_trace_size_option(options, trace_size_text);
  LimitOptions limits;
  po::variables_map values;
  if (!parse_file_command("run", "FILE [--seed N] [--zookeeper-version V] [--trace OUT.jsonl] [--narrate[=LIST]] [--diagram OUT.html] [--view OUT.html [--view-from T] [--view-to T]] [--json]",
                          "a scenario file", arguments, options, limits, file, values)) {
    return exit_ok;
  }

  harness::Scenario scenario = load("run", file, limits);
  apply_zookeeper_version("run", zookeeper_version, scenario);
  harness::RunOptions run_options;
  run_options.limits = scenario_limits("run", limits, values, scenario);
  if (values.count("seed") != 0) run_options.seed = seed.value;
  // Whole or absent: the trace appears under its name only once the run is over (atomic_file.h).
  std::optional<harness::AtomicFile> trace;
  open_output_file("run", "trace", trace_path, trace);
  if (trace) run_options.trace_out = &trace->stream();
  run_options.trace_bytes_max = trace_size_limit("run", trace_size_text);
  // Narration and diagrams are sinks on the run's trace; both are checked before anything runs.
  std::optional<harness::NarrationSink> narration;
  if (values.count("narrate") != 0) {
    try {
      harness::NarrationFilter filter = harness::NarrationFilter::parse(narrate);
      narration.emplace(std::cerr, filter);
      if (filter.needs_messages()) run_options.message_describer = &harness::describe_message;
    } catch (const std::invalid_argument& error) {
      throw UsageError("run: --narrate: " + std::string(error.what()));
    }
    run_options.sinks.push_back(&*narration);
  }
  // The diagram, like the trace, appears whole or not at all.
  std::optional<harness::AtomicFile> diagram_file;
  open_output_file("run", "diagram", diagram_path, diagram_file);
  harness::DiagramSink diagram;
  if (diagram_file) {
    run_options.sinks.push_back(&diagram);
    run_options.message_describer = &harness::describe_message;
  }
  // The viewer, like the diagram, appears whole or not at all.
  std::optional<harness::AtomicFile> view_file;
  open_output_file("run", "view", view_path, view_file);
  harness::ViewLimits view_limits;
  if ((values.count("view-from") != 0 || values.count("view-to") != 0) && !view_file) throw UsageError("run: --view-from and --view-to go with --view");
  auto view_time = [&](const std::string& option, const std::string& text) {
    std::optional<sim::Duration> parsed = sim::parse_duration(text);
    if (!parsed || *parsed > scenario.duration) {
      throw UsageError("run: --" + option + " takes a time within the run (0s.." + sim::format_duration(scenario.duration) + "), got '" + text + "'");
    }
    return sim::epoch + *parsed;
  };
  if (values.count("view-from") != 0) view_limits.window_from = view_time("view-from", view_from_text);
  if (values.count("view-to") != 0) view_limits.window_to = view_time("view-to", view_to_text);
  if (view_limits.window_from && view_limits.window_to && *view_limits.window_to < *view_limits.window_from) {
    throw UsageError("run: --view-to is before --view-from");
  }
  harness::ViewSink view(view_limits);
  if (view_file) {
    run_options.sinks.push_back(&view);
    run_options.message_describer = &harness::describe_message;
  }
  // In slices of 100 ms of simulated time, so that a signal is seen between them; a slice ends with
  // every event due up to its end, so the run is the one run_until(end) makes (the same trace hash).
  run_interrupted.store(false);
  run_options.run_loop = [](sim::Simulation& sim, sim::Instant end) {
    while (sim.now() < end && !sim.stop_requested() && !run_interrupted.load()) sim.run_until(std::min(end, sim.now() + std::chrono::milliseconds(100)));
  };
  auto previous_interrupt = std::signal(SIGINT, interrupt_run);
  auto previous_terminate = std::signal(SIGTERM, interrupt_run);
  harness::RunResult result = harness::runScenario(scenario, run_options);
  std::signal(SIGINT, previous_interrupt);
  std::signal(SIGTERM, previous_terminate);
  bool interrupted = run_interrupted.load();
  commit_output_file("run", "trace", trace);
  if (narration) narration->finish(result.violations);
  if (diagram_file) {
    std::string title = scenario.name + " (seed " + std::to_string(result.seed) + ")";
    diagram.write_html(diagram_file->stream(), sim::epoch + scenario.duration, title, result.violations);
    commit_output_file("run", "diagram", diagram_file);
  }
  if (view_file) {
    std::string title = scenario.name + " (seed " + std::to_string(result.seed) + ")";
    view.write_html(view_file->stream(), sim::epoch + std::chrono::nanoseconds(std::llround(result.sim_seconds * 1e9)), title,
                    result.violations);
    commit_output_file("run", "view", view_file);
  }
  if (json) {
    nlohmann::ordered_json out = harness::toJson(result);
    if (interrupted) out["interrupted"] = true;
    std::cout << out.dump() << "\n";
  } else {
    harness::printSummary(result, std::cout);
    if (interrupted) {
      std::cout << "INTERRUPTED at " << result.sim_seconds << " s of " << sim::format_duration(scenario.duration)
                << ": the verdicts cover the run so far (liveness properties were judged early)\n";
    }
  }
  fail_on_limit("run", file, scenario, result);
  if (interrupted) std::cerr << "electsim: run: interrupted; the report covers the run so far\n";
  return result.expectations_met && !interrupted ? exit_ok : exit_failed;
}

int command_replay(const Arguments& arguments) {
  std::string file;
  std::string zookeeper_version;
  po::options_description options("replay options");
  options.add_options()("file", po::value(&file), "a failure file written by electsim explore");
  add_zookeeper_version_option(options, zookeeper_version);
  LimitOptions limits;
  po::variables_map values;
  if (!parse_file_command("replay", "FILE [--zookeeper-version V]", "a failure file", arguments, options, limits, file, values)) return exit_ok;
  harness::Scenario scenario = load("replay", file, limits);
  apply_zookeeper_version("replay", zookeeper_version, scenario);
  if (!scenario.failure) throw UsageError("replay: " + file + " has no failure record (failure: {property, trace_hash})");
  harness::RunOptions run_options;
  run_options.limits = scenario_limits("replay", limits, values, scenario);
  run_options.timeline = false;
  harness::RunResult result = harness::runScenario(scenario, run_options);
  fail_on_limit("replay", file, scenario, result);
  std::string hash = sim::format_hash(result.trace_hash);
  bool same = hash == scenario.failure->trace_hash;
  auto verdict = result.properties.find(scenario.failure->property);
  bool violated = verdict != result.properties.end() && verdict->second == properties::Verdict::violated;
  std::cout << (same ? "identical" : "DIVERGED") << ": trace hash " << hash << " (recorded " << scenario.failure->trace_hash
            << "); " << scenario.failure->property << " " << (violated ? "violated again" : "not violated this time") << "\n";
  // The same trace with the recorded property not violated means the file was edited: not a replay.
  return same && violated ? exit_ok : exit_failed;
}

}  // namespace cli
