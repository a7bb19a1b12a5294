// write_scenario: readable, stable output, and parse(write(s)) == s, for chosen and for random scenarios.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"
#include "tests/harness/scenario_generators.h"

namespace {

using namespace harness;
using namespace std::chrono_literals;

Scenario round_trip(const Scenario& scenario) { return parse_scenario_text(write_scenario(scenario), "written.yaml"); }

Fault on_node(sim::Duration at, FaultKind kind, std::string node) {
  Fault fault;
  fault.at = at;
  fault.kind = kind;
  fault.node = std::move(node);
  return fault;
}

Fault with_groups(sim::Duration at, FaultKind kind, std::vector<std::vector<std::string>> groups,
                  std::string node = "") {
  Fault fault = on_node(at, kind, std::move(node));
  fault.groups = std::move(groups);
  return fault;
}

JobConfig job(std::string name, int sharding_total_count) {
  JobConfig config;
  config.name = std::move(name);
  config.sharding_total_count = sharding_total_count;
  return config;
}

Scenario minimal() {
  Scenario s;
  s.name = "minimal";
  s.duration = 10s;
  return s;
}

TEST(ScenarioWriter, WritesEveryKeyInTheDocumentedOrder) {
  Scenario s = minimal();
  s.recipe = Recipe::elasticjob;
  s.jobs.push_back(job("order-sync", 10));
  s.faults.push_back(on_node(20s, FaultKind::crash, "i1"));
  s.faults.push_back(on_node(30s, FaultKind::pause, "i2"));
  s.faults.back().pause_for = 1500ms;
  s.expect.hold = {"job-single-leader"};
  EXPECT_EQ(write_scenario(s), R"(name: minimal
description: ""
seed: 1
duration: 10s
recipe: elasticjob
bugs: []
zookeeper:
  servers: 3
  tick_time: 2s
  init_limit: 10
  sync_limit: 5
  start: together
  start_interval: 1s
network:
  latency: {min: 1ms, max: 5ms, distribution: uniform}
clients:
  session_timeout: 6s
  connect: all
  writers: 0
  write_interval: 100ms
  ephemeral_writes: false
instances:
  count: 3
  start: together
  start_interval: 1s
jobs:
  - name: order-sync
    sharding_total_count: 10
    strategy: average
    fire_interval: 5s
    execution_time: {min: 100ms, max: 100ms}
    monitor_execution: true
faults:
  - {at: 20s, crash: i1}
  - {at: 30s, pause: i2, for: 1.5s}
expect:
  hold: [job-single-leader]
  fail: []
)");
}

TEST(ScenarioWriter, WritesOptionalPartsOnlyWhenPresent) {
  Scenario zookeeper = minimal();
  zookeeper.zookeeper.initial_zxid = {{"zk2", 0x100000005}};
  zookeeper.zookeeper.max_session_timeout = 40s;
  std::string zookeeper_text = write_scenario(zookeeper);
  EXPECT_NE(zookeeper_text.find("  initial_zxid: {zk2: 0x100000005}\n"), std::string::npos) << zookeeper_text;
  EXPECT_NE(zookeeper_text.find("  max_session_timeout: 40s\n"), std::string::npos) << zookeeper_text;
  EXPECT_EQ(zookeeper_text.find("min_session_timeout"), std::string::npos) << zookeeper_text;
  EXPECT_EQ(round_trip(zookeeper), zookeeper);

  Scenario s = minimal();
  s.recipe = Recipe::es_zen;
  s.elasticsearch = ElasticsearchConfig{};
  s.elasticsearch->cluster_tasks.rate = 0.1;
  s.failure = FailureRecord{"es-single-master", "00000000000000ff", "electsim explore --seed 9", {{"max_events", 5000}}};
  std::string text = write_scenario(s);
  EXPECT_EQ(text.find("initial_zxid"), std::string::npos) << text;
  EXPECT_EQ(text.find("jobs:"), std::string::npos) << text;
  EXPECT_NE(text.find("  cluster_tasks: {rate: 0.1, priorities: [NORMAL], executor: per-task}\n"), std::string::npos) << text;
  EXPECT_NE(text.find("failure:\n  property: es-single-master\n  trace_hash: \"00000000000000ff\"\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(round_trip(s), s);
}

TEST(ScenarioWriter, QuotesStringsOtherYamlReadersWouldRetype) {
  Scenario s = minimal();
  s.name = "yes";
  s.description = "0123";
  std::string text = write_scenario(s);
  EXPECT_NE(text.find("name: \"yes\"\n"), std::string::npos) << text;
  EXPECT_NE(text.find("description: \"0123\"\n"), std::string::npos) << text;
  EXPECT_EQ(round_trip(s), s);
}

TEST(ScenarioRoundTrip, ChosenScenarios) {
  Scenario plain = minimal();
  EXPECT_EQ(round_trip(plain), plain);

  Scenario every_fault = minimal();
  every_fault.duration = 1h;
  every_fault.recipe = Recipe::elasticjob;
  every_fault.seed = UINT64_MAX;
  every_fault.bugs = {"ej-no-has-leader-check", "fle-1419-nontotal-order"};
  every_fault.instances.ids = {{"i3", "host-c@-@300"}};
  every_fault.jobs.push_back(job("a", 3));
  every_fault.jobs.back().strategy = "rotate";
  Fault drop = on_node(3s, FaultKind::drop, "");
  drop.from = "i2";
  drop.to = "zk3";
  Fault pause = on_node(5s, FaultKind::pause, "zk2");
  pause.pause_for = 7ns;
  Fault resize = on_node(6s, FaultKind::set_sharding_total_count, "");
  resize.job = "a";
  resize.value = 9;
  every_fault.faults = {
      on_node(1s, FaultKind::crash, "zk1"),
      with_groups(1s, FaultKind::partition, {{"zk1", "i1"}, {"zk2"}, {"zk3", "i2", "i3"}}),
      with_groups(2s, FaultKind::bridge, {{"zk1"}, {"zk2", "zk3"}}, "i1"),
      drop,
      on_node(4s, FaultKind::heal, ""),
      pause,
      resize,
      on_node(1h, FaultKind::disable, "i3"),
  };
  every_fault.expect = {{"zab-single-leader"}, {"job-single-leader", "no-double-execution"}, "zk2"};
  EXPECT_EQ(round_trip(every_fault), every_fault);

  Scenario contract = parse_scenario_text(write_scenario(every_fault), "x");
  EXPECT_EQ(write_scenario(contract), write_scenario(every_fault));  // stable text, not only equal values
}

RC_GTEST_PROP(ScenarioRoundTrip, RandomValidScenariosSurviveWriteThenParse, ()) {
  Scenario scenario = *generators::gen_scenario();
  std::string text = write_scenario(scenario);
  Scenario parsed = parse_scenario_text(text, "generated.yaml");
  if (!(parsed == scenario))
    RC_FAIL("round trip changed the scenario:\n" + text + "---- written again:\n" + write_scenario(parsed));
}

}  // namespace
