// electsim live FILE: the scenario against a real ZooKeeper 3.8 ensemble (live/live_run.h,
// docs/live-mode.md). Same output as `run`; exit 0 when every expectation is met, 1 otherwise, 2 bad
// input or live mode unavailable.
#include <iostream>
#include <optional>

#include "cli/command.h"
#include "cli/limits.h"
#include "cli/output_file.h"
#include "harness/runner.h"
#include "live/installation.h"
#if ELECTSIM_LIVE
#include "live/live_run.h"
#endif

namespace cli {

int command_live(const Arguments& arguments) {
  std::string file;
  std::string trace_path;
  bool json = false;
  po::options_description options("live options");
  options.add_options()
      ("file", po::value(&file), "the scenario file")
      ("trace", po::value(&trace_path), "write every observed event to this JSON Lines file")
      ("json", po::bool_switch(&json), "print the result as one JSON object on the last line");
  LimitOptions limits;
  po::variables_map values;
  if (!parse_file_command("live", "FILE [--trace OUT.jsonl] [--json]", "a scenario file", arguments, options, limits, file, values)) {
    return exit_ok;
  }
  harness::Scenario scenario = load_scenario(file, file_size_limit("live", limits));
#if !ELECTSIM_LIVE
  (void)json;
  std::cerr << "electsim: live: live mode unavailable: this electsim was built without the ZooKeeper C client "
               "(install libzookeeper-mt-dev, e.g. with scripts/setup, and configure again)\n";
  return exit_bad_input;
#else
  if (std::optional<std::string> why = live::live_unsupported(scenario)) throw UsageError("live: " + file + ": " + *why);
  std::string missing;
  std::optional<live::Installation> installation = live::find_installation(missing);
  if (!installation) {
    std::cerr << "electsim: live: live mode unavailable: " << missing << " (scripts/setup installs both)\n";
    return exit_bad_input;
  }
  std::optional<harness::AtomicFile> trace;
  open_output_file("live", "trace", trace_path, trace);
  live::LiveRunOptions live_options;
  live_options.trace_out = trace ? &trace->stream() : nullptr;
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
  return result.run.expectations_met && !result.interrupted ? exit_ok : exit_failed;
#endif
}

}  // namespace cli
