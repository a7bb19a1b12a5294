#include "harness/explore.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <mutex>
#include <new>
#include <limits>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>

#include "harness/failure_writer.h"
#include "harness/recipe.h"
#include "harness/registry.h"
#include "harness/scenario_writer.h"
#include "sim/random.h"
#include "sim/trace.h"

namespace harness {

namespace {

// ZooKeeper's own promises hold under every recipe that runs on it.
const std::vector<std::string> zookeeper_promises{"zab-single-leader", "zab-agreement", "ephemeral-cleanup", "watch-once"};

bool contains(const std::vector<std::string>& names, std::string_view name) {
  return std::find(names.begin(), names.end(), name) != names.end();
}

std::string failure_file_name(const ExploreRun& run) {
  return run.scenario.name + "-" + run.failed_property + ".yaml";
}

}  // namespace

std::vector<std::string> promised_properties(Recipe recipe) {
  Scenario probe;
  probe.recipe = recipe;
  std::vector<std::string> names = makeRecipeDriver(probe)->promisedProperties();
  if (recipe != Recipe::es_zen) {
    for (const std::string& name : zookeeper_promises) {
      if (!contains(names, name)) names.push_back(name);
    }
  }
  names.emplace_back("model-sanity");
  return names;
}

std::uint64_t combine_run_hash(std::uint64_t seed, std::uint64_t run_hash) { return sim::mix64(seed ^ sim::mix64(run_hash)); }

ExploreRun explore_one(const ExploreOptions& options, std::uint64_t seed) {
  ExploreRun run;
  run.scenario = generate_scenario(options.swarm, seed);
  std::vector<std::string> counted = options.properties.empty() ? promised_properties(options.swarm.recipe) : options.properties;
  RunOptions run_options;
  run_options.limits = options.limits;
  run_options.test_hook = options.test_hook;
  run_options.timeline = false;
  run_options.only_listed_properties = true;
  // Every known property is observed; the counted ones decide failure.
  for (const Entry& entry : properties()) run_options.properties.emplace_back(entry.name);
  try {
    run.result = runScenario(run.scenario, run_options);
  } catch (const std::exception& error) {
    // An exception escaping a model is a finding about the model, like a failed assertion.
    run.result.scenario = run.scenario.name;
    run.result.seed = seed;
    run.result.finding = error.what();
    run.result.properties["model-sanity"] = properties::Verdict::violated;
    run.result.violations.push_back(properties::Violation{"model-sanity", sim::epoch, std::string("uncaught exception: ") + error.what()});
  }
  for (const properties::Violation& violation : run.result.violations) {  // sorted by time
    if (!contains(counted, violation.property)) continue;
    run.failed_property = violation.property;
    run.message = violation.message;
    run.time = sim::format_instant(violation.time);
    break;
  }
  return run;
}

namespace {

// The heap a second run starts with: a seed-dependent number of live blocks of assorted sizes, so
// that its allocations land at other addresses, in another order, than the first run's did.
std::vector<std::unique_ptr<char[]>> layout_padding(std::uint64_t seed) {
  std::vector<std::unique_ptr<char[]>> blocks;
  std::uint64_t state = sim::mix64(seed ^ 0x5eed5eed5eed5eedULL);
  std::size_t count = 16 + state % 240;
  for (std::size_t i = 0; i < count; i++) {
    state = sim::mix64(state + i);
    blocks.push_back(std::make_unique<char[]>(8 + state % 4096));
  }
  return blocks;
}

// explore_one, and with check_determinism the same seed again in a fresh thread: a different trace
// hash or event count is a failure of electsim itself, reported as model-sanity with the seed.
ExploreRun explore_seed(const ExploreOptions& options, std::uint64_t seed) {
  ExploreRun run = explore_one(options, seed);
  if (!options.check_determinism) return run;
  std::uint64_t again_hash = 0;
  std::uint64_t again_events = 0;
  std::thread([&] {
    std::vector<std::unique_ptr<char[]>> padding = layout_padding(seed);
    ExploreRun again = explore_one(options, seed);
    again_hash = again.result.trace_hash;
    again_events = again.result.events;
  }).join();
  if (again_hash == run.result.trace_hash && again_events == run.result.events) return run;
  run.failed_property = "model-sanity";
  run.message = "nondeterminism: seed " + std::to_string(seed) + " ran twice with different results (trace hash " +
                sim::format_hash(run.result.trace_hash) + " with " + std::to_string(run.result.events) + " events, then " +
                sim::format_hash(again_hash) + " with " + std::to_string(again_events) +
                " events): electsim itself is not deterministic";
  run.time = sim::format_instant(sim::epoch + run.scenario.duration);
  run.result.properties["model-sanity"] = properties::Verdict::violated;
  return run;
}

}  // namespace

Scenario failure_scenario(const ExploreRun& run, const std::string& found_by, const sim::SimulationLimits& limits) {
  Scenario scenario = run.scenario;
  scenario.description += "\nFound by electsim explore: " + run.failed_property + " violated at " + run.time + ": " + run.message;
  scenario.expect.hold = {run.failed_property};
  // With the run's limits, so that a limit hit replays as one.
  scenario.failure = FailureRecord{run.failed_property, sim::format_hash(run.result.trace_hash), found_by, limits_to_record(limits)};
  return scenario;
}

ExploreSummary explore(const ExploreOptions& options, const std::function<void(const ExploreProgress&)>& progress,
                       const std::atomic<bool>& stop) {
  ELECTSIM_ASSERT(options.shard_count >= 1 && options.shard_index >= 1 && options.shard_index <= options.shard_count);
  ELECTSIM_ASSERT(options.jobs >= 1);
  auto wall_start = std::chrono::steady_clock::now();
  // This shard's contiguous block of run indices.
  std::uint64_t first = options.runs * (options.shard_index - 1) / options.shard_count;
  std::uint64_t end = options.runs * options.shard_index / options.shard_count;
  std::uint64_t total = end - first;

  // What the summary needs, gathered as runs finish: sums (independent of the order runs finish in),
  // which runs finished, and the failure with the lowest seed. Nothing per run but one bit, so a
  // sweep of any length fits in memory.
  std::vector<bool> completed(total, false);
  ExploreSummary summary;
  std::uint64_t sim_nanoseconds = 0;  // exact, so the sum does not depend on the finishing order
  std::uint64_t first_failure_index = total;
  std::atomic<std::uint64_t> next{0};
  std::mutex mutex;  // guards the summary, `completed`, and the progress counters
  std::condition_variable finished;
  unsigned running_workers = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(std::max<std::uint64_t>(total, 1))));
  unsigned workers_left = running_workers;
  std::vector<std::string> counted = options.properties.empty() ? promised_properties(options.swarm.recipe) : options.properties;
  std::optional<FailureWriter> writer;
  if (!options.out_dir.empty()) {
    std::filesystem::create_directories(options.out_dir);
    writer.emplace();
  }

  std::atomic<std::uint64_t> lowest_failure{total};  // index of the lowest failing run so far
  // Out of memory in a worker (under `ulimit -v` with many --jobs; each run may grow its heap up to
  // --max-memory): the sweep stops as if interrupted and says why, never std::terminate.
  std::atomic<bool> out_of_memory{false};
  auto work = [&] {
    while (!stop.load() && !out_of_memory.load()) {
      std::uint64_t index = next.fetch_add(1);
      if (index >= total) break;
      if (options.stop_at_first_failure && index > lowest_failure.load()) break;  // indices only grow
      std::uint64_t seed = options.seed + first + index;
      ExploreRun run = explore_seed(options, seed);
      std::string file;
      if (!run.failed_property.empty() && !options.out_dir.empty()) {
        // Written whole or not at all (atomic_file.h) by the writer's thread, which syncs it to disk
        // there; an interrupted sweep still keeps every failure it found (finish() below). File
        // names differ by seed. A file that cannot be written is taken out of the summary below.
        file = (std::filesystem::path(options.out_dir) / failure_file_name(run)).string();
        writer->submit(file, write_scenario(failure_scenario(run, options.found_by, options.limits)),
                       "seed " + std::to_string(seed) + " failed " + run.failed_property);
      }
      if (!run.failed_property.empty()) {
        std::uint64_t known = lowest_failure.load();
        while (index < known && !lowest_failure.compare_exchange_weak(known, index)) {
        }
      }
      std::lock_guard lock(mutex);
      completed[index] = true;
      summary.runs++;
      summary.events += run.result.events;
      sim_nanoseconds += static_cast<std::uint64_t>(std::llround(run.result.sim_seconds * 1e9));
      summary.trace_hash += combine_run_hash(seed, run.result.trace_hash);
      for (const auto& [name, verdict] : run.result.properties) {
        if (verdict == properties::Verdict::violated && !contains(counted, name)) summary.observed[name]++;
      }
      if (!run.failed_property.empty()) {
        summary.failures++;
        summary.failures_by_property[run.failed_property]++;
        if (index < first_failure_index) {
          first_failure_index = index;
          summary.first_failure = FailureSummary{seed, run.failed_property, run.message, run.time, file};
        }
      }
      finished.notify_all();
    }
  };
  auto worker = [&] {
    try {
      work();
    } catch (const std::bad_alloc&) {
      out_of_memory.store(true);  // the run in flight is not counted
    }
    std::lock_guard lock(mutex);
    workers_left--;
    finished.notify_all();
  };

  std::vector<std::jthread> threads;
  for (unsigned i = 0; i < running_workers; i++) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      // The system gives fewer threads than --jobs asks for (a thread's stack counts against
      // `ulimit -v`): the sweep runs on those it got.
      std::lock_guard lock(mutex);
      workers_left -= running_workers - i;
      break;
    }
  }
  if (threads.empty()) throw std::runtime_error("explore: cannot start a worker thread (lower --jobs, or raise ulimit -v / -u)");
  {
    std::unique_lock lock(mutex);
    while (workers_left > 0) {
      finished.wait_for(lock, std::chrono::milliseconds(200));
      ExploreProgress now{summary.runs, total, summary.failures,
                          std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count()};
      lock.unlock();
      progress(now);
      lock.lock();
    }
  }
  threads.clear();
  if (out_of_memory.load()) {
    summary.interrupted = true;
    summary.out_of_memory = true;
  }
  if (writer) {
    writer->finish();
    if (summary.first_failure && writer->failed(summary.first_failure->file)) summary.first_failure->file.clear();
  }

  summary.seed_first = options.seed + first;
  summary.seed_end = options.seed + end;
  summary.sweep_first = options.seed;
  summary.sweep_end = options.seed + options.runs;
  summary.sweep = sweep_identity(options);
  summary.shard_index = options.shard_index;
  summary.shard_count = options.shard_count;
  summary.sim_seconds = static_cast<double>(sim_nanoseconds) / 1e9;
  for (std::uint64_t index = 0; index < total; index++) {
    if (completed[index]) continue;
    std::uint64_t seed = summary.seed_first + index;
    if (!summary.not_run.empty() && summary.not_run.back().end == seed) {
      summary.not_run.back().end++;
    } else {
      summary.not_run.push_back(SeedRange{seed, seed + 1});
    }
    if (options.stop_at_first_failure && index > lowest_failure.load()) {
      summary.stopped_at_first_failure = true;
    } else {
      summary.interrupted = true;
    }
  }
  summary.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  progress(ExploreProgress{summary.runs, total, summary.failures, summary.wall_seconds});
  return summary;
}

