// Each class of error in a scenario file, with the exact FILE:LINE:COLUMN it points at.
#include <gtest/gtest.h>

#include <string>

#include "harness/scenario_parser.h"

namespace {

using namespace harness;

// Lines 1 and 2 of most snippets below, so the interesting line is line 3.
const std::string head = "name: x\nduration: 60s\n";

std::string error_of(const std::string& yaml) {
  try {
    parse_scenario_text(yaml, "s.yaml");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "no error";
}

TEST(ScenarioErrors, CarryFileLineColumnAndMessage) {
  try {
    parse_scenario_text(head + "seed: many\n", "dir/s.yaml");
    FAIL() << "no error";
  } catch (const ScenarioError& error) {
    EXPECT_EQ(error.file(), "dir/s.yaml");
    EXPECT_EQ(error.line(), 3);
    EXPECT_EQ(error.column(), 7);
    EXPECT_EQ(error.message(), "bad number 'many' for seed: expected a whole number from 0 to 18446744073709551615");
    EXPECT_EQ(std::string(error.what()), "dir/s.yaml:3:7: " + error.message());
  }
}

TEST(ScenarioErrors, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(error_of(head + "zookeeper:\n  servers: 3\n  tick_tme: 2s\n"),
            "s.yaml:5:3: unknown key 'tick_tme' in zookeeper (did you mean 'tick_time'?)");
  EXPECT_EQ(error_of(head + "zookeper: {servers: 3}\n"),
            "s.yaml:3:1: unknown key 'zookeper' (did you mean 'zookeeper'?)");
  EXPECT_EQ(error_of(head + "network: {latency: {min: 1ms, mx: 2ms}}\n"),
            "s.yaml:3:31: unknown key 'mx' in network.latency (did you mean 'max'?)");
}

TEST(ScenarioErrors, UnknownKeyWithoutACloseOneListsTheKeys) {
  EXPECT_EQ(error_of(head + "clients: {frobnicate: 1}\n"),
            "s.yaml:3:11: unknown key 'frobnicate' in clients; expected session_timeout, connect, writers, write_interval, ephemeral_writes, writes or reads");
}

TEST(ScenarioErrors, DuplicateKey) {
  EXPECT_EQ(error_of(head + "seed: 1\nseed: 2\n"), "s.yaml:4:1: duplicate key 'seed' (first at line 3)");
}

TEST(ScenarioErrors, MissingRequiredKeys) {
  EXPECT_EQ(error_of("duration: 1s\n"), "s.yaml:1:1: missing key 'name'");
  EXPECT_EQ(error_of("name: x\n"), "s.yaml:1:1: missing key 'duration'");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs:\n  - name: j\n"),
            "s.yaml:5:5: missing key 'sharding_total_count' in jobs");
}

TEST(ScenarioErrors, BadDurations) {
  EXPECT_EQ(error_of("name: x\nduration: 10 s\n"),
            "s.yaml:2:11: bad duration '10 s': expected a number followed by ns, us, ms, s, m or h");
  EXPECT_EQ(error_of("name: x\nduration: 10\n"),
            "s.yaml:2:11: bad duration '10': expected a number followed by ns, us, ms, s, m or h (a bare number has "
            "no unit: write 10s or 10ms)");
  EXPECT_EQ(error_of("name: x\nduration: -5s\n"),
            "s.yaml:2:11: bad duration '-5s': expected a number followed by ns, us, ms, s, m or h (durations cannot "
            "be negative)");
  EXPECT_EQ(error_of("name: x\nduration: 0s\n"), "s.yaml:2:11: duration must be longer than 0s");
  EXPECT_EQ(error_of("name: x\nduration: 25h\n"),
            "s.yaml:2:11: duration is 90000s, longer than the limit of 86400s (24h)");
  EXPECT_EQ(error_of(head + "zookeeper: {tick_time: [2s]}\n"),
            "s.yaml:3:24: zookeeper.tick_time: expected a duration, got a list");
}

TEST(ScenarioErrors, BadNumbers) {
  EXPECT_EQ(error_of(head + "zookeeper:\n  servers: three\n"),
            "s.yaml:4:12: bad number 'three' for zookeeper.servers: expected a whole number");
  EXPECT_EQ(error_of(head + "zookeeper:\n  servers: 20\n"),
            "s.yaml:4:12: zookeeper.servers must be between 1 and 15, got 20");
  EXPECT_EQ(error_of(head + "zookeeper:\n  servers: 03\n"),
            "s.yaml:4:12: bad number '03' for zookeeper.servers: expected a whole number without leading zeros (YAML "
            "1.1 would read it as octal)");
  EXPECT_EQ(error_of(head + "instances: {count: -1}\n"),
            "s.yaml:3:20: instances.count must be between 0 and 1000, got -1");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {cluster_tasks: {rate: fast}}\n"),
            "s.yaml:4:39: bad number 'fast' for elasticsearch.cluster_tasks.rate: expected a number such as 2 or 0.5");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {cluster_tasks: {rate: -1}}\n"),
            "s.yaml:4:39: elasticsearch.cluster_tasks.rate must be between 0 and 100000, got -1");
}

