#include "harness/shrink.h"

#include <rapidcheck.h>

#include <algorithm>
#include <atomic>
#include <new>
#include <thread>
#include <vector>

#include "harness/explore.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"

namespace harness {

namespace {

struct Candidate {
  Scenario scenario;
  std::string what;
};

std::int64_t as_ms(sim::Duration duration) { return std::chrono::duration_cast<std::chrono::milliseconds>(duration).count(); }

void sort_faults(Scenario& scenario) {
  std::stable_sort(scenario.faults.begin(), scenario.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
}

// When the last fault action ends (a pause ends `for` after it starts). A step-triggered fault
// counts from its `at` and `until`: when it fires is known only by running.
sim::Duration last_fault_end(const Scenario& scenario) {
  sim::Duration last{};
  for (const Fault& fault : scenario.faults) {
    sim::Duration at = fault.after && fault.until ? *fault.until : fault.at;
    last = std::max(last, at + (fault.kind == FaultKind::pause ? fault.pause_for : sim::Duration{}));
  }
  return last;
}

// Simpler shapes of one fault, simplest first.
rc::Seq<Fault> simpler_faults(const Fault& fault) {
  std::vector<Fault> options;
  if (fault.kind == FaultKind::power_off) {
    Fault crash = fault;
    crash.kind = FaultKind::crash;
    options.push_back(crash);
  }
  if (fault.kind == FaultKind::partition || fault.kind == FaultKind::bridge) {
    // An isolation of one node is the simplest cut: try each node of the smallest side.
    std::vector<std::string> side = fault.groups.front();
    for (const auto& group : fault.groups) {
      if (group.size() < side.size()) side = group;
    }
    if (fault.kind == FaultKind::bridge) side = {fault.node};
    for (const std::string& node : side) {
      Fault isolate;
      isolate.at = fault.at;
      isolate.kind = FaultKind::isolate;
      isolate.node = node;
      options.push_back(isolate);
    }
  }
  if (fault.kind == FaultKind::pause) {
    std::int64_t ms = as_ms(fault.pause_for);
    rc::Seq<std::int64_t> shorter = rc::shrink::towards<std::int64_t>(ms, 1);
    while (auto next = shorter.next()) {
      Fault paused = fault;
      paused.pause_for = std::chrono::milliseconds(*next);
      options.push_back(paused);
      if (options.size() > 12) break;
    }
  }
  if (fault.after) {
    // An earlier occurrence of the same step, then no delay (or a shorter one).
    rc::Seq<int> earlier = rc::shrink::towards<int>(fault.after->occurrence, 1);
    while (auto next = earlier.next()) {
      Fault sooner = fault;
      sooner.after->occurrence = *next;
      options.push_back(sooner);
      if (options.size() > 8) break;
    }
    if (fault.delay > sim::Duration::zero()) {
      rc::Seq<std::int64_t> shorter = rc::shrink::towards<std::int64_t>(as_ms(fault.delay), 0);
      int kept = 0;
      while (auto next = shorter.next()) {
        Fault quicker = fault;
        quicker.delay = std::chrono::milliseconds(*next);
        options.push_back(quicker);
        if (++kept > 6) break;
      }
    }
    if (fault.at > sim::Duration::zero()) {
      Fault from_start = fault;
      from_start.at = sim::Duration::zero();
      options.push_back(from_start);
    }
    return rc::seq::fromContainer(std::move(options));
  }
  // Rounder times: whole seconds, then tenths.
  for (sim::Duration unit : {sim::Duration(std::chrono::seconds(1)), sim::Duration(std::chrono::milliseconds(100))}) {
    sim::Duration rounded = fault.at / unit * unit;
    if (rounded != fault.at) {
      Fault round = fault;
      round.at = rounded;
      options.push_back(round);
    }
  }
  return rc::seq::fromContainer(std::move(options));
}

// Every candidate simplification of `current`, biggest first (see shrink.h).
rc::Seq<Candidate> candidates(const Scenario& current) {
  auto with = [current](std::string what, auto change) {
    return [current, what = std::move(what), change](auto value) {
      Candidate candidate{current, what};
      change(candidate.scenario, value);
      return candidate;
    };
  };
  rc::Seq<Candidate> fewer_faults = rc::seq::map(rc::shrink::removeChunks(current.faults),
                                                 with("fewer faults", [](Scenario& s, std::vector<Fault> faults) { s.faults = std::move(faults); }));
  rc::Seq<Candidate> fewer_instances = rc::seq::map(rc::shrink::towards<int>(current.instances.count, 1),
                                                    with("fewer instances", [](Scenario& s, int count) {
                                                      s.instances.count = count;
                                                      std::erase_if(s.instances.ids, [count](const auto& entry) {
                                                        return std::stoi(entry.first.substr(1)) > count;
                                                      });
                                                    }));
  rc::Seq<Candidate> fewer_servers = rc::seq::map(
      rc::seq::filter(rc::shrink::towards<int>(current.zookeeper.servers, 1), [](int servers) { return servers % 2 == 1; }),
      with("fewer ZooKeeper servers", [](Scenario& s, int servers) {
        s.zookeeper.servers = servers;
        std::erase_if(s.zookeeper.initial_zxid, [servers](const auto& entry) { return std::stoi(entry.first.substr(2)) > servers; });
        std::erase_if(s.zookeeper.initial_epoch, [servers](const auto& entry) { return std::stoi(entry.first.substr(2)) > servers; });
      }));
  rc::Seq<Candidate> fewer_writers = rc::seq::map(rc::shrink::towards<int>(current.clients.writers, 0),
                                                  with("fewer writers", [](Scenario& s, int writers) { s.clients.writers = writers; }));
  rc::Seq<Candidate> fewer_es_nodes;
  if (current.elasticsearch) {
    fewer_es_nodes = rc::seq::map(rc::shrink::towards<int>(current.elasticsearch->nodes, 1), with("fewer Elasticsearch nodes", [](Scenario& s, int nodes) {
                                    bool majority = s.elasticsearch->minimum_master_nodes == s.elasticsearch->nodes / 2 + 1;
                                    s.elasticsearch->nodes = nodes;
                                    if (majority || s.elasticsearch->minimum_master_nodes > nodes) s.elasticsearch->minimum_master_nodes = nodes / 2 + 1;
                                  }));
  }
  // Whole seconds only: a readable file matters more than the last millisecond.
  std::int64_t shortest_s = as_ms(last_fault_end(current)) / 1000 + 1;
  std::int64_t current_s = (as_ms(current.duration) + 999) / 1000;
  rc::Seq<Candidate> shorter = rc::seq::map(
      rc::seq::filter(rc::shrink::towards<std::int64_t>(current_s, shortest_s),
                      [shortest_s, duration = current.duration](std::int64_t s) { return s >= shortest_s && std::chrono::seconds(s) < duration; }),
      with("a shorter run", [](Scenario& s, std::int64_t seconds) { s.duration = std::chrono::seconds(seconds); }));
  rc::Seq<Candidate> fewer_items;
  if (!current.jobs.empty()) {
    fewer_items = rc::seq::map(rc::shrink::towards<int>(current.jobs.front().sharding_total_count, 1),
                               with("fewer sharding items", [](Scenario& s, int count) { s.jobs.front().sharding_total_count = count; }));
  }
  rc::Seq<Candidate> simpler_shapes = rc::seq::map(rc::shrink::eachElement(current.faults, simpler_faults),
                                                   with("a simpler fault", [](Scenario& s, std::vector<Fault> faults) {
                                                     s.faults = std::move(faults);
                                                     sort_faults(s);
                                                   }));
  rc::Seq<Candidate> less_latency = rc::seq::map(
      rc::shrink::towards<std::int64_t>(as_ms(current.network.latency_max), as_ms(current.network.latency_min)),
      with("less latency spread", [](Scenario& s, std::int64_t ms) { s.network.latency_max = std::chrono::milliseconds(ms); }));
  return rc::seq::concat(std::move(fewer_faults), std::move(fewer_instances), std::move(fewer_servers), std::move(fewer_writers),
                         std::move(fewer_es_nodes), std::move(shorter), std::move(fewer_items), std::move(simpler_shapes),
                         std::move(less_latency));
}

// A candidate the parser would accept (a smaller deployment may leave faults naming absent nodes).
bool valid(const Scenario& scenario) {
  try {
    parse_scenario_text(write_scenario(scenario), "<candidate>");
    return true;
  } catch (const ScenarioError&) {
    return false;
  }
}

}  // namespace

namespace {

enum class Outcome : std::uint8_t { fails, passes, interrupted, out_of_memory };

// Runs stopped by `interrupted` between slices of 100 ms of simulated time; the slicing leaves the
// run as it is (the same events in the same order, as `electsim run` does).
void interruptible(RunOptions& options, const std::atomic<bool>* interrupted) {
  if (interrupted == nullptr) return;
  options.run_loop = [interrupted](sim::Simulation& sim, sim::Instant end) {
    while (sim.now() < end && !sim.stop_requested() && !interrupted->load()) {
      sim.run_until(std::min(end, sim.now() + std::chrono::milliseconds(100)));
    }
  };
}

bool stopped(const std::atomic<bool>* interrupted) { return interrupted != nullptr && interrupted->load(); }

Outcome check(const Scenario& scenario, const std::string& property, const sim::SimulationLimits& limits,
              const std::atomic<bool>* interrupted) {
  RunOptions options;
  options.limits = limits;
  options.timeline = false;
  options.only_listed_properties = true;
  options.properties = {property};
  interruptible(options, interrupted);
  Scenario bare = scenario;
  bare.expect = Expect{};
  try {
    RunResult result = runScenario(bare, options);
    if (stopped(interrupted)) return Outcome::interrupted;
    auto verdict = result.properties.find(property);
    return verdict != result.properties.end() && verdict->second == properties::Verdict::violated ? Outcome::fails : Outcome::passes;
  } catch (const std::bad_alloc&) {
    return Outcome::out_of_memory;  // the machine's verdict, not the scenario's
  } catch (const std::exception&) {
    if (stopped(interrupted)) return Outcome::interrupted;
    return property == "model-sanity" ? Outcome::fails : Outcome::passes;
  }
}

// Runs every candidate of a batch, each on its own thread while the system gives threads (on this
// one when it does not: the outcomes are the same, only slower).
std::vector<Outcome> check_batch(const std::vector<Candidate>& batch, const std::string& property, const ShrinkOptions& options) {
  std::vector<Outcome> outcomes(batch.size(), Outcome::passes);
  auto run = [&](std::size_t i) noexcept {
    try {
      outcomes[i] = check(batch[i].scenario, property, options.limits, options.interrupted);
    } catch (const std::bad_alloc&) {
      outcomes[i] = Outcome::out_of_memory;
    }
  };
  std::vector<std::jthread> threads;
  std::size_t started = 0;
  try {
    for (; started < batch.size(); started++) threads.emplace_back(run, started);
  } catch (const std::exception&) {
    // std::system_error (no thread) or std::bad_alloc (no stack): run the rest here.
  }
  for (std::size_t i = started; i < batch.size(); i++) run(i);
  return outcomes;
}

}  // namespace

bool violates(const Scenario& scenario, const std::string& property, const sim::SimulationLimits& limits) {
  return check(scenario, property, limits, nullptr) == Outcome::fails;
}

std::optional<std::string> shrink_target(const Scenario& scenario, const sim::SimulationLimits& limits) {
  if (scenario.failure) {
    return violates(scenario, scenario.failure->property, limits) ? std::optional(scenario.failure->property) : std::nullopt;
  }
  std::vector<std::string> names = scenario.expect.hold;
  for (const std::string& name : promised_properties(scenario.recipe)) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  RunOptions options;
  options.limits = limits;
  options.timeline = false;
  options.only_listed_properties = true;
  options.properties = names;
  Scenario bare = scenario;
  bare.expect = Expect{};
  RunResult result = runScenario(bare, options);
  for (const std::string& name : names) {
    auto verdict = result.properties.find(name);
    if (verdict != result.properties.end() && verdict->second == properties::Verdict::violated) return name;
  }
  if (result.finding || result.limit) return std::string("model-sanity");
  return std::nullopt;
}

std::optional<ShrinkResult> shrink(const Scenario& failing, const ShrinkOptions& options,
                                   const std::function<void(const ShrinkStep&)>& progress) {
  ShrinkResult result;
  result.scenario = failing;
  result.faults_before = failing.faults.size();
  std::string property = options.property;
  if (property.empty()) {
    try {
      property = shrink_target(failing, options.limits).value_or("");
    } catch (const std::bad_alloc&) {
      result.out_of_memory = true;
      return result;
    }
  }
  if (stopped(options.interrupted)) {
    result.interrupted = true;
    return result;
  }
  if (property.empty()) return std::nullopt;
  switch (check(failing, property, options.limits, options.interrupted)) {
    case Outcome::fails: break;
    case Outcome::passes: return std::nullopt;
    case Outcome::interrupted: result.interrupted = true; return result;
    case Outcome::out_of_memory: result.out_of_memory = true; return result;
  }
  result.property = property;
  unsigned jobs = std::max(1u, options.jobs);
  bool improved = true;
  while (improved && result.runs < options.max_runs) {
    improved = false;
    rc::Seq<Candidate> next = candidates(result.scenario);
    // Candidates in order, `jobs` at a time; the first that still fails wins, as if run one by one.
    while (!improved && result.runs < options.max_runs) {
      std::vector<Candidate> batch;
      while (batch.size() < jobs) {
        rc::Maybe<Candidate> candidate = next.next();
        if (!candidate) break;
        if (valid(candidate->scenario)) batch.push_back(std::move(*candidate));
      }
      if (batch.empty()) break;
      std::vector<Outcome> outcomes = check_batch(batch, property, options);
      // A batch that an interruption or the lack of memory cut short counts for nothing: its first
      // failing candidate might come after one whose verdict is unknown.
      if (std::find(outcomes.begin(), outcomes.end(), Outcome::out_of_memory) != outcomes.end()) {
        result.out_of_memory = true;
        return result;
      }
      if (stopped(options.interrupted) || std::find(outcomes.begin(), outcomes.end(), Outcome::interrupted) != outcomes.end()) {
        result.interrupted = true;
        return result;
      }
      result.runs += batch.size();
      for (std::size_t i = 0; i < batch.size(); i++) {
        if (outcomes[i] != Outcome::fails) continue;
        result.scenario = std::move(batch[i].scenario);
        result.steps++;
        improved = true;
        progress(ShrinkStep{result.runs, result.scenario.faults.size(), result.scenario.duration, batch[i].what, true});
        break;
      }
      if (!improved) progress(ShrinkStep{result.runs, result.scenario.faults.size(), result.scenario.duration, "", false});
    }
  }
  return result;
}

}  // namespace harness
