#include "harness/systematic.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <mutex>
#include <set>
#include <thread>
#include <unordered_set>

#include "harness/explore.h"
#include "harness/failure_writer.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"
#include "harness/trigger_kinds.h"
#include "sim/hash_fold.h"
#include "sim/network.h"
#include "sim/random.h"

namespace harness {

namespace {

// A site occurrence a fault can be injected at: the `nth` time `node` reached `kind`, at `time`,
// and the state the cluster would be in had `node` crashed right there.
struct Point {
  std::string node;
  std::string kind;
  int nth = 0;
  sim::Instant time;
  std::uint64_t state = 0;
};

// A run to make: the faults of its path (one per level) and the level-1 point it descends from.
struct Candidate {
  std::uint64_t root = 0;
  std::vector<Point> path;
};

// Counts the eligible site occurrences of a run and records those after its last injected fault
// (all of them when nothing was injected), each with its state hash.
class PointRecorder final : public sim::TraceSink {
 public:
  PointRecorder(const std::vector<std::string>& kinds, const std::vector<std::string>& nodes, FaultKind fault, std::string arm_trigger,
                std::string arm_kind)
      : node_names_(nodes), fault_(fault), arm_trigger_(std::move(arm_trigger)), arm_kind_(std::move(arm_kind)) {
    kind_names_ = kinds;
    for (const std::string& kind : kind_names_) kinds_.push_back(kind);
    kinds_.emplace_back("fault.");
    armed_ = arm_trigger_.empty();
  }
  void on_attach(const sim::Simulation& sim) override {
    sim_ = &sim;
    node_ids_.clear();
    for (const std::string& name : node_names_) {
      for (sim::NodeId id = 0; id < sim.node_count(); id++) {
        if (sim.node(id).name() == name) node_ids_.push_back(id);
      }
    }
  }
  std::span<const std::string_view> kinds() const override { return kinds_; }
  bool reads_sites() const override { return true; }
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind.starts_with("fault.")) {
      if (!armed_ && event.kind == arm_kind_ && event.text("trigger") == arm_trigger_) armed_ = true;
      return;
    }
    auto node = std::find(node_ids_.begin(), node_ids_.end(), event.node);
    if (node == node_ids_.end()) return;
    std::string kind(event.kind);
    int nth = ++counts_[{event.node, kind}];
    if (!armed_) return;
    found++;
    if (points.size() >= keep_max) return;  // the next level has no room for more
    std::uint64_t state = state_if_crashed(event.node);
    // A state this run already reached needs no second point (the search prunes the same way).
    if (prune && !seen_.insert(state).second) return;
    points.push_back(Point{sim_->node(event.node).name(), std::move(kind), nth, event.time, state});
  }

  std::vector<Point> points;  // the first keep_max distinct ones
  std::uint64_t found = 0;    // every point after the last injected fault
  std::size_t keep_max = SIZE_MAX;
  bool prune = true;

 private:
  // The state the fault leaves: a crashed (or powered-off) node keeps only what it persisted; an
  // isolated one keeps everything, cut off.
  std::uint64_t state_if_crashed(sim::NodeId faulted) const {
    bool crash = fault_ != FaultKind::isolate;
    std::uint64_t digest = sim::hash_fold(0x73616d63, faulted);
    for (sim::NodeId id = 0; id < sim_->node_count(); id++) {
      digest = sim::hash_fold(digest, sim_->node(id).state_digest(crash && id == faulted, fault_ == FaultKind::power_off));
    }
    return sim::hash_fold(digest, const_cast<sim::Simulation*>(sim_)->network().state_digest());
  }

  std::vector<std::string> kind_names_;
  std::vector<std::string_view> kinds_;
  std::vector<std::string> node_names_;
  std::vector<sim::NodeId> node_ids_;
  FaultKind fault_;
  std::string arm_trigger_;
  std::string arm_kind_;
  bool armed_ = false;
  const sim::Simulation* sim_ = nullptr;
  std::map<std::pair<sim::NodeId, std::string>, int> counts_;
  std::unordered_set<std::uint64_t> seen_;
};

Trigger trigger_of(const Point& point) {
  Trigger trigger;
  trigger.event = point.kind;
  trigger.node = point.node;
  trigger.occurrence = point.nth;
  return trigger;
}