TEST(ScenarioErrors, BadBooleansAndEnumerations) {
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: j, sharding_total_count: 1, monitor_execution: yes}]\n"),
            "s.yaml:4:62: bad value 'yes' for jobs.monitor_execution: expected true or false");
  EXPECT_EQ(error_of(head + "recipe: leader_latch\n"),
            "s.yaml:3:9: unknown recipe 'leader_latch' (did you mean 'leader-latch'?)");
  EXPECT_EQ(error_of(head + "recipe: paxos\n"),
            "s.yaml:3:9: unknown recipe 'paxos': expected none, elasticjob, leader-latch, leader-selector, "
            "naive-master or es-zen");
  EXPECT_EQ(error_of(head + "zookeeper: {start: random}\n"),
            "s.yaml:3:20: unknown start mode 'random' for zookeeper.start: expected together or staggered");
  EXPECT_EQ(error_of(head + "network: {latency: {distribution: normal}}\n"),
            "s.yaml:3:35: unknown distribution 'normal' for network.latency.distribution: only uniform is supported "
            "for now");
  EXPECT_EQ(error_of(head + "clients: {connect: one}\n"),
            "s.yaml:3:20: unknown connect mode 'one' for clients.connect: only all (every client gets the whole server "
            "list) is supported for now");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: j, sharding_total_count: 1, strategy: odevty}]\n"),
            "s.yaml:4:53: unknown strategy 'odevty' (did you mean 'odevity'?)");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {cluster_tasks: {priorities: [NORMAL, normal]}}\n"),
            "s.yaml:4:54: unknown priority 'normal': expected IMMEDIATE, URGENT, HIGH, NORMAL, LOW or LANGUID");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {cluster_tasks: {executor: pooled}}\n"),
            "s.yaml:4:43: unknown executor 'pooled' for elasticsearch.cluster_tasks.executor: expected per-task or shared");
}

TEST(ScenarioErrors, UnknownBugSwitchesAndProperties) {
  EXPECT_EQ(error_of(head + "bugs: [foo]\n"), "s.yaml:3:8: unknown bug switch 'foo' (electsim bugs lists them)");
  EXPECT_EQ(error_of(head + "bugs: [latch-watch-parent]\n"),
            "s.yaml:3:8: unknown bug switch 'latch-watch-parent' (did you mean 'latch-watches-parent'?)");
  EXPECT_EQ(error_of(head + "bugs: [naive-no-anti-jitter, naive-no-anti-jitter]\n"),
            "s.yaml:3:30: 'naive-no-anti-jitter' is listed twice in bugs (first at line 3)");
  // A switch of another recipe's code would change nothing in this run.
  EXPECT_EQ(error_of(head + "bugs: [es-master-service-fifo]\n"),
            "s.yaml:3:8: bug switch 'es-master-service-fifo' is for es-zen, not recipe none, which would run without it");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nbugs: [zk-watch-not-one-shot]\n"),
            "s.yaml:4:8: bug switch 'zk-watch-not-one-shot' is for every recipe but es-zen, not recipe es-zen, which would run "
            "without it");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\nbugs: [latch-watches-parent]\n"),
            "s.yaml:4:8: bug switch 'latch-watches-parent' is for leader-latch and leader-selector, not recipe elasticjob, which "
            "would run without it");
  EXPECT_EQ(error_of(head + "recipe: leader-selector\nbugs: [latch-watches-parent, zab-commit-without-quorum]\n"), "no error");
  EXPECT_EQ(error_of(head + "expect:\n  hold: [liveness]\n"),
            "s.yaml:4:10: unknown property 'liveness' (electsim properties lists them)");
  EXPECT_EQ(error_of(head + "expect:\n  hold: [full-coverag]\n"),
            "s.yaml:4:10: unknown property 'full-coverag' (did you mean 'full-coverage'?)");
  EXPECT_EQ(error_of(head + "expect:\n  hold: [watch-once]\n  fail: [zab-agreement, watch-once]\n"),
            "s.yaml:5:25: property 'watch-once' is in both expect.hold and expect.fail");
  EXPECT_EQ(error_of(head + "failure: {property: nope, trace_hash: 0000000000000000}\n"),
            "s.yaml:3:21: unknown property 'nope' (electsim properties lists them)");
}