nlohmann::ordered_json sweep_identity(const ExploreOptions& options) {
  nlohmann::ordered_json faults = nlohmann::ordered_json::array();
  for (FaultKind kind : options.swarm.faults) faults.push_back(std::string(fault_kind_name(kind)));
  nlohmann::ordered_json properties = nlohmann::ordered_json::array();
  for (const std::string& name : options.properties) properties.push_back(name);
  return {{"recipe", std::string(recipe_name(options.swarm.recipe))},
          {"duration", sim::format_duration(options.swarm.duration)},
          {"bugs", options.swarm.bugs},
          {"faults", faults},  // empty: the recipe's own kinds
          {"step_faults", options.swarm.step_faults},
          {"zookeeper_version", options.swarm.zookeeper_version},
          {"properties", properties}};  // empty: the recipe's promised ones
}

nlohmann::ordered_json toJson(const ExploreSummary& summary) {
  nlohmann::ordered_json json;
  json["runs"] = summary.runs;
  json["failures"] = summary.failures;
  json["failures_by_property"] = nlohmann::ordered_json::object();
  for (const auto& [name, count] : summary.failures_by_property) json["failures_by_property"][name] = count;
  json["events"] = summary.events;
  json["sim_seconds"] = summary.sim_seconds;
  json["wall_seconds"] = summary.wall_seconds;
  json["runs_per_second"] = summary.wall_seconds > 0 ? static_cast<double>(summary.runs) / summary.wall_seconds : 0.0;
  json["trace_hash"] = sim::format_hash(summary.trace_hash);
  if (summary.first_failure) {
    const FailureSummary& failure = *summary.first_failure;
    json["first_failure"] = {{"seed", failure.seed}, {"property", failure.property}, {"time", failure.time},
                             {"message", failure.message}, {"file", failure.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(failure.file)}};
  } else {
    json["first_failure"] = nullptr;
  }
  json["observed"] = nlohmann::ordered_json::object();
  for (const auto& [name, count] : summary.observed) json["observed"][name] = count;
  json["interrupted"] = summary.interrupted;
  if (summary.out_of_memory) json["out_of_memory"] = true;
  json["stopped_at_first_failure"] = summary.stopped_at_first_failure;
  json["seeds"] = {{"first", summary.seed_first}, {"end", summary.seed_end}, {"sweep_first", summary.sweep_first}, {"sweep_end", summary.sweep_end}};
  if (!summary.not_run.empty()) {
    nlohmann::ordered_json ranges = nlohmann::ordered_json::array();
    for (const SeedRange& range : summary.not_run) ranges.push_back({{"first", range.first}, {"end", range.end}});
    json["seeds"]["not_run"] = ranges;
  }
  json["sweep"] = summary.sweep;
  json["shard"] = {{"index", summary.shard_index}, {"count", summary.shard_count}};
  if (!summary.shards.empty()) {
    nlohmann::ordered_json shards = nlohmann::ordered_json::array();
    for (const ExploreSummary::Shard& shard : summary.shards) {
      shards.push_back({{"file", shard.file},
                        {"shard", std::to_string(shard.index) + "/" + std::to_string(shard.count)},
                        {"seeds", {{"first", shard.seed_first}, {"end", shard.seed_end}}},
                        {"runs", shard.runs},
                        {"failures", shard.failures},
                        {"first_failure_file", shard.first_failure_file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(shard.first_failure_file)}});
    }
    json["shards"] = shards;
  }
  return json;
}