// The base scenario with the path's faults: each a fault at its point (firing there: `until` is the
// point's instant) and a restart `restart_after` later, triggered by the same occurrence.
Scenario scenario_of(const SystematicOptions& options, const Candidate& candidate, std::uint64_t index) {
  Scenario scenario = options.base;
  for (const Point& point : candidate.path) {
    Fault fault;
    fault.kind = options.fault;
    fault.node = point.node;
    fault.after = trigger_of(point);
    fault.until = point.time - sim::epoch;
    // What undoes it: a restart, or the heal of an isolation.
    Fault restart = fault;
    restart.kind = options.fault == FaultKind::isolate ? FaultKind::heal : FaultKind::restart;
    if (restart.kind == FaultKind::heal) restart.node.clear();
    restart.delay = options.restart_after;
    scenario.faults.push_back(fault);
    scenario.faults.push_back(restart);
  }
  std::stable_sort(scenario.faults.begin(), scenario.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  scenario.name = options.base.name + "-sys" + std::to_string(candidate.path.size()) + "-" + std::to_string(candidate.root) + "-" +
                  std::to_string(index);
  return scenario;
}

std::vector<std::string> describe_path(const SystematicOptions& options, const Candidate& candidate) {
  std::vector<std::string> described;
  for (const Point& point : candidate.path) {
    described.push_back(std::string(fault_kind_name(options.fault)) + " " + point.node + " at its " + ordinal(point.nth) + " " + point.kind + " (" +
                        sim::format_instant(point.time) + "), " + (options.fault == FaultKind::isolate ? "heal" : "restart") + " " +
                        sim::format_duration(options.restart_after) + " later");
  }
  return described;
}

// The run's key in the combined trace hash: its path, so the sum does not depend on run order.
std::uint64_t path_key(const Candidate& candidate) {
  std::uint64_t key = sim::hash_fold(0x70617468, candidate.root);
  for (const Point& point : candidate.path) {
    key = sim::hash_fold_text(key, point.node);
    key = sim::hash_fold_text(key, point.kind);
    key = sim::hash_fold(key, static_cast<std::uint64_t>(point.nth));
  }
  return key;
}

struct Outcome {
  bool done = false;
  std::uint64_t trace_hash = 0;
  std::string property;  // empty: passed
  std::string message;
  std::string time;
  std::string file;
  std::vector<Point> points;  // after the last injected fault, for the next level
  std::uint64_t points_found = 0;
};

// The kinds and nodes the search enumerates.
struct Universe {
  std::vector<std::string> kinds;
  std::vector<std::string> nodes;
};

Universe universe_of(const SystematicOptions& options) {
  Universe universe;
  const Scenario& scenario = options.base;
  if (options.sites.empty()) {
    for (const TriggerKind& kind : trigger_kinds()) {
      if (kind.site != nullptr && trigger_kind_in_recipe(kind, scenario.recipe)) universe.kinds.emplace_back(kind.kind);
    }
  } else {
    universe.kinds = options.sites;
  }
  if (!options.nodes.empty()) {
    universe.nodes = options.nodes;
    return universe;
  }
  // Every node of the scenario that reaches one of the kinds.
  std::uint8_t roles = 0;
  for (const std::string& name : universe.kinds) {
    if (const TriggerKind* kind = find_trigger_kind(name)) roles |= kind->roles;
  }
  auto add = [&](std::uint8_t role, const std::string& prefix, int count) {
    if ((roles & role) == 0) return;
    for (int n = 1; n <= count; n++) universe.nodes.push_back(prefix + std::to_string(n));
  };
  if (runs_zookeeper(scenario.recipe)) add(trigger_server, "zk", scenario.zookeeper.servers);
  if (has_instances(scenario.recipe)) add(trigger_instance, "i", scenario.instances.count);
  if (runs_zookeeper(scenario.recipe)) add(trigger_writer, "w", scenario.clients.writers);
  if (scenario.elasticsearch) add(trigger_es_node, "es", scenario.elasticsearch->nodes);
  return universe;
}

}  // namespace

Scenario systematic_default_scenario() {
  return parse_scenario_text(R"(name: systematic
description: Three servers and one writer making three writes; the search crashes each server at each of its steps.
duration: 12s
clients: {writers: 1, write_interval: 300ms, writes: 3}
)",
                             "<systematic default>");
}

