// electsim explore: randomized fault schedules (swarm testing), in parallel, with a progress bar;
// electsim merge: combines the JSON summaries of a sweep cut into shards.
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

#include "cli/command.h"
#include "cli/limits.h"
#include "harness/atomic_file.h"
#include "harness/explore.h"
#include "harness/registry.h"
#include "harness/systematic.h"
#include "sim/time.h"

namespace cli {

namespace {

std::atomic<bool> interrupted{false};

// Ctrl-C (SIGINT) and SIGTERM (a batch system's or Kubernetes's stop): finish the runs in flight,
// keep every failure file, print the summary. A second signal of the same kind ends the process at once.
extern "C" void on_interrupt(int signal_number) {
  interrupted.store(true);
  std::signal(signal_number, SIG_DFL);
}

harness::Recipe parse_recipe(const std::string& name) {
  auto recipe = harness::recipe_from_name(name);
  if (!recipe) throw UsageError("explore: unknown recipe '" + name + "' (none, elasticjob, leader-latch, leader-selector, naive-master, es-zen)");
  return *recipe;
}

std::vector<harness::FaultKind> parse_faults(const std::string& list, harness::Recipe recipe) {
  std::vector<harness::FaultKind> kinds;
  std::vector<harness::FaultKind> possible = harness::fault_kinds_for(recipe);
  possible.push_back(harness::FaultKind::restart);
  for (const std::string& name : split_list(list)) {
    auto kind = harness::fault_kind_from_name(name);
    if (!kind || *kind == harness::FaultKind::heal || *kind == harness::FaultKind::enable) {
      throw UsageError("explore: unknown fault kind '" + name +
                       "' (crash, power_off, restart, pause, partition, isolate, bridge, drop, disable, shutdown, set_sharding_total_count)");
    }
    if (std::find(possible.begin(), possible.end(), *kind) == possible.end()) {
      throw UsageError("explore: fault kind '" + name + "' does not apply to recipe " + std::string(harness::recipe_name(recipe)));
    }
    if (std::find(kinds.begin(), kinds.end(), *kind) != kinds.end()) throw UsageError("explore: fault kind '" + name + "' is listed twice");
    kinds.push_back(*kind);
  }
  return kinds;
}

void parse_shard(const std::string& text, harness::ExploreOptions& options) {
  unsigned index = 0, count = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> index >> slash >> count) || slash != '/' || !in.eof() || count == 0 || index == 0 || index > count) {
    throw UsageError("explore: --shard takes I/N with 1 <= I <= N, got '" + text + "'");
  }
  options.shard_index = index;
  options.shard_count = count;
}

// Failure files go to --out: made now, so a path that cannot be a directory is bad input said at
// once, not an internal error after the first failing run.
void prepare_out_dir(const std::string& out_dir) {
  std::error_code error;
  std::filesystem::create_directories(out_dir, error);
  if (!error && !std::filesystem::is_directory(out_dir, error)) error = std::make_error_code(std::errc::not_a_directory);
  if (!error && access(out_dir.c_str(), W_OK | X_OK) != 0) error = std::error_code(errno, std::generic_category());
  if (error) throw UsageError("explore: --out " + out_dir + ": cannot write failure files there: " + error.message());
  harness::remove_stale_temporaries(out_dir);  // a SIGKILLed sweep's, of a process that is gone
}