namespace {

// A count in a summary: a whole number, never negative (nlohmann would wrap -1 round to 2^64 - 1).
std::uint64_t count_at(const nlohmann::json& json, const std::string& key, const std::string& where = {}) {
  const nlohmann::json& value = json.at(key);
  if (!value.is_number_unsigned()) throw std::runtime_error((where.empty() ? "" : where + ".") + key + " must be a whole number, 0 or more");
  return value.get<std::uint64_t>();
}

double seconds_at(const nlohmann::json& json, const std::string& key) {
  const nlohmann::json& value = json.at(key);
  if (!value.is_number() || value.get<double>() < 0 || !std::isfinite(value.get<double>())) throw std::runtime_error(key + " must be a number of seconds, 0 or more");
  return value.get<double>();
}

}  // namespace

ExploreSummary summary_from_json(const nlohmann::json& json) {
  try {
    ExploreSummary summary;
    summary.runs = count_at(json, "runs");
    summary.failures = count_at(json, "failures");
    std::uint64_t by_property = 0;
    for (const auto& [name, count] : json.at("failures_by_property").items()) {
      if (!is_known_property(name) && name != "finding" && name != "limit") throw std::runtime_error("failures_by_property names an unknown property '" + name + "'");
      std::uint64_t failures = count_at(json.at("failures_by_property"), name, "failures_by_property");
      summary.failures_by_property[name] = failures;
      if (failures > summary.failures || by_property > summary.failures - failures) throw std::runtime_error("failures_by_property adds up to more than failures");
      by_property += failures;
    }
    if (by_property != summary.failures) throw std::runtime_error("failures_by_property adds up to " + std::to_string(by_property) + ", not failures (" + std::to_string(summary.failures) + ")");
    if (summary.failures > summary.runs) throw std::runtime_error("more failures than runs");
    summary.events = count_at(json, "events");
    summary.sim_seconds = seconds_at(json, "sim_seconds");
    summary.wall_seconds = seconds_at(json, "wall_seconds");
    std::string hash = json.at("trace_hash").get<std::string>();
    if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw std::runtime_error("trace_hash must be 16 lowercase hex digits");
    }
    summary.trace_hash = std::stoull(hash, nullptr, 16);
    if (!json.at("first_failure").is_null()) {
      const nlohmann::json& failure = json.at("first_failure");
      FailureSummary first;
      first.seed = count_at(failure, "seed", "first_failure");
      first.property = failure.at("property").get<std::string>();
      first.time = failure.at("time").get<std::string>();
      first.message = failure.at("message").get<std::string>();
      if (!failure.at("file").is_null()) first.file = failure.at("file").get<std::string>();
      summary.first_failure = first;
    }
    for (const auto& [name, count] : json.at("observed").items()) summary.observed[name] = count_at(json.at("observed"), name, "observed");
    summary.interrupted = json.value("interrupted", false);
    summary.stopped_at_first_failure = json.value("stopped_at_first_failure", false);
    // Every summary electsim writes names its seeds; without them, nothing says which runs it covers.
    if (!json.contains("seeds")) throw std::runtime_error("seeds is missing: which seeds did this summary run?");
    {
      const nlohmann::json& seeds = json.at("seeds");
      summary.seed_first = count_at(seeds, "first", "seeds");
      summary.seed_end = count_at(seeds, "end", "seeds");
      summary.sweep_first = seeds.contains("sweep_first") ? count_at(seeds, "sweep_first", "seeds") : 0;
      summary.sweep_end = seeds.contains("sweep_end") ? count_at(seeds, "sweep_end", "seeds") : 0;
      if (summary.seed_first > summary.seed_end) throw std::runtime_error("seeds.first is after seeds.end");
      if (summary.runs > summary.seed_end - summary.seed_first) throw std::runtime_error("more runs than seeds");
      if (summary.sweep_end != 0 && (summary.sweep_first > summary.seed_first || summary.seed_end > summary.sweep_end)) {
        throw std::runtime_error("seeds.first..end is not within the sweep's seeds");
      }
      if (seeds.contains("not_run")) {
        // In order, apart, within the share, and with the runs adding up to the share.
        std::uint64_t after = summary.seed_first;
        std::uint64_t missing = 0;
        for (const auto& range : seeds.at("not_run")) {
          SeedRange read{count_at(range, "first", "seeds.not_run"), count_at(range, "end", "seeds.not_run")};
          if (read.first < after || read.end <= read.first || read.end > summary.seed_end) {
            throw std::runtime_error("seeds.not_run must be ranges in order, apart, within seeds.first..end");
          }
          after = read.end;
          missing += read.end - read.first;
          summary.not_run.push_back(read);
        }
        if (summary.runs + missing != summary.seed_end - summary.seed_first) {
          throw std::runtime_error("runs (" + std::to_string(summary.runs) + ") and seeds.not_run (" + std::to_string(missing) +
                                   ") do not add up to the seeds");
        }
      }
    }
    if (json.contains("sweep")) summary.sweep = json.at("sweep");
    if (json.contains("shard")) {
      std::uint64_t index = count_at(json.at("shard"), "index", "shard");
      std::uint64_t count = count_at(json.at("shard"), "count", "shard");
      if (count == 0 || count > 1'000'000 || index == 0 || index > count) throw std::runtime_error("shard must be I/N with 1 <= I <= N");
      summary.shard_index = static_cast<unsigned>(index);
      summary.shard_count = static_cast<unsigned>(count);
    }
    if (json.contains("shards")) {
      for (const auto& shard : json.at("shards")) {
        ExploreSummary::Shard record;
        record.file = shard.at("file").get<std::string>();
        std::string position = shard.at("shard").get<std::string>();
        if (std::sscanf(position.c_str(), "%u/%u", &record.index, &record.count) != 2) throw std::runtime_error("shards[].shard must be I/N");
        record.seed_first = count_at(shard.at("seeds"), "first", "shards[].seeds");
        record.seed_end = count_at(shard.at("seeds"), "end", "shards[].seeds");
        record.runs = count_at(shard, "runs", "shards[]");
        record.failures = count_at(shard, "failures", "shards[]");
        if (!shard.at("first_failure_file").is_null()) record.first_failure_file = shard.at("first_failure_file").get<std::string>();
        summary.shards.push_back(record);
      }
    }
    return summary;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("not an explore summary: ") + error.what());
  }
}

