#include "harness/runner.h"

#include <algorithm>
#include <chrono>
#include <set>

#include "harness/cluster.h"
#include "harness/platform.h"
#include "harness/property_factory.h"
#include "harness/recipe.h"
#include "harness/trace_file.h"
#include "harness/trace_text.h"
#include "properties/eventual_leader.h"
#include "sim/network.h"

namespace harness {

namespace {



constexpr std::string_view model_sanity = "model-sanity";

constexpr std::size_t timeline_entries_max = 5000;

// Keeps the events a reader of the summary cares about, as one line each.
class TimelineSink final : public sim::TraceSink {
 public:
  TimelineSink(const sim::Simulation& sim, std::vector<TimelineEntry>& out) : sim_(sim), out_(out) {}
  void on_event(const sim::TraceEvent& event) override {
    std::string text = describe(event);
    if (text.empty() || out_.size() >= timeline_entries_max) return;
    std::string node = event.node == sim::no_node ? "-" : sim_.node(event.node).name();
    out_.push_back(TimelineEntry{event.time, node, std::move(text)});
  }

 private:
  static std::string describe(const sim::TraceEvent& event) {
    std::string_view kind = event.kind;
    if (kind.starts_with("fault.")) return std::string(kind.substr(6));
    if (kind == "zk.state") return std::string(event.text("state"));
    if (kind == "zab.established") return "leads epoch " + std::to_string(event.integer("epoch"));
    if (kind == "zab.leader_shutdown") return "stops leading: " + std::string(event.text("reason"));
    if (kind == "zab.follower_lost_leader") return "loses its leader: " + std::string(event.text("reason"));
    if (kind == "session.expire") return "expires session " + hex_text(event.integer("session"));
    if (kind == "latch.leader" || kind == "job.leader" || kind == "selector.leader") {
      return std::string(kind) + " " + std::string(event.text("id"));
    }
    if (kind == "latch.not_leader" || kind == "job.not_leader") return std::string(kind) + " " + std::string(event.text("id"));
    if (kind == "job.sharding") return "sharding " + std::string(event.text("job")) + ": " + std::string(event.text("assignment"));
    if (kind == "es.master") return "es master: " + std::string(event.text("what"));
    if (kind == "naive.master") return "takes /master";
    if (kind == "naive.release") return "releases /master";
    if (kind == "property.violation") return "VIOLATION " + std::string(event.text("property")) + ": " + std::string(event.text("message"));
    return {};
  }
  const sim::Simulation& sim_;
  std::vector<TimelineEntry>& out_;
};

std::vector<std::string> judged_properties(const Scenario& scenario, const RecipeDriver& driver, const RunOptions& options) {
  std::vector<std::string> names;
  auto add = [&](const std::string& name) {
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  };
  if (!options.only_listed_properties) {
    for (const std::string& name : driver.promisedProperties()) add(name);
  }
  for (const std::string& name : options.properties) add(name);
  for (const std::string& name : scenario.expect.hold) add(name);
  for (const std::string& name : scenario.expect.fail) add(name);
  return names;
}

nlohmann::ordered_json zookeeperFinal(Cluster& cluster) {
  if (cluster.platform() != nullptr) return cluster.platform()->zookeeperFinal();
  nlohmann::ordered_json zookeeper;
  zk::Ensemble* ensemble = cluster.ensemble();
  std::optional<zk::ServerId> leader = ensemble->leader();
  zookeeper["leader"] = leader ? nlohmann::ordered_json("zk" + std::to_string(*leader)) : nlohmann::ordered_json(nullptr);
  std::int64_t epoch = 0;
  nlohmann::ordered_json states = nlohmann::ordered_json::object();
  for (zk::ServerId sid = 1; sid <= static_cast<zk::ServerId>(ensemble->size()); sid++) {
    zk::QuorumPeer& server = ensemble->server(sid);
    states[server.name()] = server.up() ? std::string(zk::server_state_name(server.getPeerState())) : "DOWN";
    if (leader && *leader == sid) epoch = server.getCurrentEpoch();
    if (!leader) epoch = std::max(epoch, server.getCurrentEpoch());
  }
  zookeeper["epoch"] = epoch;
  zookeeper["states"] = states;
  return zookeeper;
}


// eventual-leader's sampling. With ZooKeeper, stage one polls (every 100 ms, from the last fault)
// for an established ZooKeeper leader within zookeeper_leader_bound; stage two samples the recipe's
// leader the recipe's bound after that. Without ZooKeeper, one sample at last fault + bound.
void scheduleEventualLeader(Cluster& cluster, RecipeDriver& driver, properties::EventualLeader& eventual, sim::Instant end) {
  sim::Simulation& sim = cluster.sim();
  // What a cut held goes at its sender's next retransmission, up to a backoff after the heal
  // (docs/engine.md, Network), which the heal queued by the last fault. ZooKeeper's stage waits for
  // all of it; a recipe on sessions, for what a client and a server exchange (a request that arrives
  // then still touches its session), not for the servers' own (a rejoining follower's votes). The
  // ZooKeeper recipe's leader is the ensemble's own, sampled as soon as stage one sees it (bound 0).
  auto held = std::make_shared<sim::Duration>(sim::Duration::zero());
  auto sample_recipe_at = [&cluster, &driver, &eventual, &sim, end, held](sim::Instant serving, std::string since) {
    sim::Duration bound = eventual.bound() > sim::Duration::zero() ? eventual.bound() + *held : eventual.bound();
    sim::Instant sample_at = serving + bound;
    if (sample_at > end) return;
    sim.schedule_callback(sample_at, sim::no_node, [&cluster, &driver, &eventual, since, bound] {
      if (!driver.hasCandidates(cluster)) {
        eventual.sampleWithoutCandidates();
        return;
      }
      std::optional<std::string> leader = driver.leaderNow(cluster);
      eventual.sample(leader.has_value(), "no single leader " + sim::format_duration(bound) + " after " + since);
    });
  };
  sim::Instant last_fault = cluster.lastFault();
  if (!cluster.hasZooKeeper()) {
    sample_recipe_at(last_fault, "the last fault");  // es-zen: its own bound (EsConfig) covers it
    return;
  }
  // The deadline is fixed at the last fault, from how long each server has been LOOKING then.
  auto deadline = std::make_shared<sim::Instant>();
  auto zookeeper_bound = std::make_shared<sim::Duration>();
  // Self-rescheduling poll; the shared_ptr keeps the callable alive between polls.
  auto poll = std::make_shared<std::function<void()>>();
  *poll = [&cluster, &eventual, &sim, last_fault, zookeeper_bound, poll_weak = std::weak_ptr<std::function<void()>>(poll), deadline, end,
           held, sample_recipe_at] {
    if (sim.now() == last_fault && *deadline == sim::Instant{}) {
      zk::QuorumPeerConfig defaults;
      const std::vector<sim::NodeId>& servers = cluster.zookeeperServers();
      auto server = [&servers](sim::NodeId node) { return std::find(servers.begin(), servers.end(), node) != servers.end(); };
      sim::Duration held_any = sim::Duration::zero();
      for (const sim::Network::QueuedRetransmission& queued : sim.network().queued_retransmissions()) {
        held_any = std::max(held_any, queued.at - sim.now());
        if (!server(queued.from) || !server(queued.to)) *held = std::max(*held, queued.at - sim.now());
      }
      *zookeeper_bound = zookeeper_leader_bound(cluster.scenario(), eventual.lookingBackoffBound(sim.now(), defaults.finalize_wait,
                                                                                                 defaults.max_notification_interval)) +
                         held_any;
      *deadline = last_fault + *zookeeper_bound;
    }
    if (cluster.zookeeperLeader()) {
      std::string at = sim::format_instant(sim.now());
      sample_recipe_at(sim.now(), sim.now() == last_fault ? "the last fault (" + at + ")" : "ZooKeeper had a leader again (" + at + ")");
      return;
    }
    if (sim.now() >= *deadline) {
      eventual.sample(false, "no ZooKeeper leader " + sim::format_duration(*zookeeper_bound) +
                                 " after the last fault");
      return;
    }
    sim::Instant next = sim.now() + 100ms;
    if (next > end) return;
    if (auto self = poll_weak.lock()) sim.schedule_callback(next, sim::no_node, [self] { (*self)(); });
  };
  if (last_fault > end) return;
  sim.schedule_callback(last_fault, sim::no_node, [poll] { (*poll)(); });
}

// Where a finding happened: the node whose coroutine reported it, else the node whose callback was
// running when it escaped the event loop, else the harness.
std::string failure_place(const sim::Simulation& sim) {
  sim::NodeId node = sim.failure_node() != sim::no_node ? sim.failure_node() : sim.current_node();
  if (node == sim::no_node || node >= sim.node_count()) return "the harness";
  return sim.node(node).name();
}

// A run whose cluster could not even be made: model-sanity violated at time zero, with the limit.
// The trace hash is that of an empty trace, so the result is as repeatable as any other.
RunResult stopped_while_made(const Scenario& scenario, RunResult result, const sim::LimitExceeded& limit,
                             std::chrono::steady_clock::time_point wall_start) {
  result.limit = limit.limit() + ": " + limit.what();
  result.properties[std::string(model_sanity)] = properties::Verdict::violated;
  result.violations.push_back(properties::Violation{std::string(model_sanity), sim::epoch, *result.limit});
  if (!std::count(scenario.expect.fail.begin(), scenario.expect.fail.end(), model_sanity)) {
    result.unmet.push_back("the run hit a limit: " + *result.limit);
  }
  result.expectations_met = result.unmet.empty();
  result.trace_hash = sim::Simulation(result.seed).trace().hash();
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

}  // namespace

std::map<std::string, std::uint64_t> limits_to_record(const sim::SimulationLimits& limits) {
  sim::SimulationLimits defaults;
  std::map<std::string, std::uint64_t> recorded;
  if (limits.max_events != defaults.max_events) recorded["max_events"] = limits.max_events;
  if (limits.max_nodes != defaults.max_nodes) recorded["max_nodes"] = limits.max_nodes;
  if (limits.max_pending_events != defaults.max_pending_events) recorded["max_pending_events"] = limits.max_pending_events;
  if (limits.max_memory_bytes != defaults.max_memory_bytes) recorded["max_memory_bytes"] = limits.max_memory_bytes;
  return recorded;
}

sim::SimulationLimits with_recorded_limits(sim::SimulationLimits limits, const std::map<std::string, std::uint64_t>& recorded,
                                           const std::vector<std::string>& keep) {
  for (const auto& [name, value] : recorded) {
    if (std::find(keep.begin(), keep.end(), name) != keep.end()) continue;
    // The parser has checked the names and the ranges (scenario_parser.cpp, read_failure_limits).
    if (name == "max_events") limits.max_events = value;
    if (name == "max_nodes") limits.max_nodes = static_cast<std::uint32_t>(value);
    if (name == "max_pending_events") limits.max_pending_events = static_cast<std::uint32_t>(value);
    if (name == "max_memory_bytes") limits.max_memory_bytes = value;
  }
  return limits;
}

RunResult runScenario(const Scenario& scenario, const RunOptions& options) {
  auto wall_start = std::chrono::steady_clock::now();  // measuring the harness, not the simulation
  RunResult result;
  result.scenario = scenario.name;
  result.seed = options.seed.value_or(scenario.seed);

  // The cluster's constructor makes the ZooKeeper ensemble and the writers, so max-nodes can stop
  // a run before it has a simulation to speak of: a finding all the same, at time zero.
  std::unique_ptr<Cluster> made;
  try {
    made = std::make_unique<Cluster>(scenario, result.seed, options.limits, options.platform);
  } catch (const sim::LimitExceeded& limit) {
    return stopped_while_made(scenario, std::move(result), limit, wall_start);
  }
  Cluster& cluster = *made;
  sim::Simulation& sim = cluster.sim();
  std::unique_ptr<RecipeDriver> driver = makeRecipeDriver(scenario);
  std::unique_ptr<TraceFileSink> trace_file;
  std::unique_ptr<TimelineSink> timeline;
  std::vector<std::unique_ptr<properties::Property>> checkers;
  sim::Instant end = sim::epoch + scenario.duration;
  bool built = false;

  // Building can hit a limit too (max-nodes), and a model can fail an assertion or throw anything
  // while it runs: each is reported as a finding of this run (model-sanity), never as a crash.
  try {
    driver->build(cluster);
    built = true;

    if (options.trace_out != nullptr) {
      trace_file = std::make_unique<TraceFileSink>(sim, *options.trace_out, options.trace_bytes_max);
      sim.trace().add_sink(trace_file.get());
    }
    if (options.timeline) {
      timeline = std::make_unique<TimelineSink>(sim, result.timeline);
      sim.trace().add_sink(timeline.get());
    }
    for (sim::TraceSink* sink : options.sinks) sim.trace().add_sink(sink);
    if (options.message_describer != nullptr) sim.network().trace_messages(options.message_describer);
    for (const std::string& name : judged_properties(scenario, *driver, options)) {
      if (auto why = options.unjudgeable.find(name); why != options.unjudgeable.end()) {
        result.properties[name] = properties::Verdict::not_judged;
        result.not_judged_why[name] = why->second;
        continue;
      }
      std::unique_ptr<properties::Property> checker = makeProperty(name, cluster, *driver);
      if (!checker) {
        result.properties[name] = properties::Verdict::not_judged;
        continue;
      }
      sim.trace().add_sink(checker.get());
      checkers.push_back(std::move(checker));
    }

    cluster.scheduleStartsAndFaults(*driver);
    for (auto& checker : checkers) {
      auto* eventual = dynamic_cast<properties::EventualLeader*>(checker.get());
      if (eventual != nullptr) scheduleEventualLeader(cluster, *driver, *eventual, end);
    }
    if (options.test_hook) options.test_hook(sim);

    if (options.run_loop) {
      options.run_loop(sim, end);
    } else {
      sim.run_until(end);
    }
    if (trace_file && trace_file->full()) {
      result.limit = "max-trace-size: the trace reached its limit of " + std::to_string(trace_file->bytes_max()) + " bytes at " +
                     sim::format_duration(sim.now() - sim::epoch) + " of simulated time";
    }
  } catch (const sim::AssertionFailure& failure) {
    result.finding = std::string(failure.what()) + " (on " + failure_place(sim) + ", seed " + std::to_string(result.seed) + ")";
  } catch (const sim::LimitExceeded& limit) {
    result.limit = limit.limit() + ": " + limit.what();
  } catch (const std::bad_alloc&) {
    // The machine refused memory (`ulimit -v`, a full machine): no verdict on the model. The caller
    // says so (explore stops the sweep, the command line exits 2), never a model-sanity finding.
    throw;
  } catch (const std::exception& error) {
    result.finding = "uncaught exception: " + std::string(error.what()) + " (on " + failure_place(sim) + ", seed " +
                     std::to_string(result.seed) + ")";
  }

  properties::RunFacts facts{sim.now(), cluster.lastFault(), cluster.healed()};
  for (auto& checker : checkers) {
    checker->finish(facts);
    result.properties[std::string(checker->name())] = checker->verdict();
    for (const properties::Violation& violation : checker->violations()) result.violations.push_back(violation);
  }
  // model-sanity: the model itself held up (no failed assertion, no limit hit). Always judged
  // when something went wrong, so that explore and failure files can name it.
  if (result.finding || result.limit) {
    result.properties[std::string(model_sanity)] = properties::Verdict::violated;
    result.violations.push_back(properties::Violation{std::string(model_sanity), sim.now(), result.finding ? *result.finding : *result.limit});
  } else if (result.properties.contains(std::string(model_sanity))) {
    result.properties[std::string(model_sanity)] = properties::Verdict::held;
  }
  std::sort(result.violations.begin(), result.violations.end(), [](const auto& a, const auto& b) { return a.time < b.time; });

  // A property that cannot be judged here (live mode) is reported apart, not as an unmet expectation.
  for (const std::string& name : scenario.expect.hold) {
    if (result.not_judged_why.contains(name)) continue;
    if (result.properties[name] != properties::Verdict::held) {
      result.unmet.push_back(name + " was expected to hold but was " + std::string(properties::verdict_name(result.properties[name])));
    }
  }
  for (const std::string& name : scenario.expect.fail) {
    if (result.not_judged_why.contains(name)) continue;
    if (result.properties[name] != properties::Verdict::violated) {
      result.unmet.push_back(name + " was expected to be violated but was " +
                             std::string(properties::verdict_name(result.properties[name])));
    }
  }
  if (scenario.expect.zookeeper_leader && built && cluster.hasZooKeeper()) {
    std::optional<zk::ServerId> leader = cluster.zookeeperLeader();
    std::string actual = leader ? "zk" + std::to_string(*leader) : "none";
    if (actual != *scenario.expect.zookeeper_leader) {
      result.unmet.push_back("the ZooKeeper leader at the end was expected to be " + *scenario.expect.zookeeper_leader + " but is " + actual);
    }
  }
  if (result.finding && !std::count(scenario.expect.fail.begin(), scenario.expect.fail.end(), model_sanity)) {
    result.unmet.push_back("the model failed an assertion: " + *result.finding);
  }
  if (result.limit && !std::count(scenario.expect.fail.begin(), scenario.expect.fail.end(), model_sanity)) {
    result.unmet.push_back("the run hit a limit: " + *result.limit);
  }
  result.expectations_met = result.unmet.empty();

  result.events = sim.events_processed();
  result.sim_seconds = std::chrono::duration<double>(sim.now().time_since_epoch()).count();
  result.trace_hash = sim.trace().hash();
  result.triggers = cluster.triggerReports();
  if (built && cluster.hasZooKeeper()) result.final["zookeeper"] = zookeeperFinal(cluster);
  if (built) driver->reportFinal(cluster, result.final);
  sim.trace().remove_sink(timeline.get());
  sim.trace().remove_sink(trace_file.get());
  for (auto& checker : checkers) sim.trace().remove_sink(checker.get());
  for (sim::TraceSink* sink : options.sinks) sim.trace().remove_sink(sink);
  result.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  return result;
}

nlohmann::ordered_json toJson(const RunResult& result) {
  nlohmann::ordered_json json;
  json["scenario"] = result.scenario;
  json["seed"] = result.seed;
  json["events"] = result.events;
  json["sim_seconds"] = result.sim_seconds;
  json["wall_seconds"] = result.wall_seconds;
  json["trace_hash"] = sim::format_hash(result.trace_hash);
  nlohmann::ordered_json verdicts = nlohmann::ordered_json::object();
  for (const auto& [name, verdict] : result.properties) verdicts[name] = properties::verdict_name(verdict);
  json["properties"] = verdicts;
  if (!result.not_judged_why.empty()) {
    nlohmann::ordered_json why = nlohmann::ordered_json::object();
    for (const auto& [name, reason] : result.not_judged_why) why[name] = reason;
    json["not_judged"] = why;
  }
  nlohmann::ordered_json violations = nlohmann::ordered_json::array();
  for (const properties::Violation& violation : result.violations) {
    violations.push_back({{"property", violation.property}, {"time", sim::format_instant(violation.time)}, {"message", violation.message}});
  }
  json["violations"] = violations;
  json["expectations_met"] = result.expectations_met;
  if (!result.unmet.empty()) json["unmet"] = result.unmet;
  if (result.finding) json["finding"] = *result.finding;
  if (result.limit) json["limit"] = *result.limit;
  json["final"] = result.final.is_null() ? nlohmann::ordered_json::object() : result.final;
  if (!result.triggers.empty()) {
    nlohmann::ordered_json triggers = nlohmann::ordered_json::array();
    for (const TriggerReport& report : result.triggers) {
      nlohmann::ordered_json entry;
      entry["fault"] = report.fault;
      entry["description"] = report.description;
      entry["occurrences"] = report.seen;
      entry["fired"] = report.fired ? nlohmann::ordered_json(sim::format_instant(*report.fired)) : nlohmann::ordered_json(nullptr);
      entry["applied"] = report.applied ? nlohmann::ordered_json(sim::format_instant(*report.applied)) : nlohmann::ordered_json(nullptr);
      triggers.push_back(std::move(entry));
    }
    json["triggers"] = std::move(triggers);
  }
  return json;
}

void printSummary(const RunResult& result, std::ostream& out) {
  out << "scenario " << result.scenario << " (seed " << result.seed << "): " << result.sim_seconds << " s simulated, "
      << result.events << " events, " << result.wall_seconds << " s wall\n\ntimeline\n";
  for (const TimelineEntry& entry : result.timeline) {
    out << "  " << clock_text(entry.time)  // the narration's forms (trace_text.h)
         << "  " << entry.node << "  " << entry.text << "\n";
  }
  out << "\nproperties\n";
  for (const auto& [name, verdict] : result.properties) out << "  " << name << ": " << properties::verdict_name(verdict) << "\n";
  for (const properties::Violation& violation : result.violations) {
    out << "    " << sim::format_instant(violation.time) << " " << violation.property << ": " << violation.message << "\n";
  }
  if (!result.triggers.empty()) {
    out << "\ntriggers\n";
    for (const TriggerReport& report : result.triggers) {
      out << "  " << report.description << ": ";
      if (!report.fired) {
        out << "NEVER FIRED (" << report.seen << " matching occurrence" << (report.seen == 1 ? "" : "s") << ")\n";
      } else if (!report.applied) {
        out << "fired at " << sim::format_instant(*report.fired) << ", the fault fell after the end of the run\n";
      } else {
        out << "fired at " << sim::format_instant(*report.fired) << (report.applied != report.fired ? ", applied at " + sim::format_instant(*report.applied) : std::string()) << "\n";
      }
    }
  }
  out << "\nfinal\n" << result.final.dump(2) << "\n\n";
  if (result.expectations_met) {
    out << "expectations met (trace hash " << sim::format_hash(result.trace_hash) << ")\n";
  } else {
    out << "EXPECTATIONS NOT MET:\n";
    for (const std::string& reason : result.unmet) out << "  " << reason << "\n";
  }
}

}  // namespace harness
