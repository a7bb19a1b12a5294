// The fault schedule: every action's shape, time order, node names, and each fault error's position.
#include <gtest/gtest.h>

#include <string>

#include "harness/scenario_parser.h"

namespace {

using namespace harness;
using namespace std::chrono_literals;

using Groups = std::vector<std::vector<std::string>>;

// Three servers, three instances, one job; the fault list starts on line 9.
const std::string head = R"(name: x
duration: 60s
recipe: elasticjob
jobs: [{name: order-sync, sharding_total_count: 10}]
zookeeper: {servers: 3}
instances: {count: 3}
bugs: []
faults:
)";

std::vector<Fault> faults(const std::string& list) { return parse_scenario_text(head + list, "f.yaml").faults; }

std::string error_of(const std::string& yaml) {
  try {
    parse_scenario_text(yaml, "f.yaml");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "no error";
}

std::string fault_error(const std::string& list) { return error_of(head + list); }

TEST(ScenarioFaults, EveryActionAndItsFields) {
  std::vector<Fault> f = faults(R"(
  - {at: 1s, crash: zk1}
  - {at: 2s, power_off: i3}
  - {at: 3s, restart: zk1}
  - {at: 4s, partition: [[zk1, i2], [zk2, zk3, i1, i3]]}
  - {at: 5s, isolate: zk2}
  - {at: 6s, bridge: {node: zk1, sides: [[zk2, i1], [zk3, i2]]}}
  - {at: 7s, drop: {from: zk1, to: zk2}}
  - {at: 8s, heal: all}
  - {at: 9s, pause: i2, for: 10s}
  - {at: 10s, disable: i3}
  - {at: 11s, enable: i3}
  - {at: 12s, shutdown: i2}
  - {at: 13s, set_sharding_total_count: {job: order-sync, value: 12}}
)");
  ASSERT_EQ(f.size(), 13u);
  for (std::size_t i = 0; i < f.size(); i++) EXPECT_EQ(f[i].at, std::chrono::seconds(i + 1));

  EXPECT_EQ(f[0].kind, FaultKind::crash);
  EXPECT_EQ(f[0].node, "zk1");
  EXPECT_EQ(f[1].kind, FaultKind::power_off);
  EXPECT_EQ(f[1].node, "i3");
  EXPECT_EQ(f[2].kind, FaultKind::restart);
  EXPECT_EQ(f[3].kind, FaultKind::partition);
  EXPECT_EQ(f[3].groups, (Groups{{"zk1", "i2"}, {"zk2", "zk3", "i1", "i3"}}));
  EXPECT_EQ(f[4].kind, FaultKind::isolate);
  EXPECT_EQ(f[4].node, "zk2");
  EXPECT_EQ(f[5].kind, FaultKind::bridge);
  EXPECT_EQ(f[5].node, "zk1");
  EXPECT_EQ(f[5].groups, (Groups{{"zk2", "i1"}, {"zk3", "i2"}}));
  EXPECT_EQ(f[6].kind, FaultKind::drop);
  EXPECT_EQ(f[6].from, "zk1");
  EXPECT_EQ(f[6].to, "zk2");
  EXPECT_EQ(f[7].kind, FaultKind::heal);
  EXPECT_EQ(f[8].kind, FaultKind::pause);
  EXPECT_EQ(f[8].node, "i2");
  EXPECT_EQ(f[8].pause_for, 10s);
  EXPECT_EQ(f[9].kind, FaultKind::disable);
  EXPECT_EQ(f[10].kind, FaultKind::enable);
  EXPECT_EQ(f[11].kind, FaultKind::shutdown);
  EXPECT_EQ(f[12].kind, FaultKind::set_sharding_total_count);
  EXPECT_EQ(f[12].job, "order-sync");
  EXPECT_EQ(f[12].value, 12);
}

TEST(ScenarioFaults, SortedByTimeKeepingTheFileOrderForTies) {
  std::vector<Fault> f = faults(R"(
  - {at: 30s, restart: i1}
  - {at: 10s, crash: i1}
  - {at: 20s, crash: zk1}
  - {at: 10s, crash: i2}
  - {at: 20s, restart: zk1}
  - {at: 0s, isolate: zk3}
  - {at: 10s, crash: i3}
)");
  std::vector<std::pair<sim::Duration, std::string>> order;
  for (const Fault& fault : f) order.emplace_back(fault.at, fault.node);
  EXPECT_EQ(order, (std::vector<std::pair<sim::Duration, std::string>>{
                       {0s, "zk3"}, {10s, "i1"}, {10s, "i2"}, {10s, "i3"}, {20s, "zk1"}, {20s, "zk1"}, {30s, "i1"}}));
  EXPECT_EQ(f[4].kind, FaultKind::crash);  // the crash written first stays first
  EXPECT_EQ(f[5].kind, FaultKind::restart);
}

TEST(ScenarioFaults, AtTheVeryEndIsAllowedAndPausesMayOutlastIt) {
  std::vector<Fault> f = faults("  - {at: 60s, pause: zk1, for: 1h}\n  - {at: 1500ms, heal: all}\n");
  EXPECT_EQ(f[0].at, 1500ms);
  EXPECT_EQ(f[1].at, 60s);
}

TEST(ScenarioFaults, BlockStyleFaultsWork) {
  std::vector<Fault> f = faults("  - at: 5s\n    pause: i1\n    for: 200ms\n");
  EXPECT_EQ(f[0].pause_for, 200ms);
}

TEST(ScenarioFaults, AfterTheEnd) {
  EXPECT_EQ(fault_error("  - {at: 70s, crash: zk1}\n"),
            "f.yaml:9:10: fault at 70s is after the end of the scenario (duration 60s)");
}

TEST(ScenarioFaults, UnknownNodes) {
  EXPECT_EQ(fault_error("  - {at: 1s, crash: zk4}\n"),
            "f.yaml:9:21: unknown node 'zk4': zookeeper.servers is 3, so servers are zk1..zk3");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: i9}\n"),
            "f.yaml:9:21: unknown node 'i9': instances.count is 3, so instances are i1..i3");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: es1}\n"),
            "f.yaml:9:21: unknown node 'es1': es1..esN exist only with recipe es-zen");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: zk01}\n"),
            "f.yaml:9:21: unknown node 'zk01': the nodes are zk1..zk3, i1..i3");
  EXPECT_EQ(fault_error("  - {at: 1s, isolate: server1}\n"),
            "f.yaml:9:23: unknown node 'server1': the nodes are zk1..zk3, i1..i3");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: elasticjob\ninstances: {count: 0}\nfaults: [{at: 1s, crash: i1}]\n"),
            "f.yaml:5:26: unknown node 'i1': instances.count is 0, so there are no instances");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nzookeeper: {servers: 1}\nfaults: [{at: 1s, crash: zk2}]\n"),
            "f.yaml:4:26: unknown node 'zk2': zookeeper.servers is 1, so servers are zk1");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nfaults: [{at: 1s, crash: es4}]\n"),
            "f.yaml:4:26: unknown node 'es4': elasticsearch.nodes is 3, so nodes are es1..es3");
}