SystematicSummary explore_systematic(const SystematicOptions& options, const std::function<void(const SystematicProgress&)>& progress,
                                     const std::atomic<bool>& stop) {
  ELECTSIM_ASSERT(options.depth >= 1 && options.depth <= 3);
  ELECTSIM_ASSERT(options.fault == FaultKind::crash || options.fault == FaultKind::power_off || options.fault == FaultKind::isolate);
  ELECTSIM_ASSERT(options.shard_count >= 1 && options.shard_index >= 1 && options.shard_index <= options.shard_count);
  auto wall_start = std::chrono::steady_clock::now();
  auto wall = [&wall_start] { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count(); };
  Universe universe = universe_of(options);
  std::vector<std::string> counted = options.properties.empty() ? promised_properties(options.base.recipe) : options.properties;
  std::string fault_event = "fault." + std::string(fault_kind_name(options.fault));

  SystematicSummary summary;
  summary.scenario = options.base.name;
  summary.depth = options.depth;
  summary.shard_index = options.shard_index;
  summary.shard_count = options.shard_count;
  std::optional<FailureWriter> writer;
  if (!options.out_dir.empty()) {
    std::filesystem::create_directories(options.out_dir);
    writer.emplace();
  }

  // One run: the candidate's scenario, judged; its points recorded when a deeper level needs them.
  auto run_one = [&](const Candidate& candidate, std::uint64_t index, bool record, std::size_t keep_max) {
    Outcome outcome;
    Scenario scenario = scenario_of(options, candidate, index);
    std::string arm_trigger = candidate.path.empty() ? std::string() : describe_trigger(trigger_of(candidate.path.back()));
    PointRecorder recorder(universe.kinds, universe.nodes, options.fault, arm_trigger, fault_event);
    recorder.keep_max = keep_max;
    recorder.prune = options.prune;
    RunOptions run_options;
    run_options.limits = options.limits;
    run_options.timeline = false;
    run_options.properties = counted;
    if (record) run_options.sinks = {&recorder};
    RunResult result = runScenario(scenario, run_options);
    outcome.trace_hash = result.trace_hash;
    for (const properties::Violation& violation : result.violations) {  // sorted by time
      if (std::find(counted.begin(), counted.end(), violation.property) == counted.end()) continue;
      outcome.property = violation.property;
      outcome.message = violation.message;
      outcome.time = sim::format_instant(violation.time);
      break;
    }
    if (!outcome.property.empty() && writer) {
      ExploreRun run{scenario, result, outcome.property, outcome.message, outcome.time};
      Scenario failure = failure_scenario(run, options.found_by, options.limits);
      failure.description = "The systematic search's run " + scenario.name + ":";
      for (const std::string& fault : describe_path(options, candidate)) failure.description += "\n  " + fault;
      failure.description += "\n" + outcome.property + " violated at " + outcome.time + ": " + outcome.message;
      outcome.file = (std::filesystem::path(options.out_dir) / (scenario.name + "-" + outcome.property + ".yaml")).string();
      writer->submit(outcome.file, write_scenario(failure), scenario.name + " failed " + outcome.property);
    }
    outcome.points = std::move(recorder.points);
    outcome.points_found = recorder.found;
    outcome.done = true;
    return outcome;
  };

  // Level 1's points: the scenario as it is.
  Outcome base = run_one(Candidate{}, 0, true, options.max_runs);
  std::vector<Candidate> candidates;
  std::uint64_t level_points = 0;
  {
    std::unordered_set<std::uint64_t> seen;
    std::vector<Candidate> all;
    for (Point& point : base.points) {
      if (options.prune && !seen.insert(point.state).second) continue;
      all.push_back(Candidate{all.size(), {std::move(point)}});
    }
    summary.roots = all.size();
    summary.roots_first = summary.roots * (options.shard_index - 1) / options.shard_count;
    summary.roots_end = summary.roots * options.shard_index / options.shard_count;
    // Every shard finds the same level-1 points (merge takes them once) and runs its block of them.
    level_points = base.points_found;
    candidates.assign(std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(summary.roots_first)),
                      std::make_move_iterator(all.begin() + static_cast<std::ptrdiff_t>(summary.roots_end)));
  }

  std::mutex mutex;  // guards the progress counters and the first failure's wall time
  for (int depth = 1; depth <= options.depth && !candidates.empty(); depth++) {
    summary.levels.push_back(SystematicLevel{depth, level_points, candidates.size(), 0});
    summary.distinct_states += candidates.size();
    SystematicLevel& level = summary.levels.back();
    std::uint64_t remaining = options.max_runs - std::min(options.max_runs, summary.runs);
    if (candidates.size() > remaining) {
      candidates.resize(remaining);
      summary.budget_exhausted = true;
    }
    // The next level can run at most what the budget leaves after this one: no run records more.
    std::uint64_t next_budget = remaining - candidates.size();
    std::uint64_t runs_before = summary.runs;
    std::uint64_t lowest_failure = candidates.size();
    std::uint64_t last_root = 0;
    std::vector<Candidate> deeper;
    std::map<std::uint64_t, std::unordered_set<std::uint64_t>> seen_by_root;
    level_points = 0;
    // In chunks, gathered in point order after each: whether a chunk records its points for the next
    // level is decided by what the chunks before it gave, never by which thread finished first, and
    // only a chunk's points are held at once.
    constexpr std::uint64_t chunk_size = 256;
    for (std::uint64_t start = 0; start < candidates.size(); start += chunk_size) {
      if (stop.load() || (options.stop_at_first_failure && summary.first_failure)) break;
      std::uint64_t end = std::min<std::uint64_t>(candidates.size(), start + chunk_size);
      bool record = depth < options.depth && deeper.size() < next_budget;
      // A fair share: when the budget cannot hold the next level, every run of this one gets an equal
      // part of what is left (its earliest points first), so that the first subtrees do not take all
      // of it. A run whose points do not fill its share leaves the rest to the runs after it.
      std::uint64_t budget_left = next_budget - std::min<std::uint64_t>(next_budget, deeper.size());
      std::uint64_t runs_left = candidates.size() - start;
      std::size_t keep_max = static_cast<std::size_t>(std::max<std::uint64_t>(1, (budget_left + runs_left - 1) / runs_left));
      std::vector<Outcome> outcomes(end - start);
      std::atomic<std::uint64_t> next{start};
      std::atomic<std::uint64_t> lowest{candidates.size()};
      std::uint64_t done = 0;
      std::uint64_t failures_now = 0;
      std::condition_variable finished;
      unsigned workers = std::max(1u, std::min<unsigned>(options.jobs, static_cast<unsigned>(end - start)));
      unsigned workers_left = workers;
      auto worker = [&] {
        while (!stop.load()) {
          std::uint64_t index = next.fetch_add(1);
          if (index >= end) break;
          if (options.stop_at_first_failure && index > lowest.load()) break;  // indices only grow
          Outcome outcome = run_one(candidates[index], index, record, keep_max);
          std::lock_guard lock(mutex);
          if (!outcome.property.empty()) {
            std::uint64_t known = lowest.load();
            while (index < known && !lowest.compare_exchange_weak(known, index)) {
            }
            failures_now++;
            if (!summary.wall_to_first_failure) summary.wall_to_first_failure = wall();
          }
          outcomes[index - start] = std::move(outcome);
          done++;
          finished.notify_all();
        }
        std::lock_guard lock(mutex);
        workers_left--;
        finished.notify_all();
      };
      {
        std::vector<std::jthread> threads;
        for (unsigned i = 0; i < workers; i++) threads.emplace_back(worker);
        std::unique_lock lock(mutex);
        while (workers_left > 0) {
          finished.wait_for(lock, std::chrono::milliseconds(200));
          SystematicProgress now{depth, start + done, candidates.size(), summary.runs + done, summary.distinct_states, summary.failures + failures_now, wall()};
          lock.unlock();
          progress(now);
          lock.lock();
        }
      }
      // Gathered in point order: the summary does not depend on which thread ran what. The next
      // level's points are pruned within their level-1 subtree.
      for (std::uint64_t index = start; index < end; index++) {
        Outcome& outcome = outcomes[index - start];
        if (!outcome.done) {
          if (options.stop_at_first_failure && index > lowest.load()) {
            summary.stopped_at_first_failure = true;
          } else {
            summary.interrupted = true;
          }
          continue;
        }
        summary.runs++;
        if (level.runs == 0 || candidates[index].root != last_root) level.subtrees++;  // candidates are grouped by root
        last_root = candidates[index].root;
        level.runs++;
        summary.trace_hash += combine_run_hash(path_key(candidates[index]), outcome.trace_hash);
        if (!outcome.property.empty()) {
          summary.failures++;
          summary.failures_by_property[outcome.property]++;
          lowest_failure = std::min(lowest_failure, index);
          if (!summary.first_failure) {
            summary.first_failure = SystematicFailure{depth, index, runs_before + index + 1, describe_path(options, candidates[index]),
                                                      outcome.property, outcome.message, outcome.time, outcome.file};
          }
        }
        level_points += outcome.points_found;
        for (Point& point : outcome.points) {
          if (deeper.size() >= next_budget) break;
          if (options.prune && !seen_by_root[candidates[index].root].insert(point.state).second) continue;
          Candidate child = candidates[index];
          child.path.push_back(std::move(point));
          deeper.push_back(std::move(child));
        }
      }
    }
    if (stop.load() && summary.runs - runs_before < candidates.size() && !(options.stop_at_first_failure && summary.first_failure)) {
      summary.interrupted = true;
    }
    if (options.stop_at_first_failure && summary.first_failure && summary.runs - runs_before < candidates.size()) {
      summary.stopped_at_first_failure = true;
    }
    if (deeper.size() >= next_budget && depth < options.depth && next_budget > 0) summary.budget_exhausted = true;
    if (summary.interrupted || (options.stop_at_first_failure && summary.first_failure)) break;
    candidates = std::move(deeper);
  }
  for (const SystematicLevel& level : summary.levels) summary.points += level.points;
  summary.pruned = summary.points - std::min(summary.points, summary.distinct_states);
  if (writer) {
    writer->finish();
    if (summary.first_failure && writer->failed(summary.first_failure->file)) summary.first_failure->file.clear();
  }
  summary.wall_seconds = wall();
  return summary;
}