TEST(ScenarioErrors, WrongShapes) {
  EXPECT_EQ(error_of("- a\n- b\n"), "s.yaml:1:1: a scenario must be a mapping of keys to values, got a list");
  EXPECT_EQ(error_of(head + "zookeeper: 3\n"), "s.yaml:3:12: zookeeper must be a mapping of keys to values, got '3'");
  EXPECT_EQ(error_of(head + "bugs: naive-no-anti-jitter\n"),
            "s.yaml:3:7: bugs must be a list, got 'naive-no-anti-jitter'");
  EXPECT_EQ(error_of(head + "bugs: [[a]]\n"), "s.yaml:3:8: expected a name, got a list");
  EXPECT_EQ(error_of("name:\nduration: 1s\n"), "s.yaml:1:1: name: expected a value, got nothing");
  EXPECT_EQ(error_of("name: ''\nduration: 1s\n"), "s.yaml:1:7: name must not be empty");
  EXPECT_EQ(error_of(head + "{a: 1}: 2\n"), "s.yaml:3:1: a key must be a name, got a mapping");
}

TEST(ScenarioErrors, RecipeOnlySections) {
  EXPECT_EQ(error_of(head + "jobs: [{name: j, sharding_total_count: 1}]\n"),
            "s.yaml:3:1: jobs are for recipe elasticjob only, but the recipe is none");
  EXPECT_EQ(error_of(head + "recipe: leader-latch\nelasticsearch: {nodes: 3}\n"),
            "s.yaml:4:1: elasticsearch is for recipe es-zen only, but the recipe is leader-latch");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {nodes: 1}\n"),
            "s.yaml:4:24: elasticsearch.minimum_master_nodes is 2 (the default), more than elasticsearch.nodes; set it "
            "too");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {nodes: 3, minimum_master_nodes: 4}\n"),
            "s.yaml:4:49: elasticsearch.minimum_master_nodes must be between 1 and 3, got 4");
  // Values that parsed and then tripped the model (a model-sanity failure instead of exit 2).
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {commit_timeout: 30s, publish_timeout: 1s}\n"),
            "s.yaml:4:33: elasticsearch.commit_timeout (30s) cannot be higher than elasticsearch.publish_timeout (1s), as Elasticsearch's "
            "ZenDiscovery refuses");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {publish_timeout: 1s}\n"),
            "s.yaml:4:34: elasticsearch.commit_timeout (30s) cannot be higher than elasticsearch.publish_timeout (1s), as Elasticsearch's "
            "ZenDiscovery refuses");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {cluster_tasks: {rate: 1e-300}}\n"),
            "s.yaml:4:39: elasticsearch.cluster_tasks.rate must be 0 (no tasks) or at least 1/86400, one task a day");
}