// Counts the recipe does not use name no node: recipe none runs no instances (whatever
// instances.count says), es-zen no ZooKeeper servers and no ZooKeeper clients.
TEST(ScenarioFaults, NodesTheRecipeDoesNotRunAreUnknown) {
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: [{at: 1s, crash: i1}]\n"),
            "f.yaml:3:26: unknown node 'i1': recipe none has no instances");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: [{at: 1s, shutdown: i1}]\n"),
            "f.yaml:3:29: unknown node 'i1': recipe none has no instances");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: [{at: 1s, crash: ZK1}]\n"),
            "f.yaml:3:26: unknown node 'ZK1': the nodes are zk1..zk3");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nfaults: [{at: 1s, crash: zk1}]\n"),
            "f.yaml:4:26: unknown node 'zk1': recipe es-zen runs no ZooKeeper servers");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nfaults: [{at: 1s, crash: i1}]\n"),
            "f.yaml:4:26: unknown node 'i1': recipe es-zen has no instances");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nclients: {writers: 2}\nfaults: [{at: 1s, crash: w1}]\n"),
            "f.yaml:5:26: unknown node 'w1': recipe es-zen has no ZooKeeper clients");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nfaults: [{at: 1s, partition: [[es1, zk1], [es2]]}]\n"),
            "f.yaml:4:37: unknown node 'zk1': recipe es-zen runs no ZooKeeper servers");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: es-zen\nfaults: [{at: 1s, crash: x}]\n"),
            "f.yaml:4:26: unknown node 'x': the nodes are es1..es3");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: [{at: 1s, shutdown: zk1}]\n"),
            "f.yaml:3:29: shutdown takes an instance, but recipe none has no instances, and 'zk1' is a server");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nclients: {writers: 1}\nfaults: [{at: 1s, crash: w1}, {at: 1s, crash: zk3}]\n"),
            "no error");
}

