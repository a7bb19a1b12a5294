// Every key of a scenario file, parsed: the contract's full example, the defaults, and the short forms.
#include "harness/scenario_parser.h"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace harness;
using namespace std::chrono_literals;

// SCENARIO-FORMAT.md's example, verbatim.
constexpr const char* contract_example = R"yaml(
name: leader-crash                 # required
description: The job leader crashes; its session expires and another instance takes over.
seed: 42                           # default 1; every random choice derives from it
duration: 60s                      # simulated time; units ns, us, ms, s, m, h
recipe: elasticjob                 # none | elasticjob | leader-latch | leader-selector | naive-master | es-zen
                                   # (es-zen nodes are es1..esN, configured under `elasticsearch:`)
bugs: []                           # bug switch names (electsim bugs lists them)

zookeeper:
  servers: 3                       # named zk1..zkN, sid = N
  tick_time: 2000ms
  init_limit: 10
  sync_limit: 5
  start: together                  # together | staggered
  start_interval: 1s               # with staggered: zk1 at 0, zk2 at start_interval, ...
  initial_zxid: {zk2: 0x100000005} # optional persisted state before start (epoch<<32|counter)

network:
  latency: {min: 1ms, max: 5ms}    # per message, uniform unless a distribution is named

clients:
  session_timeout: 6s              # negotiated within the servers' bounds
  connect: all                     # every client gets the whole server list

instances:                         # job instances (elasticjob) or contenders (other recipes)
  count: 3                         # named i1..iN; id "10.0.0.N@-@N" unless listed below
  ids: {i1: "10.0.0.1@-@1"}        # optional explicit instance ids
  start: together                  # together | staggered (start_interval as above)

jobs:                              # elasticjob only
  - name: order-sync
    sharding_total_count: 10
    strategy: average              # average | odevity | rotate | (more, listed by electsim strategies)
    fire_interval: 5s
    execution_time: {min: 100ms, max: 2s}
    monitor_execution: true

faults:                            # timed actions, any order in the file, applied in time order
  - {at: 20s, crash: i1}           # process crash: volatile state lost, the OS closes its connections
  - {at: 21s, power_off: i3}       # machine failure: silence, peers find out by timeouts
  - {at: 40s, restart: i1}
  - {at: 10s, crash: zk3}
  - {at: 25s, partition: [[zk1, i2], [zk2, zk3, i1, i3]]}   # groups that can talk among themselves
  - {at: 26s, isolate: zk2}        # one node cut from all
  - {at: 27s, bridge: {node: zk1, sides: [[zk2, i1], [zk3, i2]]}}  # zk1 sees both sides, the sides do not see each other
  - {at: 28s, drop: {from: zk1, to: zk2}}                 # one-way loss
  - {at: 35s, heal: all}
  - {at: 30s, pause: i2, for: 10s} # process pause (GC stall): frozen, then resumes with stale beliefs
  - {at: 12s, disable: i3}         # ElasticJob operator disables the server
  - {at: 14s, enable: i3}
  - {at: 50s, shutdown: i2}        # graceful shutdown
  - {at: 45s, set_sharding_total_count: {job: order-sync, value: 12}}

expect:
  hold: [zab-single-leader, job-single-leader, full-coverage, eventual-leader]
  fail: []                         # properties this scenario must violate (bug demonstrations)
)yaml";

Scenario parse(const std::string& yaml) { return parse_scenario_text(yaml, "test.yaml"); }