TEST(ScenarioErrors, JobsAndInstanceIds) {
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs:\n  - {name: a, sharding_total_count: 1}\n"
                            "  - {name: a, sharding_total_count: 2}\n"),
            "s.yaml:6:12: two jobs are named 'a' (the first at line 5); job names must be unique");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: a/b, sharding_total_count: 1}]\n"),
            "s.yaml:4:15: jobs.name must not contain '/': it becomes part of a znode path");
  // Accepted, these once made every instance fail to start (BADARGUMENTS) and the run pass vacuously.
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: .., sharding_total_count: 1}]\n"),
            "s.yaml:4:15: jobs.name must not be '..': ZooKeeper refuses relative znode paths");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: \".\", sharding_total_count: 1}]\n"),
            "s.yaml:4:15: jobs.name must not be '.': ZooKeeper refuses relative znode paths");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: \"a\\0b\", sharding_total_count: 1}]\n"),
            "s.yaml:4:15: jobs.name holds the control character U+0000 (character 2): names and descriptions are printable text");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: a, sharding_total_count: 0}]\n"),
            "s.yaml:4:40: jobs.sharding_total_count must be between 1 and 10000, got 0");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: a, sharding_total_count: 1, fire_interval: 0s}]\n"),
            "s.yaml:4:58: jobs.fire_interval must be at least 1ms: the real setting is whole milliseconds at its finest");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs: [{name: a, sharding_total_count: 1, execution_time: {min: 2s, "
                            "max: 1s}}]\n"),
            "s.yaml:4:74: jobs.execution_time: max (1s) is less than min (2s)");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\ninstances:\n  ids: {i2: \"10.0.0.1@-@1\"}\n"),
            "s.yaml:5:13: instance id '10.0.0.1@-@1' is used by both i1 and i2; instance ids must be unique");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\ninstances:\n  ids: {i4: h@-@4}\n"),
            "s.yaml:5:9: unknown node 'i4': instances.count is 3, so instances are i1..i3");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\nzookeeper:\n  initial_zxid: {i1: 5}\n"),
            "s.yaml:5:18: zookeeper.initial_zxid takes a server (zk1..zk3), not the instance 'i1'");
  // ElasticJob reads the ip back out of an instance id (JobInstance.getServerIp).
  EXPECT_EQ(error_of(head + "recipe: elasticjob\ninstances:\n  ids: {i1: a}\n"),
            "s.yaml:5:13: instances.ids.i1 'a' is not an ElasticJob instance id: it is IP@-@PID (JobInstance), such as 10.0.0.1@-@1");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\ninstances:\n  ids: {i1: \"@-@\"}\n"),
            "s.yaml:5:13: instances.ids.i1 '@-@' is not an ElasticJob instance id: it is IP@-@PID (JobInstance), such as 10.0.0.1@-@1");
  EXPECT_EQ(error_of(head + "recipe: leader-latch\ninstances:\n  ids: {i1: a}\n"), "no error");  // a latch's id is any text
  EXPECT_EQ(error_of(head + "zookeeper:\n  initial_zxid: {zk1: -5}\n"),
            "s.yaml:4:23: zookeeper.initial_zxid.zk1 must be between 0 and 9223372036854775807, got -5");
}

TEST(ScenarioErrors, CrossFieldOrder) {
  EXPECT_EQ(error_of(head + "network: {latency: {min: 5ms, max: 1ms}}\n"),
            "s.yaml:3:36: network.latency: max (1ms) is less than min (5ms)");
  EXPECT_EQ(error_of(head + "zookeeper: {min_session_timeout: 4s, max_session_timeout: 2s}\n"),
            "s.yaml:3:59: zookeeper.max_session_timeout (2s) is shorter than zookeeper.min_session_timeout (4s)");
  EXPECT_EQ(error_of(head + "failure: {property: watch-once, trace_hash: 12ab}\n"),
            "s.yaml:3:45: failure.trace_hash must be 16 hex digits, got '12ab'");
}

TEST(ScenarioErrors, YamlSyntaxErrorsHavePositionsToo) {
  EXPECT_EQ(error_of(head + "bugs: [a, b\n"), "s.yaml:4:1: YAML syntax error: end of sequence flow not found");
  EXPECT_EQ(error_of("name: x: y\n"), "s.yaml:1:8: YAML syntax error: illegal map value");
  EXPECT_EQ(error_of(head + "seed: *nowhere\n"), "s.yaml:3:7: YAML syntax error: the referenced anchor is not defined");
}

TEST(ScenarioErrors, WholeFileErrorsHaveNoPosition) {
  EXPECT_EQ(error_of(""), "s.yaml: the file is empty; a scenario needs at least name and duration");
  EXPECT_EQ(error_of("# nothing but a comment\n"),
            "s.yaml: the file is empty; a scenario needs at least name and duration");
  std::string huge = head + "description: \"" + std::string(scenario_file_size_max, 'x') + "\"\n";
  EXPECT_EQ(error_of(huge), "s.yaml: the file is " + std::to_string(huge.size()) +
                                " bytes, larger than the limit of 1048576 bytes (1 MiB) for a scenario file");
}

TEST(ScenarioErrors, LongOrMultiLineValuesAreShortenedInMessages) {
  EXPECT_EQ(error_of(head + "seed: \"1\\n2\"\n"),
            "s.yaml:3:7: bad number '1\\n2' for seed: expected a whole number from 0 to 18446744073709551615");
  EXPECT_EQ(error_of(head + "recipe: " + std::string(100, 'x') + "\n"),
            "s.yaml:3:9: unknown recipe '" + std::string(60, 'x') +
                "...': expected none, elasticjob, leader-latch, leader-selector, naive-master or es-zen");
}