nlohmann::ordered_json toJson(const SystematicSummary& summary) {
  nlohmann::ordered_json json;
  json["mode"] = "systematic";
  json["scenario"] = summary.scenario;
  json["depth"] = summary.depth;
  json["runs"] = summary.runs;
  json["points"] = summary.points;
  json["distinct_states"] = summary.distinct_states;
  json["pruned"] = summary.pruned;
  json["failures"] = summary.failures;
  json["failures_by_property"] = nlohmann::ordered_json::object();
  for (const auto& [name, count] : summary.failures_by_property) json["failures_by_property"][name] = count;
  nlohmann::ordered_json levels = nlohmann::ordered_json::array();
  for (const SystematicLevel& level : summary.levels) {
    levels.push_back({{"depth", level.depth}, {"points", level.points}, {"distinct", level.distinct}, {"runs", level.runs}, {"subtrees", level.subtrees}});
  }
  json["levels"] = levels;
  if (summary.first_failure) {
    const SystematicFailure& failure = *summary.first_failure;
    json["first_failure"] = {{"depth", failure.depth},
                             {"index", failure.index},
                             {"runs_to_it", failure.run},
                             {"faults", failure.faults},
                             {"property", failure.property},
                             {"time", failure.time},
                             {"message", failure.message},
                             {"file", failure.file.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(failure.file)}};
  } else {
    json["first_failure"] = nullptr;
  }
  json["trace_hash"] = sim::format_hash(summary.trace_hash);
  json["wall_seconds"] = summary.wall_seconds;
  json["wall_to_first_failure"] = summary.wall_to_first_failure ? nlohmann::ordered_json(*summary.wall_to_first_failure) : nlohmann::ordered_json(nullptr);
  json["interrupted"] = summary.interrupted;
  json["stopped_at_first_failure"] = summary.stopped_at_first_failure;
  json["budget_exhausted"] = summary.budget_exhausted;
  json["shard"] = {{"index", summary.shard_index}, {"count", summary.shard_count}, {"roots", summary.roots},
                   {"roots_first", summary.roots_first}, {"roots_end", summary.roots_end}};
  return json;
}