TEST(ScenarioParser, ReadsEveryKeyOfTheContractExample) {
  Scenario s = parse(contract_example);
  EXPECT_EQ(s.name, "leader-crash");
  EXPECT_EQ(s.description, "The job leader crashes; its session expires and another instance takes over.");
  EXPECT_EQ(s.seed, 42u);
  EXPECT_EQ(s.duration, 60s);
  EXPECT_EQ(s.recipe, Recipe::elasticjob);
  EXPECT_TRUE(s.bugs.empty());

  EXPECT_EQ(s.zookeeper.servers, 3);
  EXPECT_EQ(s.zookeeper.tick_time, 2s);
  EXPECT_EQ(s.zookeeper.init_limit, 10);
  EXPECT_EQ(s.zookeeper.sync_limit, 5);
  EXPECT_EQ(s.zookeeper.start, StartMode::together);
  EXPECT_EQ(s.zookeeper.start_interval, 1s);
  EXPECT_EQ(s.zookeeper.initial_zxid, (std::map<std::string, std::int64_t>{{"zk2", 0x100000005}}));

  EXPECT_EQ(s.network.latency_min, 1ms);
  EXPECT_EQ(s.network.latency_max, 5ms);
  EXPECT_EQ(s.network.distribution, LatencyDistribution::uniform);
  EXPECT_EQ(s.clients.session_timeout, 6s);
  EXPECT_EQ(s.clients.connect, "all");

  EXPECT_EQ(s.instances.count, 3);
  EXPECT_EQ(s.instances.ids, (std::map<std::string, std::string>{{"i1", "10.0.0.1@-@1"}}));
  EXPECT_EQ(s.instances.start, StartMode::together);

  ASSERT_EQ(s.jobs.size(), 1u);
  EXPECT_EQ(s.jobs[0].name, "order-sync");
  EXPECT_EQ(s.jobs[0].sharding_total_count, 10);
  EXPECT_EQ(s.jobs[0].strategy, "average");
  EXPECT_EQ(s.jobs[0].fire_interval, 5s);
  EXPECT_EQ(s.jobs[0].execution_time_min, 100ms);
  EXPECT_EQ(s.jobs[0].execution_time_max, 2s);
  EXPECT_TRUE(s.jobs[0].monitor_execution);
  EXPECT_FALSE(s.elasticsearch.has_value());

  ASSERT_EQ(s.faults.size(), 14u);
  EXPECT_EQ(s.expect.hold,
            (std::vector<std::string>{"zab-single-leader", "job-single-leader", "full-coverage", "eventual-leader"}));
  EXPECT_TRUE(s.expect.fail.empty());
  EXPECT_FALSE(s.failure.has_value());
}

TEST(ScenarioParser, OnlyNameAndDurationAreRequired) {
  Scenario s = parse("name: minimal\nduration: 10s\n");
  Scenario expected;
  expected.name = "minimal";
  expected.duration = 10s;
  EXPECT_EQ(s, expected);
}

TEST(ScenarioParser, DefaultsAreTheDocumentedOnes) {
  Scenario s = parse("name: minimal\nduration: 10s\n");
  EXPECT_EQ(s.seed, 1u);
  EXPECT_EQ(s.recipe, Recipe::none);
  EXPECT_EQ(s.zookeeper.servers, 3);
  EXPECT_EQ(s.zookeeper.tick_time, 2000ms);
  EXPECT_EQ(s.zookeeper.init_limit, 10);
  EXPECT_EQ(s.zookeeper.sync_limit, 5);
  EXPECT_EQ(s.zookeeper.start, StartMode::together);
  EXPECT_EQ(s.zookeeper.start_interval, 1s);
  EXPECT_FALSE(s.zookeeper.min_session_timeout.has_value());
  EXPECT_FALSE(s.zookeeper.max_session_timeout.has_value());
  EXPECT_EQ(s.network.latency_min, 1ms);
  EXPECT_EQ(s.network.latency_max, 5ms);
  EXPECT_EQ(s.clients.session_timeout, 6s);
  EXPECT_EQ(s.clients.connect, "all");
  EXPECT_EQ(s.instances.count, 3);
  EXPECT_EQ(s.instances.start_interval, 1s);
  EXPECT_TRUE(s.faults.empty());
  EXPECT_FALSE(s.elasticsearch.has_value());
}

TEST(ScenarioParser, InstanceIdsDefaultToIpAtPid) {
  Scenario s = parse("name: x\nduration: 1s\nrecipe: elasticjob\ninstances: {count: 4, ids: {i2: host-b@-@77}}\n");
  EXPECT_EQ(instance_id(s, 1), "10.0.0.1@-@1");
  EXPECT_EQ(instance_id(s, 2), "host-b@-@77");
  EXPECT_EQ(instance_id(s, 4), "10.0.0.4@-@4");
}

TEST(ScenarioParser, JobDefaultsAndShortForms) {
  Scenario s = parse(R"(
name: x
duration: 1m
recipe: elasticjob
jobs:
  - {name: a, sharding_total_count: 3}
  - {name: b, sharding_total_count: 4, strategy: odevity, execution_time: 250ms, monitor_execution: false}
)");
  ASSERT_EQ(s.jobs.size(), 2u);
  EXPECT_EQ(s.jobs[0].strategy, "average");
  EXPECT_EQ(s.jobs[0].fire_interval, 5s);
  EXPECT_EQ(s.jobs[0].execution_time_min, 100ms);
  EXPECT_EQ(s.jobs[0].execution_time_max, 100ms);
  EXPECT_TRUE(s.jobs[0].monitor_execution);
  EXPECT_EQ(s.jobs[1].strategy, "odevity");
  EXPECT_EQ(s.jobs[1].execution_time_min, 250ms);
  EXPECT_EQ(s.jobs[1].execution_time_max, 250ms);
  EXPECT_FALSE(s.jobs[1].monitor_execution);
}