TEST(ScenarioFaults, ShapeOfAFault) {
  EXPECT_EQ(fault_error("  - crash zk1\n"), "f.yaml:9:5: a fault must be a mapping, such as {at: 10s, crash: zk1}");
  EXPECT_EQ(fault_error("  - {at: 1s}\n"),
            "f.yaml:9:5: a fault needs an action: crash, power_off, restart, partition, isolate, bridge, drop, heal, "
            "pause, disable, enable, shutdown or set_sharding_total_count");
  EXPECT_EQ(fault_error("  - {crash: zk1}\n"),
            "f.yaml:9:5: a fault needs 'at', the time it happens, such as {at: 10s, crash: ...}, or 'after', the step that "
            "triggers it, such as {after: {event: zk.state, node: zk1}, crash: ...}");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: zk1, restart: zk1}\n"),
            "f.yaml:9:26: a fault has exactly one action, but this one has 'crash' and 'restart' (write one fault for "
            "each)");
  EXPECT_EQ(fault_error("  - {at: 1s, crsh: zk1}\n"),
            "f.yaml:9:14: unknown key 'crsh' in faults (did you mean 'crash'?)");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: [zk1, zk2]}\n"),
            "f.yaml:9:21: crash takes one node name, such as {at: 10s, crash: zk1}");
  EXPECT_EQ(fault_error("  - {at: soon, crash: zk1}\n"),
            "f.yaml:9:10: bad duration 'soon': expected a number followed by ns, us, ms, s, m or h");
}

TEST(ScenarioFaults, Pause) {
  EXPECT_EQ(
      fault_error("  - {at: 1s, pause: i1}\n"),
      "f.yaml:9:14: pause needs 'for', how long the process stays frozen, such as {at: 30s, pause: i2, for: 10s}");
  EXPECT_EQ(fault_error("  - {at: 1s, pause: i1, for: 0s}\n"), "f.yaml:9:30: faults.for must be longer than 0s");
  EXPECT_EQ(fault_error("  - {at: 1s, pause: i1, for: -1s}\n"),
            "f.yaml:9:30: bad duration '-1s': expected a number followed by ns, us, ms, s, m or h (durations cannot be "
            "negative)");
  EXPECT_EQ(fault_error("  - {at: 1s, crash: i1, for: 2s}\n"),
            "f.yaml:9:25: 'for' belongs to pause only, not to crash");
}

TEST(ScenarioFaults, Partition) {
  EXPECT_EQ(fault_error("  - {at: 1s, partition: [[zk1, zk2]]}\n"),
            "f.yaml:9:25: partition takes two or more groups of nodes, such as [[zk1, i1], [zk2, zk3]]");
  EXPECT_EQ(fault_error("  - {at: 1s, partition: [[zk1], []]}\n"),
            "f.yaml:9:33: partition must be a non-empty list of node names, such as [zk1, i1]");
  EXPECT_EQ(
      fault_error("  - {at: 1s, partition: [[zk1, i1], [zk2, zk1]]}\n"),
      "f.yaml:9:43: node 'zk1' appears twice in the partition (first at line 9); a node can be in one group only");
  EXPECT_EQ(
      fault_error("  - {at: 1s, partition: [[zk1, zk1], [zk2]]}\n"),
      "f.yaml:9:32: node 'zk1' appears twice in the partition (first at line 9); a node can be in one group only");
  EXPECT_EQ(fault_error("  - {at: 1s, partition: [[zk1], [zk5]]}\n"),
            "f.yaml:9:34: unknown node 'zk5': zookeeper.servers is 3, so servers are zk1..zk3");
}