// On a terminal: one line redrawn in place. Otherwise: a plain line every 10 s.
class ProgressDisplay {
 public:
  explicit ProgressDisplay(bool quiet) : terminal_(!quiet && isatty(STDERR_FILENO) != 0), quiet_(quiet) {}
  void operator()(const harness::ExploreProgress& now) {
    if (quiet_) return;
    double rate = now.wall_seconds > 0 ? static_cast<double>(now.done) / now.wall_seconds : 0.0;
    double eta = rate > 0 ? static_cast<double>(now.total - now.done) / rate : 0.0;
    std::ostringstream line;
    line << now.done << "/" << now.total << " runs  " << std::fixed << std::setprecision(0) << rate << " runs/s  failures "
         << now.failures << "  ETA " << std::setprecision(1) << eta << " s";
    if (terminal_) {
      constexpr int width = 30;
      int filled = now.total == 0 ? width : static_cast<int>(width * now.done / now.total);
      std::cerr << "\r[" << std::string(static_cast<std::size_t>(filled), '#') << std::string(static_cast<std::size_t>(width - filled), '.')
                << "] " << line.str() << "   " << std::flush;
      if (now.done == now.total) std::cerr << "\n";
    } else if (now.wall_seconds - last_line_ >= 10.0 || (now.done == now.total && !ended_)) {
      std::cerr << "explore: " << line.str() << "\n";
      last_line_ = now.wall_seconds;
      ended_ = now.done == now.total;
    }
  }

 private:
  bool terminal_;
  bool quiet_;
  double last_line_ = 0;
  bool ended_ = false;
};

std::string command_line(const Arguments& arguments) {
  std::string text = "electsim explore";
  for (const std::string& argument : arguments) text += " " + argument;
  return text;
}

}  // namespace