TEST(ScenarioParser, NumbersInDecimalAndHex) {
  Scenario s = parse(R"(
name: x
duration: 1s
seed: 18446744073709551615
zookeeper: {servers: 5, initial_zxid: {zk1: 0, zk3: 4294967301, zk5: 0x7FFFFFFFFFFFFFFF}}
)");
  EXPECT_EQ(s.seed, UINT64_MAX);
  EXPECT_EQ(s.zookeeper.initial_zxid.at("zk1"), 0);
  EXPECT_EQ(s.zookeeper.initial_zxid.at("zk3"), 0x100000005);
  EXPECT_EQ(s.zookeeper.initial_zxid.at("zk5"), INT64_MAX);
  EXPECT_EQ(parse("name: x\nduration: 1s\nseed: 0x2A\n").seed, 42u);
}

TEST(ScenarioParser, NetworkLatencyForms) {
  Scenario fixed = parse("name: x\nduration: 1s\nnetwork: {latency: 2ms}\n");
  EXPECT_EQ(fixed.network.latency_min, 2ms);
  EXPECT_EQ(fixed.network.latency_max, 2ms);
  Scenario named =
      parse("name: x\nduration: 1s\nnetwork: {latency: {min: 500us, max: 1.5ms, distribution: uniform}}\n");
  EXPECT_EQ(named.network.latency_min, 500us);
  EXPECT_EQ(named.network.latency_max, 1500us);
  Scenario only_max = parse("name: x\nduration: 1s\nnetwork: {latency: {max: 20ms}}\n");
  EXPECT_EQ(only_max.network.latency_min, 1ms);
  EXPECT_EQ(only_max.network.latency_max, 20ms);
}

TEST(ScenarioParser, ZooKeeperExtensionsAndStaggeredStart) {
  Scenario s = parse(R"(
name: x
duration: 1s
zookeeper: {servers: 5, start: staggered, start_interval: 500ms, min_session_timeout: 4s, max_session_timeout: 40s}
instances: {count: 0, start: staggered, start_interval: 0s}
clients: {session_timeout: 30s}
)");
  EXPECT_EQ(s.zookeeper.start, StartMode::staggered);
  EXPECT_EQ(s.zookeeper.start_interval, 500ms);
  EXPECT_EQ(s.zookeeper.min_session_timeout, 4s);
  EXPECT_EQ(s.zookeeper.max_session_timeout, 40s);
  EXPECT_EQ(s.instances.count, 0);
  EXPECT_EQ(s.instances.start, StartMode::staggered);
  EXPECT_EQ(s.instances.start_interval, 0s);
  EXPECT_EQ(s.clients.session_timeout, 30s);
}

TEST(ScenarioParser, ElasticsearchDefaultsComeWithTheRecipe) {
  Scenario s = parse("name: x\nduration: 1s\nrecipe: es-zen\n");
  ASSERT_TRUE(s.elasticsearch.has_value());
  EXPECT_EQ(*s.elasticsearch, ElasticsearchConfig{});
  EXPECT_EQ(s.elasticsearch->nodes, 3);
  EXPECT_EQ(s.elasticsearch->minimum_master_nodes, 2);
  EXPECT_EQ(s.elasticsearch->ping_timeout, 3s);
  EXPECT_EQ(s.elasticsearch->commit_timeout, 30s);
  EXPECT_EQ(s.elasticsearch->publish_timeout, 30s);
  EXPECT_EQ(s.elasticsearch->fd_ping_interval, 1s);
  EXPECT_EQ(s.elasticsearch->fd_ping_timeout, 30s);
  EXPECT_EQ(s.elasticsearch->fd_ping_retries, 3);
  EXPECT_EQ(s.elasticsearch->cluster_tasks.rate, 0);
  EXPECT_EQ(s.elasticsearch->cluster_tasks.priorities, std::vector<EsPriority>{EsPriority::normal});
  EXPECT_EQ(s.elasticsearch->cluster_tasks.executor, EsTaskExecutor::per_task);
}