TEST(ScenarioFaults, Bridge) {
  EXPECT_EQ(fault_error("  - {at: 1s, bridge: {node: zk1, sides: [[zk2], [zk3], [i1]]}}\n"),
            "f.yaml:9:41: bridge sides must be two groups of nodes, such as [[zk2, i1], [zk3, i2]]");
  EXPECT_EQ(fault_error("  - {at: 1s, bridge: {node: zk1, sides: [[zk1, zk2], [zk3]]}}\n"),
            "f.yaml:9:43: node 'zk1' appears twice in the bridge (first at line 9); a node can be in one group only");
  EXPECT_EQ(fault_error("  - {at: 1s, bridge: {node: zk1, sides: [[zk2], [zk3, zk2]]}}\n"),
            "f.yaml:9:55: node 'zk2' appears twice in the bridge (first at line 9); a node can be in one group only");
  EXPECT_EQ(fault_error("  - {at: 1s, bridge: {sides: [[zk2], [zk3]]}}\n"),
            "f.yaml:9:22: missing key 'node' in faults.bridge");
  EXPECT_EQ(fault_error("  - {at: 1s, bridge: {node: zk1, side: [[zk2], [zk3]]}}\n"),
            "f.yaml:9:34: unknown key 'side' in faults.bridge (did you mean 'sides'?)");
}

TEST(ScenarioFaults, DropHealAndInstanceActions) {
  EXPECT_EQ(fault_error("  - {at: 1s, drop: {from: zk1, to: zk1}}\n"),
            "f.yaml:9:36: drop needs two different nodes, got 'zk1' twice");
  EXPECT_EQ(fault_error("  - {at: 1s, heal: zk1}\n"),
            "f.yaml:9:20: heal takes 'all' (healing everything is the only form for now)");
  EXPECT_EQ(fault_error("  - {at: 1s, disable: zk1}\n"),
            "f.yaml:9:23: disable takes an instance (i1..i3), not the server 'zk1'");
  EXPECT_EQ(fault_error("  - {at: 1s, shutdown: zk2}\n"),
            "f.yaml:9:24: shutdown takes an instance (i1..i3), not the server 'zk2'");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nrecipe: leader-latch\nfaults: [{at: 1s, disable: i1}]\n"),
            "f.yaml:4:19: disable is an ElasticJob operation, but the recipe is leader-latch");
  // Shutting a contender down gracefully is meaningful for every recipe with instances.
  EXPECT_NO_THROW(
      parse_scenario_text("name: x\nduration: 1s\nrecipe: leader-latch\nfaults: [{at: 1s, shutdown: i1}]\n", "f"));
}

TEST(ScenarioFaults, SetShardingTotalCount) {
  EXPECT_EQ(fault_error("  - {at: 1s, set_sharding_total_count: {job: other, value: 3}}\n"),
            "f.yaml:9:46: unknown job 'other': set_sharding_total_count names a job under jobs");
  EXPECT_EQ(fault_error("  - {at: 1s, set_sharding_total_count: {job: order-sync, value: 0}}\n"),
            "f.yaml:9:65: faults.set_sharding_total_count.value must be between 1 and 10000, got 0");
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: [{at: 1s, set_sharding_total_count: {job: j, value: 2}}]\n"),
            "f.yaml:3:19: set_sharding_total_count is an ElasticJob operation, but the recipe is none");
}

TEST(ScenarioFaults, TooManyFaults) {
  std::string list = "[";
  for (int i = 0; i <= faults_max; i++) list += "{at: 1s, heal: all},";
  list += "]";
  EXPECT_EQ(error_of("name: x\nduration: 1s\nfaults: " + list + "\n"),
            "f.yaml:3:9: faults has 10001 items, more than the 10000 allowed");
}

}  // namespace