namespace {
// A sum of counts that no sweep can reach: the summaries were edited, or are not what they say.
void add_count(std::uint64_t& total, std::uint64_t more, const char* what, const std::string& file) {
  if (more > std::numeric_limits<std::uint64_t>::max() - total) {
    throw std::overflow_error(std::string(what) + " of " + (file.empty() ? std::string("a summary") : file) +
                              " take the total past 2^64-1: no sweep counts that many");
  }
  total += more;
}
}  // namespace

ExploreSummary merge_summaries(const std::vector<ExploreSummary>& shards, const std::vector<std::string>& files) {
  ExploreSummary merged;
  bool first_shard = true;
  for (std::size_t at = 0; at < shards.size(); at++) {
    const ExploreSummary& shard = shards[at];
    if (first_shard) merged.sweep = shard.sweep;
    if (!shard.shards.empty()) {
      merged.shards.insert(merged.shards.end(), shard.shards.begin(), shard.shards.end());  // a merge merged again
    } else {
      merged.shards.push_back(ExploreSummary::Shard{at < files.size() ? files[at] : std::string(), shard.shard_index, shard.shard_count, shard.seed_first,
                                                    shard.seed_end, shard.runs, shard.failures,
                                                    shard.first_failure ? shard.first_failure->file : std::string()});
    }
    const std::string file = at < files.size() ? files[at] : std::string();
    add_count(merged.runs, shard.runs, "the runs", file);
    add_count(merged.failures, shard.failures, "the failures", file);
    for (const auto& [name, count] : shard.failures_by_property) merged.failures_by_property[name] += count;
    add_count(merged.events, shard.events, "the events", file);
    merged.sim_seconds += shard.sim_seconds;
    // Shards ran side by side: the sweep took as long as the slowest.
    merged.wall_seconds = std::max(merged.wall_seconds, shard.wall_seconds);
    merged.trace_hash += shard.trace_hash;
    for (const auto& [name, count] : shard.observed) merged.observed[name] += count;
    merged.interrupted = merged.interrupted || shard.interrupted;
    merged.stopped_at_first_failure = merged.stopped_at_first_failure || shard.stopped_at_first_failure;
    if (shard.first_failure && (!merged.first_failure || shard.first_failure->seed < merged.first_failure->seed)) {
      merged.first_failure = shard.first_failure;
    }
    merged.not_run.insert(merged.not_run.end(), shard.not_run.begin(), shard.not_run.end());
    merged.seed_first = first_shard ? shard.seed_first : std::min(merged.seed_first, shard.seed_first);
    merged.seed_end = first_shard ? shard.seed_end : std::max(merged.seed_end, shard.seed_end);
    merged.sweep_first = first_shard ? shard.sweep_first : std::min(merged.sweep_first, shard.sweep_first);
    merged.sweep_end = first_shard ? shard.sweep_end : std::max(merged.sweep_end, shard.sweep_end);
    first_shard = false;
  }
  std::stable_sort(merged.shards.begin(), merged.shards.end(), [](const auto& a, const auto& b) { return a.seed_first < b.seed_first; });
  std::stable_sort(merged.not_run.begin(), merged.not_run.end(), [](const SeedRange& a, const SeedRange& b) { return a.first < b.first; });
  return merged;
}