int command_explore(const Arguments& arguments) {
  if (std::find(arguments.begin(), arguments.end(), "--systematic") != arguments.end()) return command_systematic(arguments);
  std::string recipe_text;
  std::uint64_t runs = 1000;
  Seed seed_option{1};
  unsigned jobs = std::max(1u, std::thread::hardware_concurrency());
  std::string duration_text = "60s";
  std::string faults_text;
  std::string properties_text;
  std::vector<std::string> bugs;
  std::string out_dir = "failures";
  std::string shard_text;
  bool json = false;
  bool quiet = false;
  bool stop_at_first = false;
  bool check_determinism = false;
  bool timed_only = false;
  std::string zookeeper_version;
  po::options_description options("explore options");
  options.add_options()
      ("recipe", po::value(&recipe_text), "none | elasticjob | leader-latch | leader-selector | naive-master | es-zen (default: "
                                          "elasticjob, or the first that runs every --bug)")
      ("runs", po::value(&runs), "how many runs (default 1000)")
      ("seed", po::value(&seed_option), "run i uses seed S+i (default 1)")
      ("jobs", po::value(&jobs), "parallel simulations (default: all cores)")
      ("duration", po::value(&duration_text), "simulated time per run (default 60s): faults in the first half, then a liveness tail")
      ("faults", po::value(&faults_text), "the fault kinds runs draw from, comma-separated (default: all that apply)")
      ("properties", po::value(&properties_text), "the properties that count as failures (default: what the recipe promises)")
      ("bug", po::value(&bugs)->composing(), "a bug switch to turn on (repeatable)")
      ("out", po::value(&out_dir), "where failure files go (default ./failures; --out \"\" writes none)")
      ("shard", po::value(&shard_text), "I/N: run only the I-th of N equal blocks of the runs")
      ("stop-at-first", po::bool_switch(&stop_at_first), "stop once the lowest failing seed is known (the same first failure as a full sweep)")
      ("check-determinism", po::bool_switch(&check_determinism),
       "run every seed twice, the second time in another thread with another heap layout; a difference is a model-sanity failure")
      ("systematic", "enumerate crash points instead of drawing faults: electsim explore --systematic --help")
      ("timed-faults-only", po::bool_switch(&timed_only), "draw faults at times only, none at protocol steps (the swarm before step triggers)")
      ("quiet", po::bool_switch(&quiet), "no progress display")
      ("json", po::bool_switch(&json), "print the summary as one JSON object on the last line");
  add_zookeeper_version_option(options, zookeeper_version);
  LimitOptions limits;
  add_limit_options(options, limits, false);
  po::variables_map values;
  if (!parse_options("explore", "[--recipe R] [--runs N] [--seed S] [--jobs J] [--duration T] [--faults LIST] [--properties LIST] "
                                "[--bug B]... [--out DIR] [--shard I/N] [--stop-at-first] [--check-determinism] [--timed-faults-only] [--quiet] [--max-...] [--json]",
                     arguments, options, {}, values)) {
    return exit_ok;
  }

  const std::uint64_t seed = seed_option.value;
  harness::ExploreOptions explore;
  for (const std::string& bug : bugs) {
    if (!harness::is_known_bug(bug)) throw UsageError("explore: unknown bug switch '" + bug + "' (see: electsim bugs)");
  }
  if (values.count("recipe") != 0 && recipe_text.empty()) throw UsageError("explore: --recipe needs a recipe's name (see: electsim explore --help)");
  if (!recipe_text.empty()) {
    explore.swarm.recipe = parse_recipe(recipe_text);
  } else if (!bugs.empty()) {
    std::optional<harness::Recipe> recipe = harness::recipe_for_bugs(bugs);
    if (!recipe) throw UsageError("explore: no recipe runs all of these bug switches; explore them one recipe at a time");
    explore.swarm.recipe = *recipe;
  }
  for (std::size_t at = 0; at < bugs.size(); at++) {
    if (std::find(bugs.begin(), bugs.begin() + static_cast<std::ptrdiff_t>(at), bugs[at]) != bugs.begin() + static_cast<std::ptrdiff_t>(at)) {
      throw UsageError("explore: bug switch '" + bugs[at] + "' is given twice");
    }
    if (!harness::bug_applies_to(bugs[at], explore.swarm.recipe)) {
      throw UsageError("explore: bug switch '" + bugs[at] + "' is for " + harness::bug_recipes(bugs[at]) + ", not recipe " +
                       std::string(harness::recipe_name(explore.swarm.recipe)) + ", which would run without it");
    }
  }
  explore.swarm.bugs = bugs;
  explore.swarm.step_faults = !timed_only;
  if (!zookeeper_version.empty()) explore.swarm.zookeeper_version = checked_zookeeper_version("explore", zookeeper_version);
  std::optional<sim::Duration> duration = sim::parse_duration(duration_text);
  if (!duration) throw UsageError("explore: --duration takes a duration such as 60s or 2m, got '" + duration_text + "'");
  explore.swarm.duration = *duration;
  if (explore.swarm.duration < std::chrono::seconds(2) || explore.swarm.duration > harness::duration_max) {
    throw UsageError("explore: --duration must be within 2s..24h");
  }
  if (values.count("faults") != 0 && faults_text.empty()) throw UsageError("explore: --faults needs at least one fault kind");
  if (values.count("properties") != 0 && properties_text.empty()) throw UsageError("explore: --properties needs at least one property");
  if (!faults_text.empty()) explore.swarm.faults = parse_faults(faults_text, explore.swarm.recipe);
  if (!properties_text.empty()) {
    for (const std::string& name : split_list(properties_text)) {
      if (!harness::is_known_property(name)) throw UsageError("explore: unknown property '" + name + "' (see: electsim properties)");
      if (!harness::property_applies_to(name, explore.swarm.recipe)) {
        throw UsageError("explore: property '" + name + "' is judged in runs of " + harness::property_recipes(name) + ", not recipe " +
                         std::string(harness::recipe_name(explore.swarm.recipe)) + ": every run would pass it unjudged");
      }
      explore.properties.push_back(name);
    }
  }
  if (runs == 0 || runs > 100'000'000) throw UsageError("explore: --runs must be within 1..100000000");
  if (jobs == 0 || jobs > 1024) throw UsageError("explore: --jobs must be within 1..1024");
  // Seeds seed..seed+runs-1, and the summary's end, seed+runs, must not wrap round.
  if (runs > std::numeric_limits<std::uint64_t>::max() - seed) {
    throw UsageError("explore: --seed " + std::to_string(seed) + " with --runs " + std::to_string(runs) +
                     " goes past the last seed a sweep can run, 18446744073709551614");
  }
  if (!shard_text.empty()) parse_shard(shard_text, explore);
  explore.runs = runs;
  explore.seed = seed;
  explore.jobs = jobs;
  explore.out_dir = out_dir;
  explore.found_by = command_line(arguments);
  explore.stop_at_first_failure = stop_at_first;
  explore.check_determinism = check_determinism;
  explore.limits = simulation_limits("explore", limits);
  if (!out_dir.empty()) prepare_out_dir(out_dir);  // last: bad input leaves no directory behind

  interrupted.store(false);
  auto previous_interrupt = std::signal(SIGINT, on_interrupt);
  auto previous_terminate = std::signal(SIGTERM, on_interrupt);
  ProgressDisplay display(quiet);
  harness::ExploreSummary summary = harness::explore(explore, std::ref(display), interrupted);
  std::signal(SIGINT, previous_interrupt);
  std::signal(SIGTERM, previous_terminate);
  if (summary.out_of_memory) {
    std::cerr << "\nexplore: out of memory with --jobs " << jobs << " (each run may grow its heap up to --max-memory, "
              << explore.limits.max_memory_bytes / (1024 * 1024) << " MiB): the sweep stopped; the summary covers the runs that finished. "
              << "Lower --jobs or --max-memory, or give the process more memory\n";
  } else if (summary.interrupted) {
    std::cerr << "\nexplore: interrupted; the summary covers the runs that finished\n";
  }
  if (json) {
    std::cout << harness::toJson(summary).dump() << "\n";
  } else {
    harness::printSummary(summary, std::cout);
  }
  if (summary.out_of_memory) return exit_bad_input;
  return summary.failures == 0 ? exit_ok : exit_failed;
}

