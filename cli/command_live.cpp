// electsim live FILE: the scenario against a real ZooKeeper 3.8 ensemble (live/live_run.h,
// docs/live-mode.md). Same output as `run`; exit 0 when every expectation is met, 1 otherwise, 2 bad
// input or live mode unavailable.
// electsim live --cleanup: removes what live runs whose electsim is gone left behind (live/leftovers.h).
#include <algorithm>
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/limits.h"
#include "cli/output_file.h"
#include "harness/runner.h"
#include "live/installation.h"
#include "live/leftovers.h"
#if ELECTSIM_LIVE
#include "live/live_refusal.h"
#include "live/live_run.h"
#endif

namespace cli {

namespace {

constexpr const char* live_synopsis = "FILE [--trace OUT.jsonl] [--json] | --cleanup";

// electsim live --cleanup: what it removed on stdout, one line each; exit 0, or 1 when something
// could not be removed (said on stderr). Needs no JVM and no scenario.
int cleanup_leftovers(const Arguments& arguments, const po::options_description& options, const std::string& file,
                      const std::string& trace_path, const bool& json) {
  po::positional_options_description positional;
  positional.add("file", 1);
  po::variables_map values;
  if (!parse_options("live", live_synopsis, arguments, options, positional, values)) return exit_ok;
  if (!file.empty() || !trace_path.empty() || json) throw UsageError("live: --cleanup takes no scenario file and no other option");
  live::LeftoverSweep sweep = live::remove_leftovers();
  live::print_sweep(sweep, "live --cleanup", std::cout, std::cerr);
  if (sweep.removed.empty() && sweep.not_removed.empty()) std::cout << "live --cleanup: nothing left by a gone electsim\n";
  return sweep.not_removed.empty() ? exit_ok : exit_failed;
}

}  // namespace

int command_live(const Arguments& arguments) {
  std::string file;
  std::string trace_path;
  bool json = false;
  bool cleanup = false;
  po::options_description options("live options");
  options.add_options()
      ("file", po::value(&file), "the scenario file")
      ("trace", po::value(&trace_path), "write every observed event to this JSON Lines file")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line")
      ("cleanup", po::bool_switch(&cleanup),
       "remove what live runs killed with kill -9 left behind (temp folders, network namespaces, links, bridges; "
       "never a running electsim's), say what, and exit");
  // --cleanup takes no FILE, which parse_file_command requires: that form is parsed on its own.
  if (std::find(arguments.begin(), arguments.end(), "--cleanup") != arguments.end()) {
    return cleanup_leftovers(arguments, options, file, trace_path, json);
  }
  std::string trace_size_text;
  add_trace_size_option(options, trace_size_text);
  LimitOptions limits;
  po::variables_map values;
  if (!parse_file_command("live", live_synopsis, "a scenario file", arguments, options, limits, file, values)) {
    return exit_ok;
  }
  harness::Scenario scenario = load_scenario(file, file_size_limit("live", limits));
#if !ELECTSIM_LIVE
  (void)json;
  std::cerr << "electsim: live: live mode unavailable: this electsim was built without the ZooKeeper C client "
               "(install libzookeeper-mt-dev, e.g. with scripts/setup, and configure again)\n";
  return exit_bad_input;
#else
  // Before anything starts: FILE:LINE:COLUMN at the key, exit 2.
  if (std::optional<live::LiveRefusal> refusal = live::live_refusal(scenario)) throw FileError(live::live_refusal_text(file, *refusal));
  std::string missing;
  std::optional<live::Installation> installation = live::find_installation(missing);
  if (!installation) {
    std::cerr << "electsim: live: live mode unavailable: " << missing << " (scripts/setup installs both)\n";
    return exit_bad_input;
  }
  // What killed runs left (their namespaces would otherwise stay until a run reclaims the slot).
  live::print_sweep(live::remove_leftovers(), "live", std::cerr, std::cerr);
  std::optional<harness::AtomicFile> trace;
  open_output_file("live", "trace", trace_path, trace);
  live::LiveRunOptions live_options;
  live_options.trace_out = trace ? &trace->stream() : nullptr;
  live_options.trace_bytes_max = trace_size_limit("live", trace_size_text);
  live_options.progress = &std::cerr;
  live::LiveRunResult result = live::run_live(scenario, *installation, live_options);
  commit_output_file("live", "trace", trace);
  if (json) {
    nlohmann::ordered_json out = harness::toJson(result.run);
    out["mode"] = "live";
    out["zookeeper_version"] = installation->zookeeper_version;
    out["skipped_faults"] = result.skipped_faults;
    out["interrupted"] = result.interrupted;
    std::cout << out.dump() << "\n";
  } else {
    std::cout << "live: ZooKeeper " << installation->zookeeper_version << (result.interrupted ? " (interrupted)" : "") << "\n";
    harness::printSummary(result.run, std::cout);
    for (const auto& [name, why] : result.run.not_judged_why) std::cout << "  not judged live: " << name << ": " << why << "\n";
    for (const std::string& skipped : result.skipped_faults) std::cout << "  skipped fault: " << skipped << "\n";
  }
  fail_on_limit("live", file, scenario, result.run);  // the trace's bound, or the memory budget: exit 2, named
  return result.run.expectations_met && !result.interrupted ? exit_ok : exit_failed;
#endif
}

}  // namespace cli