void printSummary(const ExploreSummary& summary, std::ostream& out) {
  std::uint64_t block = summary.seed_end - summary.seed_first;
  out << summary.runs << (summary.interrupted && summary.runs < block ? " of " + std::to_string(block) : std::string()) << " runs"
      << (summary.interrupted ? " (interrupted)" : "")
      << (summary.stopped_at_first_failure ? " (stopped at the first failure)" : "") << ", seeds " << summary.seed_first << ".."
      << (summary.seed_end == 0 ? 0 : summary.seed_end - 1);
  if (!summary.not_run.empty()) {
    constexpr std::size_t shown_max = 5;
    out << " (not run: ";
    for (std::size_t at = 0; at < std::min(shown_max, summary.not_run.size()); at++) {
      const SeedRange& range = summary.not_run[at];
      out << (at > 0 ? ", " : "") << range.first;
      if (range.end - range.first > 1) out << ".." << range.end - 1;
    }
    if (summary.not_run.size() > shown_max) out << " and " << summary.not_run.size() - shown_max << " more ranges";
    out << ")";
  }
  out << ", " << summary.events << " events, "
      << summary.sim_seconds << " simulated seconds in " << summary.wall_seconds << " s ("
      << (summary.wall_seconds > 0 ? static_cast<double>(summary.runs) / summary.wall_seconds : 0.0) << " runs/s)\n";
  out << "failures: " << summary.failures << "\n";
  for (const auto& [name, count] : summary.failures_by_property) out << "  " << name << ": " << count << "\n";
  if (summary.first_failure) {
    const FailureSummary& failure = *summary.first_failure;
    out << "first failure: seed " << failure.seed << ", " << failure.property << " at " << failure.time << ": " << failure.message << "\n";
    if (!failure.file.empty()) out << "  reproduce: electsim run " << failure.file << "\n";
  }
  if (!summary.observed.empty()) {
    out << "observed (not promised by the recipe, not failures):\n";
    for (const auto& [name, count] : summary.observed) out << "  " << name << ": " << count << " runs\n";
  }
  if (summary.shards.size() > 1) {
    out << "shards:\n";
    for (const ExploreSummary::Shard& shard : summary.shards) {
      out << "  " << (shard.file.empty() ? "(unnamed)" : shard.file) << ": shard " << shard.index << "/" << shard.count << ", seeds " << shard.seed_first
          << ".." << (shard.seed_end == 0 ? 0 : shard.seed_end - 1) << ", " << shard.runs << " runs, " << shard.failures << " failures";
      if (!shard.first_failure_file.empty()) out << ", first: " << shard.first_failure_file;
      out << "\n";
    }
  }
  out << "trace hash: " << sim::format_hash(summary.trace_hash) << "\n";
}

}  // namespace harness
