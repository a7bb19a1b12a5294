// electsim explore --systematic [FILE]: the systematic crash-point search (harness/systematic.h),
// with a progress line on a terminal and a summary at the end.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/limits.h"
#include "harness/registry.h"
#include "harness/systematic.h"
#include "harness/trigger_kinds.h"
#include "sim/time.h"

namespace cli {

namespace {

std::atomic<bool> stop_requested{false};

extern "C" void on_systematic_interrupt(int signal_number) {
  stop_requested.store(true);
  std::signal(signal_number, SIG_DFL);
}

class SystematicProgressDisplay {
 public:
  explicit SystematicProgressDisplay(bool quiet) : terminal_(!quiet && isatty(STDERR_FILENO) != 0), quiet_(quiet) {}
  void operator()(const harness::SystematicProgress& now) {
    if (quiet_) return;
    std::ostringstream line;
    line << "depth " << now.depth << ": " << now.done << "/" << now.total << " runs  (" << now.runs << " in all, " << now.distinct_states
         << " distinct states)  failures " << now.failures << "  " << std::fixed << std::setprecision(1) << now.wall_seconds << " s";
    if (terminal_) {
      std::cerr << "\r" << line.str() << "   " << std::flush;
      if (now.done == now.total) std::cerr << "\n";
    } else if (now.wall_seconds - last_line_ >= 10.0) {
      std::cerr << "explore --systematic: " << line.str() << "\n";
      last_line_ = now.wall_seconds;
    }
  }

 private:
  bool terminal_;
  bool quiet_;
  double last_line_ = 0;
};

void parse_shard_text(const std::string& text, unsigned& index, unsigned& count) {
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count == 0 || index == 0 || index > count) {
    throw UsageError("explore: --shard takes I/N with 1 <= I <= N, got '" + text + "'");
  }
}

}  // namespace

