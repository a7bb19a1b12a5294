// The ElasticJob model end to end on a simulated ensemble: first election and sharding, re-election
// and resharding after a crash, graceful shutdown, disabling, a new sharding count, connection
// states, the bug switches, and determinism.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/elasticjob/elasticjob_cluster.h"

namespace elasticjob_test {
namespace {

const std::string job_name = "order-sync";

elasticjob::ElasticJobInstance* theLeader(Cluster& cluster) {
  std::vector<std::string> believers = cluster.believers(job_name);
  if (believers.size() != 1) return nullptr;
  for (auto* instance : cluster.instances) {
    if (instance->name() == believers[0]) return instance;
  }
  return nullptr;
}

std::set<int> itemsOf(const std::map<int, std::string>& owners, const std::string& id) {
  std::set<int> items;
  for (const auto& [item, owner] : owners) {
    if (owner == id) items.insert(item);
  }
  return items;
}

TEST(ElasticJob, FirstInstanceLeadsAndTheLeaderShardsAtItsFirstFire) {
  Cluster cluster;
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(8s);
  // One leader node, held by the one instance that believes it leads.
  std::optional<std::string> leader = cluster.data(job_name + "/leader/election/instance");
  ASSERT_TRUE(leader.has_value());
  std::vector<std::string> believers = cluster.believers(job_name);
  ASSERT_EQ(believers.size(), 1u);
  // Every latch node was released: executeInLeader is a mutex, not the leadership.
  EXPECT_TRUE(cluster.node(job_name + "/leader/election/latch")->children.empty());
  // AVG_ALLOCATION over the descending ids: 10.0.0.3 gets [0,1,6], 10.0.0.2 [2,3,7], 10.0.0.1 [4,5].
  std::map<int, std::string> owners = cluster.owners(job_name, 8);
  EXPECT_EQ(itemsOf(owners, "10.0.0.3@-@3"), (std::set<int>{0, 1, 6}));
  EXPECT_EQ(itemsOf(owners, "10.0.0.2@-@2"), (std::set<int>{2, 3, 7}));
  EXPECT_EQ(itemsOf(owners, "10.0.0.1@-@1"), (std::set<int>{4, 5}));
  EXPECT_FALSE(cluster.node(job_name + "/leader/sharding/necessary"));
  EXPECT_FALSE(cluster.node(job_name + "/leader/sharding/processing"));
  // servers are persistent and ENABLED, instances ephemeral with the JobInstance YAML.
  EXPECT_EQ(cluster.data(job_name + "/servers/10.0.0.1"), "ENABLED");
  const zk::DataNode* instance = cluster.node(job_name + "/instances/10.0.0.1@-@1");
  ASSERT_NE(instance, nullptr);
  EXPECT_NE(instance->stat.ephemeral_owner, 0);
  EXPECT_EQ(instance->data, "jobInstanceId: 10.0.0.1@-@1\nserverIp: 10.0.0.1\n");
}

TEST(ElasticJob, ACrashedLeaderIsReplacedAfterItsSessionExpiresAndTheSurvivorsShareTheItems) {
  Cluster cluster;
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(10s);
  elasticjob::ElasticJobInstance* found = theLeader(cluster);
  ASSERT_NE(found, nullptr);
  elasticjob::ElasticJobInstance& leader = *found;
  sim::Instant crash = cluster.sim.now();
  leader.crash();
  cluster.sim.run_for(20s);
  // A new leader, elected once the 6 s session expired (ZooKeeper's expiry: T - T/3 .. T + 2 ticks).
  std::vector<TraceRecorder::Event> elected = cluster.trace.of("job.leader");
  ASSERT_FALSE(elected.empty());
  sim::Duration reElection = elected.back().time - crash;
  EXPECT_GE(reElection, 4s);
  EXPECT_LE(reElection, 6s + 4s + 1s);
  EXPECT_NE(elected.back().node, leader.id());
  EXPECT_EQ(cluster.data(job_name + "/leader/election/instance"), elected.back().field("id"));
  // Resharded over the two survivors, at the next fire after the flag.
  std::map<int, std::string> owners = cluster.owners(job_name, 8);
  ASSERT_EQ(owners.size(), 8u);
  for (const auto& [item, owner] : owners) EXPECT_NE(owner, leader.jobInstanceId()) << "item " << item;
  std::vector<TraceRecorder::Event> shardings = cluster.trace.of("job.sharding");
  ASSERT_GE(shardings.size(), 2u);
  EXPECT_LE(shardings.back().time - elected.back().time, 5s + 1s);
}

TEST(ElasticJob, AGracefulShutdownRemovesTheLeaderNodeBeforeTheInstanceNode) {
  Cluster cluster;
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(12s);
  elasticjob::ElasticJobInstance* leader = theLeader(cluster);
  ASSERT_NE(leader, nullptr);
  sim::Instant stop = cluster.sim.now();
  leader->shutdown();
  cluster.sim.run_for(10s);
  EXPECT_FALSE(leader->up());  // the process exited
  // Deletions on one server, in zxid order: the leader node, then the instance node.
  std::int64_t leaderDeleted = -1, instanceDeleted = -1;
  for (const auto& event : cluster.trace.of("znode.delete", cluster.ensemble.server(1).id())) {
    if (event.time < stop) continue;
    if (event.field("path") == "/electsim/order-sync/leader/election/instance" && leaderDeleted < 0) leaderDeleted = event.number("zxid");
    if (event.field("path") == "/electsim/order-sync/instances/" + leader->jobInstanceId()) instanceDeleted = event.number("zxid");
  }
  ASSERT_GT(leaderDeleted, 0);
  ASSERT_GT(instanceDeleted, 0);
  EXPECT_LT(leaderDeleted, instanceDeleted);
  // No session timeout to wait for: another instance leads within the execution time plus a second.
  std::vector<TraceRecorder::Event> elected = cluster.trace.of("job.leader");
  ASSERT_NE(elected.back().node, leader->id());
  EXPECT_LE(elected.back().time - stop, 2s + 1s);
}

TEST(ElasticJob, DisablingTheLeaderMakesItAbdicate) {
  Cluster cluster(3);
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(12s);
  elasticjob::ElasticJobInstance* leader = theLeader(cluster);
  ASSERT_NE(leader, nullptr);
  std::string ip(elasticjob::JobInstance(leader->jobInstanceId()).getServerIp());
  cluster.console->disable(ip);
  cluster.sim.run_for(2s);
  EXPECT_EQ(cluster.data(job_name + "/servers/" + ip), "DISABLED");
  EXPECT_FALSE(leader->believesLeader(job_name));
  EXPECT_TRUE(leader->up());
  std::optional<std::string> newLeader = cluster.data(job_name + "/leader/election/instance");
  ASSERT_TRUE(newLeader.has_value());
  EXPECT_NE(*newLeader, leader->jobInstanceId());
}

TEST(ElasticJob, ANewShardingTotalCountIsShardedByTheLeaderAtItsNextFire) {
  Cluster cluster;
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(12s);
  cluster.console->setShardingTotalCount(job_name, 12);
  cluster.sim.run_for(10s);
  EXPECT_EQ(cluster.owners(job_name, 12).size(), 12u);
  std::vector<TraceRecorder::Event> shardings = cluster.trace.of("job.sharding");
  ASSERT_FALSE(shardings.empty());
  EXPECT_EQ(shardings.back().number("total"), 12);
  // Every instance learned the new count (JobRegistry.currentShardingTotalCount).
  for (auto* instance : cluster.instances) EXPECT_EQ(instance->jobRegistry()->getCurrentShardingTotalCount(job_name), 12);
}

TEST(ElasticJob, AShortDisconnectPausesAndResumesTheJobOnTheSameSession) {
  Cluster cluster;
  cluster.addInstances(2, {job(job_name, 4)});
  cluster.startAll();
  cluster.sim.run_for(12s);
  elasticjob::ElasticJobInstance& instance = cluster.instance(2);
  zk::SessionId session = cluster.node(job_name + "/instances/" + instance.jobInstanceId())->stat.ephemeral_owner;
  cluster.sim.network().isolate(instance.id());
  cluster.sim.run_for(4500ms);  // past the read timeout (2/3 of 6 s), before the expiry
  cluster.sim.network().heal_all();
  cluster.sim.run_for(8s);
  ASSERT_FALSE(cluster.trace.of("job.pause", instance.id()).empty());
  ASSERT_FALSE(cluster.trace.of("job.resume", instance.id()).empty());
  EXPECT_TRUE(cluster.trace.of("curator.handle_replaced", instance.id()).empty());
  // RECONNECTED re-persisted the instance node on the same session.
  EXPECT_EQ(cluster.node(job_name + "/instances/" + instance.jobInstanceId())->stat.ephemeral_owner, session);
}

TEST(ElasticJob, ALongDisconnectEndsInANewSessionAndTheInstanceNodeComesBack) {
  Cluster cluster;
  cluster.addInstances(2, {job(job_name, 4)});
  cluster.startAll();
  cluster.sim.run_for(12s);
  elasticjob::ElasticJobInstance& instance = cluster.instance(2);
  zk::SessionId session = cluster.node(job_name + "/instances/" + instance.jobInstanceId())->stat.ephemeral_owner;
  cluster.sim.network().isolate(instance.id());
  cluster.sim.run_for(15s);
  EXPECT_EQ(cluster.node(job_name + "/instances/" + instance.jobInstanceId()), nullptr);  // expired with the session
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  const zk::DataNode* node = cluster.node(job_name + "/instances/" + instance.jobInstanceId());
  ASSERT_NE(node, nullptr);
  EXPECT_NE(node->stat.ephemeral_owner, session);
  EXPECT_FALSE(cluster.trace.of("curator.handle_replaced", instance.id()).empty());
  EXPECT_TRUE(instance.jobActive(job_name));
}

TEST(ElasticJob, WithoutTheHasLeaderCheckEveryLatchHolderOverwritesTheLeader) {
  Cluster cluster;
  elasticjob::ElasticJobBugs bugs;
  bugs.no_has_leader_check = true;
  cluster.addInstances(3, {job(job_name, 8)}, bugs);
  cluster.startAll();
  cluster.sim.run_for(10s);
  // Each overwrite deletes the node and the others elect again: leadership churns.
  EXPECT_GT(cluster.trace.of("job.leader").size(), 10u);
}

TEST(ElasticJob, WithTheHasLeaderCheckLeadershipIsStable) {
  Cluster cluster;
  cluster.addInstances(3, {job(job_name, 8)});
  cluster.startAll();
  cluster.sim.run_for(30s);
  EXPECT_EQ(cluster.trace.of("job.leader").size(), 1u);
  EXPECT_TRUE(cluster.trace.of("job.not_leader").empty());
}

TEST(ElasticJob, BeforePr1472NonLeadersSetTheReshardingFlagToo) {
  for (bool bug : {false, true}) {
    Cluster cluster;
    elasticjob::ElasticJobBugs bugs;
    bugs.any_node_sets_resharding_flag = bug;
    cluster.addInstances(3, {job(job_name, 8)}, bugs);
    cluster.startAll();
    cluster.sim.run_for(10s);
    std::optional<std::string> leader = cluster.data(job_name + "/leader/election/instance");
    ASSERT_TRUE(leader.has_value());
    std::size_t byOthers = 0;
    for (const auto& event : cluster.trace.of("job.resharding_flag")) byOthers += event.field("id") != *leader;
    if (bug) {
      EXPECT_GT(byOthers, 0u);
    } else {
      EXPECT_EQ(byOthers, 0u);
    }
  }
}

TEST(ElasticJob, TheSameSeedGivesTheSameTraceAndAnotherSeedAnotherOne) {
  std::string text = scenarioText("faults:\n  - {at: 20s, crash: i2}\n  - {at: 40s, restart: i2}\n", "60s");
  harness::RunResult first = runText(text);
  harness::RunResult again = runText(text);
  harness::RunResult other = runText(text, 7);
  EXPECT_EQ(first.trace_hash, again.trace_hash);
  EXPECT_EQ(first.events, again.events);
  EXPECT_NE(first.trace_hash, other.trace_hash);
}

TEST(ElasticJob, FinalJobsReportsTheZnodesWithEveryInstance) {
  harness::RunResult result = runText(scenarioText("", "30s"));
  const auto& jobs = result.final["jobs"];
  ASSERT_TRUE(jobs.contains(job_name));
  const auto& sharding = jobs[job_name]["sharding"];
  EXPECT_EQ(sharding.size(), 3u);
  std::size_t items = 0;
  for (const auto& [id, list] : sharding.items()) items += list.size();
  EXPECT_EQ(items, 8u);
  EXPECT_TRUE(jobs[job_name]["leader"].is_string());
  EXPECT_TRUE(result.expectations_met);
}

}  // namespace
}  // namespace elasticjob_test