namespace {

// The shards of one sweep cover disjoint blocks of its seeds: a file given twice would count its
// runs twice (and change the combined trace hash), and a shard of another sweep does not belong, so
// both are refused. Seeds of the sweep no summary covers (a shard missing, or not yet done) are
// merged with a warning naming them.
void require_disjoint(const std::vector<std::string>& files, const std::vector<harness::ExploreSummary>& shards) {
  auto seeds = [](std::uint64_t first, std::uint64_t end) { return std::to_string(first) + ".." + std::to_string(end - 1); };
  // The shards of the sweep whose blocks a gap holds, when the summaries say how many there were.
  auto missing_shards = [&](std::uint64_t first, std::uint64_t end) {
    unsigned count = shards[0].shard_count;
    std::uint64_t sweep_first = shards[0].sweep_first, sweep_end = shards[0].sweep_end;
    if (count <= 1 || sweep_end <= sweep_first) return std::string();
    std::uint64_t runs = sweep_end - sweep_first;
    std::string names;
    for (unsigned index = 1; index <= count; index++) {
      std::uint64_t block_first = sweep_first + runs * (index - 1) / count, block_end = sweep_first + runs * index / count;
      if (block_first < end && first < block_end) names += (names.empty() ? "" : ", ") + std::to_string(index) + "/" + std::to_string(count);
    }
    return names.empty() ? std::string() : " (shard " + names + ")";
  };
  auto gap = [&](std::uint64_t first, std::uint64_t end, const std::string& where) {
    std::cerr << "electsim: merge: warning: no summary covers seeds " << seeds(first, end) << missing_shards(first, end) << ", " << where
              << " (a shard missing?); the merged runs leave them out\n";
  };
  std::vector<std::size_t> order;
  for (std::size_t index = 0; index < shards.size(); index++) {
    // The same sweep beyond its seeds: a shard of another recipe, duration, version or bug set does not belong.
    const auto& identity = shards[index].sweep;
    const auto& reference = shards[0].sweep;
    if (!identity.is_null() && !reference.is_null() && identity != reference) {
      std::string differs;
      for (const auto& [key, value] : reference.items()) {
        if (!identity.contains(key) || identity.at(key) != value) {
          differs = key + " " + value.dump() + " and " + (identity.contains(key) ? identity.at(key).dump() : std::string("none"));
          break;
        }
      }
      throw UsageError("merge: " + files[0] + " and " + files[index] + " are shards of different sweeps (" + (differs.empty() ? "their settings differ" : differs) +
                       "): the shards of one sweep merge, not of two");
    }
    if (shards[index].shard_count != shards[0].shard_count && shards[index].shard_count > 1 && shards[0].shard_count > 1) {
      throw UsageError("merge: " + files[0] + " is a shard of " + std::to_string(shards[0].shard_count) + " and " + files[index] + " of " +
                       std::to_string(shards[index].shard_count) + ": the shards of one sweep have one --shard I/N count");
    }
    if (shards[index].interrupted) {
      std::uint64_t block = shards[index].seed_end - shards[index].seed_first;
      std::cerr << "electsim: merge: warning: " << files[index] << " was interrupted: " << shards[index].runs << " of the " << block
                << " runs of seeds " << seeds(shards[index].seed_first, shards[index].seed_end)
                << " finished (not the first ones in order); run that shard again for the whole sweep\n";
    }
    if (shards[index].seed_end > shards[index].seed_first) order.push_back(index);
    // Summaries from before the sweep was recorded (0..0) are merged as they are.
    if (shards[index].sweep_end == 0 || shards[0].sweep_end == 0) continue;
    if (shards[index].sweep_first != shards[0].sweep_first || shards[index].sweep_end != shards[0].sweep_end) {
      throw UsageError("merge: " + files[0] + " is a shard of seeds " + seeds(shards[0].sweep_first, shards[0].sweep_end) + " and " +
                       files[index] + " of seeds " + seeds(shards[index].sweep_first, shards[index].sweep_end) +
                       ": the shards of one sweep (the same --seed and --runs) merge, not of two");
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return shards[a].seed_first < shards[b].seed_first;
  });
  if (order.empty()) return;
  const harness::ExploreSummary& first = shards[order.front()];
  const harness::ExploreSummary& last = shards[order.back()];
  if (first.sweep_end != 0 && first.seed_first > first.sweep_first) {
    gap(first.sweep_first, first.seed_first, "before " + files[order.front()]);
  }
  for (std::size_t at = 1; at < order.size(); at++) {
    const harness::ExploreSummary& before = shards[order[at - 1]];
    const harness::ExploreSummary& after = shards[order[at]];
    if (after.seed_first < before.seed_end) {
      throw UsageError("merge: " + files[order[at - 1]] + " (seeds " + seeds(before.seed_first, before.seed_end) + ") and " +
                       files[order[at]] + " (seeds " + seeds(after.seed_first, after.seed_end) +
                       ") overlap: each shard of a sweep once (explore --shard I/N for I = 1..N)");
    }
    if (after.seed_first > before.seed_end) gap(before.seed_end, after.seed_first, "between " + files[order[at - 1]] + " and " + files[order[at]]);
  }
  if (last.sweep_end != 0 && last.seed_end < last.sweep_end) gap(last.seed_end, last.sweep_end, "after " + files[order.back()]);
}

// The shards of one systematic search: the same scenario, depth and level-1 points, disjoint blocks;
// a gap (a shard missing) is said, as for sweeps.
void require_one_search(const std::vector<std::string>& files, const std::vector<harness::SystematicSummary>& shards) {
  std::vector<std::size_t> order(shards.size());
  for (std::size_t index = 0; index < shards.size(); index++) {
    order[index] = index;
    const harness::SystematicSummary& first = shards[0];
    const harness::SystematicSummary& shard = shards[index];
    if (shard.scenario != first.scenario || shard.depth != first.depth || shard.roots != first.roots) {
      throw UsageError("merge: " + files[0] + " and " + files[index] +
                       " are shards of different systematic searches (scenario, --depth or the points differ)");
    }
  }
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return shards[a].roots_first < shards[b].roots_first; });
  std::uint64_t covered = 0;
  for (std::size_t index : order) {
    const harness::SystematicSummary& shard = shards[index];
    if (shard.roots_first < covered) {
      throw UsageError("merge: " + files[index] + " overlaps another shard of the search (each --shard I/N once)");
    }
    if (shard.roots_first > covered) {
      std::cerr << "electsim: merge: warning: no summary covers depth-1 points " << covered << ".." << shard.roots_first - 1
                << " of the search (a shard missing?); the merged runs leave them out\n";
    }
    covered = shard.roots_end;
  }
  if (covered < shards[0].roots) {
    std::cerr << "electsim: merge: warning: no summary covers depth-1 points " << covered << ".." << shards[0].roots - 1
              << " of the search (a shard missing?); the merged runs leave them out\n";
  }
}

}  // namespace