int command_systematic(const Arguments& arguments) {
  std::string file;
  int depth = 1;
  std::string fault_text = "crash";
  std::string restart_text = "1s";
  std::string sites_text;
  std::string nodes_text;
  bool no_prune = false;
  std::uint64_t max_runs = 100'000;
  bool stop_at_first = false;
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string shard_text;
  std::string out_dir = "failures";
  std::string properties_text;
  std::vector<std::string> bugs;
  bool json = false;
  bool quiet = false;
  bool systematic = false;
  std::string zookeeper_version;
  po::options_description options("explore --systematic options");
  options.add_options()
      ("systematic", po::bool_switch(&systematic), "enumerate crash points instead of drawing faults")
      ("file", po::value(&file), "the scenario to search (default: three servers, one writer making three writes, 12 s)")
      ("depth", po::value(&depth), "K: faults injected per run, 1..3 (default 1)")
      ("fault", po::value(&fault_text), "crash (default), power_off, or isolate (the node cut off, then healed)")
      ("restart-after", po::value(&restart_text), "each faulted node restarts (or is healed) this long after its fault (default 1s)")
      ("sites", po::value(&sites_text), "the sites enumerated, comma-separated (default: every site the recipe runs; electsim sites)")
      ("nodes", po::value(&nodes_text), "the nodes faulted, comma-separated (default: every node that reaches those sites)")
      ("no-prune", po::bool_switch(&no_prune), "run every point, also those whose state an earlier point already led to")
      ("max-runs", po::value(&max_runs), "a budget of runs over all depths (default 100000)")
      ("stop-at-first", po::bool_switch(&stop_at_first), "stop at the first violation (the shallowest, then the first in point order)")
      ("jobs", po::value(&jobs), "parallel simulations (default: all cores)")
      ("shard", po::value(&shard_text), "I/N: only the I-th of N blocks of the depth-1 points, with everything below them")
      ("out", po::value(&out_dir), "where failure files go (default ./failures; --out \"\" writes none)")
      ("properties", po::value(&properties_text), "the properties that count as failures (default: what the recipe promises)")
      ("bug", po::value(&bugs)->composing(), "a bug switch to turn on in the scenario (repeatable)")
      ("quiet", po::bool_switch(&quiet), "no progress display")
      ("json", po::bool_switch(&json), "print the summary as one JSON object on the last line");
  add_zookeeper_version_option(options, zookeeper_version);
  LimitOptions limits;
  po::positional_options_description positional;
  positional.add("file", 1);
  add_limit_options(options, limits, true);
  po::variables_map values;
  if (!parse_options("explore", "--systematic [FILE] [--depth K] [--fault crash|power_off|isolate] [--restart-after D] [--sites LIST] [--nodes LIST] "
                                "[--no-prune] [--max-runs N] [--stop-at-first] [--jobs J] [--shard I/N] [--out DIR] [--properties LIST] "
                                "[--bug B]... [--zookeeper-version V] [--quiet] [--json]",
                     arguments, options, positional, values)) {
    return exit_ok;
  }

  harness::SystematicOptions search;
  search.base = file.empty() ? harness::systematic_default_scenario() : load_scenario(file, file_size_limit("explore", limits));
  apply_zookeeper_version("explore", zookeeper_version, search.base);
  for (const std::string& bug : bugs) {
    if (!harness::is_known_bug(bug)) throw UsageError("explore: unknown bug switch '" + bug + "' (see: electsim bugs)");
    if (!harness::bug_applies_to(bug, search.base.recipe)) {
      throw UsageError("explore: bug switch '" + bug + "' is for " + harness::bug_recipes(bug) + ", not recipe " +
                       std::string(harness::recipe_name(search.base.recipe)));
    }
    if (std::find(search.base.bugs.begin(), search.base.bugs.end(), bug) == search.base.bugs.end()) search.base.bugs.push_back(bug);
  }
  if (depth < 1 || depth > 3) throw UsageError("explore: --depth must be 1, 2 or 3, got " + std::to_string(depth));
  if (fault_text == "crash") {
    search.fault = harness::FaultKind::crash;
  } else if (fault_text == "power_off") {
    search.fault = harness::FaultKind::power_off;
  } else if (fault_text == "isolate") {
    search.fault = harness::FaultKind::isolate;
  } else {
    throw UsageError("explore: --fault takes crash, power_off or isolate, got '" + fault_text + "'");
  }
  std::optional<sim::Duration> restart_after = sim::parse_duration(restart_text);
  if (!restart_after || *restart_after <= sim::Duration::zero() || *restart_after > harness::duration_max) {
    throw UsageError("explore: --restart-after takes a duration above 0s such as 1s or 500ms, got '" + restart_text + "'");
  }
  for (const std::string& kind : split_list(sites_text)) {
    const harness::TriggerKind* known = harness::find_trigger_kind(kind);
    if (known == nullptr) throw UsageError("explore: --sites: unknown site or event '" + kind + "' (see: electsim sites --events)");
    if (!harness::trigger_kind_in_recipe(*known, search.base.recipe)) {
      throw UsageError("explore: --sites: no node emits '" + kind + "' with recipe " + std::string(harness::recipe_name(search.base.recipe)));
    }
    search.sites.push_back(kind);
  }
  if (values.count("sites") != 0 && search.sites.empty()) throw UsageError("explore: --sites needs at least one site");
  for (const std::string& node : split_list(nodes_text)) search.nodes.push_back(node);
  if (values.count("nodes") != 0 && search.nodes.empty()) throw UsageError("explore: --nodes needs at least one node");
  for (const std::string& name : split_list(properties_text)) {
    if (!harness::is_known_property(name)) throw UsageError("explore: unknown property '" + name + "' (see: electsim properties)");
    search.properties.push_back(name);
  }
  if (max_runs == 0 || max_runs > 100'000'000) throw UsageError("explore: --max-runs must be within 1..100000000");
  if (jobs == 0 || jobs > 1024) throw UsageError("explore: --jobs must be within 1..1024");
  if (!shard_text.empty()) parse_shard_text(shard_text, search.shard_index, search.shard_count);
  search.depth = depth;
  search.restart_after = *restart_after;
  search.prune = !no_prune;
  search.max_runs = max_runs;
  search.stop_at_first_failure = stop_at_first;
  search.jobs = jobs;
  search.out_dir = out_dir;
  search.limits = simulation_limits("explore", limits);
  search.found_by = "electsim explore";
  for (const std::string& argument : arguments) search.found_by += " " + argument;
  if (!out_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(out_dir, error);
    if (error || !std::filesystem::is_directory(out_dir, error) || access(out_dir.c_str(), W_OK | X_OK) != 0) {
      throw UsageError("explore: --out " + out_dir + ": cannot write failure files there");
    }
  }

  stop_requested.store(false);
  auto previous_interrupt = std::signal(SIGINT, on_systematic_interrupt);
  auto previous_terminate = std::signal(SIGTERM, on_systematic_interrupt);
  SystematicProgressDisplay display(quiet);
  harness::SystematicSummary summary = harness::explore_systematic(search, std::ref(display), stop_requested);
  std::signal(SIGINT, previous_interrupt);
  std::signal(SIGTERM, previous_terminate);
  if (summary.interrupted) std::cerr << "\nexplore: interrupted; the summary covers the runs that finished\n";
  if (json) {
    std::cout << harness::toJson(summary).dump() << "\n";
  } else {
    harness::printSummary(summary, std::cout);
  }
  return summary.failures == 0 ? exit_ok : exit_failed;
}

}  // namespace cli