SystematicSummary systematic_summary_from_json(const nlohmann::json& json) {
  try {
    if (json.value("mode", std::string()) != "systematic") throw std::runtime_error("not a systematic summary (mode is not \"systematic\")");
    SystematicSummary summary;
    summary.scenario = json.at("scenario").get<std::string>();
    summary.depth = json.at("depth").get<int>();
    summary.runs = json.at("runs").get<std::uint64_t>();
    summary.points = json.at("points").get<std::uint64_t>();
    summary.distinct_states = json.at("distinct_states").get<std::uint64_t>();
    summary.pruned = json.at("pruned").get<std::uint64_t>();
    summary.failures = json.at("failures").get<std::uint64_t>();
    for (const auto& [name, count] : json.at("failures_by_property").items()) summary.failures_by_property[name] = count.get<std::uint64_t>();
    for (const auto& level : json.at("levels")) {
      summary.levels.push_back(SystematicLevel{level.at("depth").get<int>(), level.at("points").get<std::uint64_t>(),
                                               level.at("distinct").get<std::uint64_t>(), level.at("runs").get<std::uint64_t>(),
                                               level.value("subtrees", std::uint64_t{0})});
    }
    if (!json.at("first_failure").is_null()) {
      const nlohmann::json& failure = json.at("first_failure");
      SystematicFailure first;
      first.depth = failure.at("depth").get<int>();
      first.index = failure.at("index").get<std::uint64_t>();
      first.run = failure.at("runs_to_it").get<std::uint64_t>();
      first.faults = failure.at("faults").get<std::vector<std::string>>();
      first.property = failure.at("property").get<std::string>();
      first.time = failure.at("time").get<std::string>();
      first.message = failure.at("message").get<std::string>();
      if (!failure.at("file").is_null()) first.file = failure.at("file").get<std::string>();
      summary.first_failure = first;
    }
    std::string hash = json.at("trace_hash").get<std::string>();
    if (hash.size() != 16 || hash.find_first_not_of("0123456789abcdef") != std::string::npos) {
      throw std::runtime_error("trace_hash must be 16 lowercase hex digits");
    }
    summary.trace_hash = std::stoull(hash, nullptr, 16);
    summary.wall_seconds = json.at("wall_seconds").get<double>();
    if (!json.at("wall_to_first_failure").is_null()) summary.wall_to_first_failure = json.at("wall_to_first_failure").get<double>();
    summary.interrupted = json.at("interrupted").get<bool>();
    summary.stopped_at_first_failure = json.at("stopped_at_first_failure").get<bool>();
    summary.budget_exhausted = json.at("budget_exhausted").get<bool>();
    const nlohmann::json& shard = json.at("shard");
    summary.shard_index = shard.at("index").get<unsigned>();
    summary.shard_count = shard.at("count").get<unsigned>();
    summary.roots = shard.at("roots").get<std::uint64_t>();
    summary.roots_first = shard.at("roots_first").get<std::uint64_t>();
    summary.roots_end = shard.at("roots_end").get<std::uint64_t>();
    if (summary.shard_count == 0 || summary.shard_index == 0 || summary.shard_index > summary.shard_count || summary.roots_first > summary.roots_end ||
        summary.roots_end > summary.roots || summary.depth < 1 || summary.depth > 3) {
      throw std::runtime_error("the shard fields are inconsistent");
    }
    return summary;
  } catch (const nlohmann::json::exception& error) {
    throw std::runtime_error(std::string("not a systematic summary: ") + error.what());
  }
}