int command_merge(const Arguments& arguments) {
  std::vector<std::string> files;
  bool json = false;
  po::options_description options("merge options");
  options.add_options()
      ("file", po::value(&files)->composing(), "explore --json outputs (the last line of each file is used)")
      ("json", po::bool_switch(&json), "print the merged summary as one JSON object");
  po::positional_options_description positional;
  positional.add("file", -1);
  po::variables_map values;
  if (!parse_options("merge", "FILE... [--json]", arguments, options, positional, values)) return exit_ok;
  if (files.empty()) throw UsageError("merge: at least one summary file is required (see: electsim merge --help)");
  std::vector<harness::ExploreSummary> shards;
  std::vector<harness::SystematicSummary> searches;
  for (const std::string& file : files) {
    std::error_code ignored;
    if (std::filesystem::is_directory(file, ignored)) throw FileError(file + ": is a directory, not an explore --json summary");
    std::ifstream in(file);
    if (!in) throw FileError(file + ": cannot open: " + std::strerror(errno));
    std::string line, last;
    int number = 0, last_number = 0;
    while (std::getline(in, line)) {
      number++;
      if (line.find_first_not_of(" \t\r") != std::string::npos) {  // blank lines after the summary are not it
        last = line;
        last_number = number;
      }
    }
    if (last_number == 0) throw FileError(file + ": is empty, not an explore --json summary");
    try {
      nlohmann::json parsed = nlohmann::json::parse(last);
      if (parsed.is_object() && parsed.value("mode", std::string()) == "systematic") {
        searches.push_back(harness::systematic_summary_from_json(parsed));
      } else {
        shards.push_back(harness::summary_from_json(parsed));
      }
    } catch (const std::exception& error) {
      throw FileError(file + ":" + std::to_string(last_number) + ":1: " + error.what());
    }
  }
  if (!searches.empty()) {
    if (!shards.empty()) throw UsageError("merge: the files mix explore sweeps and systematic searches; merge each kind on its own");
    require_one_search(files, searches);
    harness::SystematicSummary merged = harness::merge_systematic(searches);
    if (json) {
      std::cout << harness::toJson(merged).dump() << "\n";
    } else {
      harness::printSummary(merged, std::cout);
    }
    return merged.failures == 0 ? exit_ok : exit_failed;
  }
  require_disjoint(files, shards);
  harness::ExploreSummary merged;
  try {
    merged = harness::merge_summaries(shards, files);
  } catch (const std::overflow_error& error) {
    throw UsageError("merge: " + std::string(error.what()));
  }
  if (json) {
    std::cout << harness::toJson(merged).dump() << "\n";
  } else {
    harness::printSummary(merged, std::cout);
  }
  return merged.failures == 0 ? exit_ok : exit_failed;
}

}  // namespace cli
