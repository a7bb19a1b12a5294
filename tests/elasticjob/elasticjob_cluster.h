// Test fixtures for the ElasticJob model: a 3-server ensemble, ElasticJob instances (i1..iN, ids
// 10.0.0.N@-@N) running one job, the operator's console, a trace recorder, and a way to read the
// committed znodes. For whole scenarios, runText() goes through the harness as `electsim run` does.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "model/elasticjob/ElasticJobConsole.h"
#include "model/elasticjob/ElasticJobInstance.h"
#include "model/zk/Ensemble.h"
#include "sim/network.h"
#include "tests/support/trace_recorder.h"

namespace elasticjob_test {

using namespace std::chrono_literals;

using test_support::TraceRecorder;

inline elasticjob::JobSettings job(const std::string& name, int items, sim::Duration fireInterval = 5s) {
  elasticjob::JobSettings settings;
  settings.config.jobName = name;
  settings.config.shardingTotalCount = items;
  settings.config.fireInterval = fireInterval;
  settings.executionTime = elasticjob::ExecutionTime(100ms, 1s);
  return settings;
}

struct Cluster {
  sim::Simulation sim;
  zk::Ensemble ensemble;
  TraceRecorder trace;
  std::vector<elasticjob::ElasticJobInstance*> instances;
  elasticjob::ElasticJobConsole* console = nullptr;

  explicit Cluster(std::uint64_t seed = 1) : sim(seed), ensemble(sim, 3, zk::QuorumPeerConfig{}), trace(sim) {
    sim.network().set_latency(1ms, 5ms);
    for (zk::ServerId sid = 1; sid <= 3; sid++) ensemble.server(sid).start();
    sim.run_for(2s);  // a serving ensemble before any instance starts
  }

  elasticjob::ZookeeperConfiguration zookeeper() const {
    elasticjob::ZookeeperConfiguration config;
    config.serverLists = ensemble.nodes();
    config.sessionTimeoutMilliseconds = 6s;
    return config;
  }

  // Adds instances i1..iN running `jobs` (not started).
  void addInstances(int count, std::vector<elasticjob::JobSettings> jobs, elasticjob::ElasticJobBugs bugs = {}) {
    for (int number = 1; number <= count; number++) {
      elasticjob::ElasticJobInstanceConfig config;
      config.jobInstanceId = "10.0.0." + std::to_string(number) + "@-@" + std::to_string(number);
      config.zookeeper = zookeeper();
      config.jobs = jobs;
      config.bugs = bugs;
      instances.push_back(&sim.add_node<elasticjob::ElasticJobInstance>("i" + std::to_string(number), config));
    }
    console = &sim.add_node<elasticjob::ElasticJobConsole>("console", zookeeper());
  }
  void startAll() {
    for (elasticjob::ElasticJobInstance* instance : instances) instance->start();
  }

  const zk::DataTree& tree() const {
    std::optional<zk::ServerId> leader = ensemble.leader();
    return ensemble.server(leader.value_or(1)).getZkDb().getDataTree();
  }
  std::optional<std::string> data(const std::string& relative) const {
    const zk::DataNode* node = tree().getNode("/electsim/" + relative);
    if (node == nullptr) return std::nullopt;
    return node->data;
  }
  const zk::DataNode* node(const std::string& relative) const { return tree().getNode("/electsim/" + relative); }
  // item -> owner, from the committed sharding/{i}/instance nodes.
  std::map<int, std::string> owners(const std::string& job, int items) const {
    std::map<int, std::string> result;
    for (int item = 0; item < items; item++) {
      if (auto owner = data(job + "/sharding/" + std::to_string(item) + "/instance")) result.emplace(item, *owner);
    }
    return result;
  }
  // The instances whose belief (isLeader()) is true now.
  std::vector<std::string> believers(const std::string& job) const {
    std::vector<std::string> result;
    for (elasticjob::ElasticJobInstance* instance : instances) {
      if (instance->believesLeader(job)) result.push_back(instance->name());
    }
    return result;
  }
  elasticjob::ElasticJobInstance& instance(int number) { return *instances.at(static_cast<std::size_t>(number - 1)); }
};

// Runs a scenario file's text the way `electsim run` does.
inline harness::RunResult runText(const std::string& text, std::optional<std::uint64_t> seed = std::nullopt) {
  harness::Scenario scenario = harness::parse_scenario_text(text, "<test>");
  harness::RunOptions options;
  options.seed = seed;
  options.timeline = false;
  return harness::runScenario(scenario, options);
}

inline std::string verdict(const harness::RunResult& result, const std::string& property) {
  auto found = result.properties.find(property);
  return found == result.properties.end() ? "absent" : std::string(properties::verdict_name(found->second));
}

// The scenarios' common cluster: three instances, one job of 8 items every 5 s.
inline std::string scenarioText(const std::string& extra, const std::string& duration = "90s") {
  return "name: t\nrecipe: elasticjob\nduration: " + duration +
         "\nclients: {session_timeout: 6s}\ninstances: {count: 3}\n"
         "jobs:\n  - {name: order-sync, sharding_total_count: 8, strategy: average, fire_interval: 5s, "
         "execution_time: {min: 100ms, max: 1s}}\n" +
         extra;
}

}  // namespace elasticjob_test