SystematicSummary merge_systematic(const std::vector<SystematicSummary>& shards) {
  ELECTSIM_ASSERT(!shards.empty());
  std::vector<const SystematicSummary*> order;
  for (const SystematicSummary& shard : shards) order.push_back(&shard);
  std::stable_sort(order.begin(), order.end(), [](const auto* a, const auto* b) { return a->roots_first < b->roots_first; });
  SystematicSummary merged;
  merged.scenario = order.front()->scenario;
  merged.depth = order.front()->depth;
  merged.shard_index = 1;
  merged.shard_count = 1;
  merged.roots = order.front()->roots;
  merged.roots_first = order.front()->roots_first;
  merged.roots_end = order.back()->roots_end;
  for (const SystematicSummary* shard : order) {
    merged.runs += shard->runs;
    merged.distinct_states += shard->distinct_states;
    merged.failures += shard->failures;
    for (const auto& [name, count] : shard->failures_by_property) merged.failures_by_property[name] += count;
    merged.trace_hash += shard->trace_hash;
    merged.wall_seconds = std::max(merged.wall_seconds, shard->wall_seconds);
    merged.interrupted = merged.interrupted || shard->interrupted;
    merged.stopped_at_first_failure = merged.stopped_at_first_failure || shard->stopped_at_first_failure;
    merged.budget_exhausted = merged.budget_exhausted || shard->budget_exhausted;
    for (const SystematicLevel& level : shard->levels) {
      auto same = std::find_if(merged.levels.begin(), merged.levels.end(), [&](const auto& known) { return known.depth == level.depth; });
      if (same == merged.levels.end()) {
        merged.levels.push_back(level);
      } else {
        // Every shard found the same level-1 points, and ran its block of them.
        if (level.depth > 1) same->points += level.points;
        same->distinct += level.distinct;
        same->runs += level.runs;
        same->subtrees += level.subtrees;  // shards hold disjoint blocks of level-1 points
      }
    }
  }
  std::sort(merged.levels.begin(), merged.levels.end(), [](const auto& a, const auto& b) { return a.depth < b.depth; });
  // The first failure is the shallowest; at one depth, the first shard's (its points come first).
  // Its run number in the whole search: every run of the depths above it, the runs of its depth in
  // the shards before its own, then its index.
  for (std::size_t at = 0; at < order.size(); at++) {
    const SystematicSummary& shard = *order[at];
    if (!shard.first_failure || (merged.first_failure && shard.first_failure->depth >= merged.first_failure->depth)) continue;
    SystematicFailure failure = *shard.first_failure;
    failure.run = failure.index + 1;
    for (const SystematicLevel& level : merged.levels) {
      if (level.depth < failure.depth) failure.run += level.runs;
    }
    for (std::size_t before = 0; before < at; before++) {
      for (const SystematicLevel& level : order[before]->levels) {
        if (level.depth == failure.depth) failure.run += level.runs;
      }
    }
    merged.first_failure = failure;
    merged.wall_to_first_failure = shard.wall_to_first_failure;
  }
  for (const SystematicLevel& level : merged.levels) merged.points += level.points;
  merged.pruned = merged.points - std::min(merged.points, merged.distinct_states);
  return merged;
}