TEST(ScenarioParser, ElasticsearchEveryKey) {
  Scenario s = parse(R"(
name: split-brain
duration: 2m
recipe: es-zen
bugs: [es-2488-local-elect]
elasticsearch:
  nodes: 5
  minimum_master_nodes: 2
  ping_timeout: 1s
  commit_timeout: 10s
  publish_timeout: 20s
  fd_ping_interval: 2s
  fd_ping_timeout: 5s
  fd_ping_retries: 6
  cluster_tasks: {rate: 2.5, priorities: [URGENT, LANGUID], executor: shared}
faults:
  - {at: 30s, partition: [[es1, es2], [es3, es4, es5]]}
expect:
  fail: [es-single-master]
)");
  ASSERT_TRUE(s.elasticsearch.has_value());
  const ElasticsearchConfig& es = *s.elasticsearch;
  EXPECT_EQ(es.nodes, 5);
  EXPECT_EQ(es.minimum_master_nodes, 2);
  EXPECT_EQ(es.ping_timeout, 1s);
  EXPECT_EQ(es.commit_timeout, 10s);
  EXPECT_EQ(es.publish_timeout, 20s);
  EXPECT_EQ(es.fd_ping_interval, 2s);
  EXPECT_EQ(es.fd_ping_timeout, 5s);
  EXPECT_EQ(es.fd_ping_retries, 6);
  EXPECT_EQ(es.cluster_tasks.rate, 2.5);
  EXPECT_EQ(es.cluster_tasks.priorities, (std::vector<EsPriority>{EsPriority::urgent, EsPriority::languid}));
  EXPECT_EQ(es.cluster_tasks.executor, EsTaskExecutor::shared);
  EXPECT_EQ(s.bugs, std::vector<std::string>{"es-2488-local-elect"});
  EXPECT_EQ(s.faults[0].groups[1], (std::vector<std::string>{"es3", "es4", "es5"}));
  EXPECT_EQ(s.expect.fail, std::vector<std::string>{"es-single-master"});
}

TEST(ScenarioParser, FailureRecord) {
  Scenario s = parse(R"(
name: x
duration: 1s
failure: {property: zab-agreement, trace_hash: "0123456789ABCDEF", found_by: "electsim explore --seed 7"}
)");
  ASSERT_TRUE(s.failure.has_value());
  EXPECT_EQ(s.failure->property, "zab-agreement");
  EXPECT_EQ(s.failure->trace_hash, "0123456789abcdef");  // lowercased, as electsim prints it
  EXPECT_EQ(s.failure->found_by, "electsim explore --seed 7");
  Scenario bare = parse("name: x\nduration: 1s\nfailure: {property: watch-once, trace_hash: 00000000deadbeef}\n");
  EXPECT_EQ(bare.failure->found_by, "");
}

TEST(ScenarioParser, SectionsMayComeInAnyOrder) {
  Scenario s = parse(R"(
faults: [{at: 1s, crash: zk5}, {at: 2s, shutdown: i7}]
instances: {count: 7}
recipe: leader-latch
zookeeper: {servers: 5}
duration: 10s
name: late-sections
)");
  EXPECT_EQ(s.faults.size(), 2u);
}

TEST(ScenarioParser, EmptySectionsAndListsTakeTheirDefaults) {
  // A section whose entries are all commented out is common in hand-edited files.
  Scenario s = parse(R"(
name: x
duration: 1s
bugs:
zookeeper:
faults:
  # - {at: 1s, crash: zk1}
expect:
  hold:
)");
  EXPECT_EQ(s.zookeeper, ZooKeeperConfig{});
  EXPECT_TRUE(s.faults.empty());
  EXPECT_TRUE(s.expect.hold.empty());
}

TEST(ScenarioParser, MultiLineDescriptionAndBooleans) {
  Scenario s = parse(R"(
name: x
description: |
  First line.
  Second line.
duration: 1s
recipe: elasticjob
jobs: [{name: j, sharding_total_count: 1, monitor_execution: False}]
)");
  EXPECT_EQ(s.description, "First line.\nSecond line.\n");
  EXPECT_FALSE(s.jobs[0].monitor_execution);
}

TEST(ScenarioParser, ATrailingEmptyDocumentIsHarmless) {
  EXPECT_EQ(parse("---\nname: x\nduration: 1s\n---\n").name, "x");
}

}  // namespace