TEST(ScenarioErrors, ASecondDocumentIsRefused) {
  EXPECT_EQ(error_of(head + "---\nname: y\n"),
            "s.yaml:4:1: a scenario file holds one YAML document, but a second one starts here");
}

TEST(ScenarioErrors, TheZookeeperLeaderExpectedIsAServerOfTheRun) {
  EXPECT_EQ(error_of(head + "expect: {zookeeper_leader: zk9}\n"),
            "s.yaml:3:28: unknown node 'zk9': zookeeper.servers is 3, so servers are zk1..zk3");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\nexpect: {zookeeper_leader: i1}\n"),
            "s.yaml:4:28: expect.zookeeper_leader takes none or a server (zk1..zk3), not the instance 'i1'");
  EXPECT_EQ(error_of(head + "expect: {zookeeper_leader: leader}\n"), "s.yaml:3:28: unknown node 'leader': the nodes are zk1..zk3");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nexpect: {zookeeper_leader: zk1}\n"),
            "s.yaml:4:28: expect.zookeeper_leader needs ZooKeeper servers, and recipe es-zen runs none");
  EXPECT_EQ(error_of(head + "expect: {zookeeper_leader: none}\n"), "no error");
  EXPECT_EQ(error_of(head + "zookeeper: {servers: 5}\nexpect: {zookeeper_leader: zk5}\n"), "no error");
}

// A held property the recipe cannot judge would pass unjudged (a vacuous "expectations met").
TEST(ScenarioErrors, APropertyTheRecipeCannotJudgeIsRefused) {
  EXPECT_EQ(error_of(head + "expect:\n  hold: [es-single-master]\n"), "s.yaml:4:10: property 'es-single-master' is judged in runs of es-zen, not recipe none");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nexpect:\n  fail: [zab-agreement]\n"),
            "s.yaml:5:10: property 'zab-agreement' is judged in runs of every recipe but es-zen, not recipe es-zen");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\nexpect:\n  hold: [latch-single-leader]\n"),
            "s.yaml:5:10: property 'latch-single-leader' is judged in runs of leader-latch and leader-selector, not recipe elasticjob");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nexpect:\n  hold: [eventual-leader, model-sanity, es-task-order]\n"), "no error");
  EXPECT_EQ(error_of(head + "recipe: leader-selector\nexpect:\n  hold: [latch-no-herd, watch-once, zab-agreement]\n"), "no error");
}

// ESC in a name would reach a terminal as an escape sequence; NUL would cut a C string.
TEST(ScenarioErrors, ControlCharactersInTextAreRefused) {
  EXPECT_EQ(error_of("name: \"a\\e[2Jb\"\nduration: 60s\n"),
            "s.yaml:1:7: name holds the control character U+001B (character 2): names and descriptions are printable text");
  EXPECT_EQ(error_of("name: x\ndescription: \"bell\\a\"\nduration: 60s\n"),
            "s.yaml:2:14: description holds the control character U+0007 (character 5): names and descriptions are printable text");
  EXPECT_EQ(error_of("name: x\ndescription: |\n  two\n  \tlines\nduration: 60s\n"), "no error");
  EXPECT_EQ(error_of(head + "recipe: elasticjob\njobs:\n  - {name: \"a\\0b\", sharding_total_count: 1}\n"),
            "s.yaml:5:12: jobs.name holds the control character U+0000 (character 2): names and descriptions are printable text");
}

// A 1-ns session timeout or tick made a zero-time storm of events (2 billion events with the clock
// stuck at 1 s); the real settings are whole milliseconds.
TEST(ScenarioErrors, SettingsBelowAMillisecondAreRefused) {
  EXPECT_EQ(error_of(head + "clients: {session_timeout: 1ns}\n"),
            "s.yaml:3:28: clients.session_timeout must be at least 1ms: the real setting is whole milliseconds at its finest");
  EXPECT_EQ(error_of(head + "zookeeper: {tick_time: 999us}\n"),
            "s.yaml:3:24: zookeeper.tick_time must be at least 1ms: the real setting is whole milliseconds at its finest");
  EXPECT_EQ(error_of(head + "recipe: es-zen\nelasticsearch: {ping_timeout: 1ns}\n"),
            "s.yaml:4:31: elasticsearch.ping_timeout must be at least 1ms: the real setting is whole milliseconds at its finest");
  EXPECT_EQ(error_of(head + "clients: {session_timeout: 1ms, write_interval: 1ms}\n"), "no error");
}

}  // namespace