void printSummary(const SystematicSummary& summary, std::ostream& out) {
  out << "systematic search of " << summary.scenario << ", up to " << summary.depth << " fault" << (summary.depth == 1 ? "" : "s") << " a run";
  if (summary.shard_count > 1) out << " (shard " << summary.shard_index << "/" << summary.shard_count << ")";
  out << "\n";
  for (const SystematicLevel& level : summary.levels) {
    out << "  depth " << level.depth << ": " << level.points << " points, " << level.distinct << " distinct states, " << level.runs << " runs";
    if (level.depth > 1) out << " in " << level.subtrees << " subtrees";
    out << "\n";
  }
  out << summary.runs << " runs, " << summary.distinct_states << " distinct states (" << summary.pruned << " points pruned), in " << summary.wall_seconds
      << " s\n";
  out << "failures: " << summary.failures << "\n";
  for (const auto& [name, count] : summary.failures_by_property) out << "  " << name << ": " << count << "\n";
  if (summary.first_failure) {
    const SystematicFailure& failure = *summary.first_failure;
    out << "first failure: run " << failure.run << " (depth " << failure.depth << "), " << failure.property << " at " << failure.time << ": "
        << failure.message << "\n";
    for (const std::string& fault : failure.faults) out << "  " << fault << "\n";
    if (summary.wall_to_first_failure) out << "  found after " << *summary.wall_to_first_failure << " s\n";
    if (!failure.file.empty()) out << "  reproduce: electsim run " << failure.file << "\n";
  }
  if (summary.budget_exhausted) out << "the run budget (--max-runs) ran out before the search did\n";
  if (summary.stopped_at_first_failure) out << "stopped at the first failure (--stop-at-first)\n";
  out << "trace hash: " << sim::format_hash(summary.trace_hash) << "\n";
}

}  // namespace harness
