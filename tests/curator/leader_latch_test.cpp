// LeaderLatch (Curator 5.8+): one leader among contenders, succession on crash and on close,
// connection states, and what each bug switch breaks.
#include "latch_fixture.h"
#include "model/curator/LockInternals.h"
#include "model/curator/ProtectedUtils.h"

namespace curator_test {
namespace {

using curator::CuratorBugs;
using curator::LeaderLatchInstance;

std::vector<std::string> sortedLatchChildren(const Cluster& cluster) {
  return curator::LockInternals::getSortedChildren("latch-", latchChildren(cluster));
}

TEST(LeaderLatch, FiveContendersElectExactlyOneLeaderTheOwnerOfTheLowestNode) {
  Cluster cluster;
  auto latches = addLatches(cluster, 5, 6s);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(5s);
  auto leaders = leadersOf(latches);
  ASSERT_EQ(leaders.size(), 1u);
  std::vector<std::string> children = sortedLatchChildren(cluster);
  ASSERT_EQ(children.size(), 5u);
  for (const std::string& child : children) EXPECT_TRUE(curator::ProtectedUtils::isProtectedZNode(child)) << child;
  EXPECT_EQ(*leaders[0]->latch()->getOurPath(), latch_path + "/" + children[0]);
  EXPECT_EQ(leaders[0], latches[0]);  // started first, so queued first
  std::vector<TraceRecorder::Event> led = cluster.trace.of("latch.leader");
  ASSERT_EQ(led.size(), 1u);
  EXPECT_EQ(led[0].field("node_path"), latch_path + "/" + children[0]);
  EXPECT_EQ(led[0].field("id"), "latch1");
  // The node's data is the participant id (LeaderSelector.getIdBytes).
  EXPECT_EQ(cluster.leaderTree().getNode(latch_path + "/" + children[0])->data, "latch1");
}

TEST(LeaderLatch, AfterTheLeaderCrashesTheNextContenderLeadsOnceTheSessionExpires) {
  for (std::uint64_t seed = 1; seed <= 4; seed++) {
    Cluster cluster(seed);
    auto latches = addLatches(cluster, 5, 6s);
    startInOrder(cluster, latches, 100ms);
    cluster.sim.run_for(5s);
    ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]}) << "seed " << seed;
    sim::Instant crash = cluster.sim.now();
    latches[0]->crash();
    cluster.sim.run_for(2s);
    EXPECT_TRUE(leadersOf(latches).empty()) << "seed " << seed;  // the session is still alive
    cluster.sim.run_for(10s);
    ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]}) << "seed " << seed;
    std::vector<TraceRecorder::Event> led = cluster.trace.of("latch.leader", latches[1]->id());
    ASSERT_EQ(led.size(), 1u);
    // Expiry bounds as in the session tests: [T - T/3, T + tick + tick/2] plus message latencies.
    EXPECT_GE(led[0].time - crash, 6s - 2s) << "seed " << seed;
    EXPECT_LE(led[0].time - crash, 6s + 3s + 100ms) << "seed " << seed;
  }
}

TEST(LeaderLatch, AGracefulCloseHandsLeadershipOverAtOnce) {
  Cluster cluster;
  auto latches = addLatches(cluster, 5, 6s);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(5s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  sim::Instant close = cluster.sim.now();
  latches[0]->closeLatch();
  cluster.sim.run_for(1s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]});
  std::vector<TraceRecorder::Event> led = cluster.trace.of("latch.leader", latches[1]->id());
  ASSERT_EQ(led.size(), 1u);
  // delete, NodeDeleted to the successor, getChildren, getData (the owner check): a few round trips.
  EXPECT_LE(led[0].time - close, 60ms);
  EXPECT_EQ(sortedLatchChildren(cluster).size(), 4u);
}

TEST(LeaderLatch, AwaitReturnsOnLeadershipAndAwaitWithATimeoutGivesUp) {
  Cluster cluster;
  auto latches = addLatches(cluster, 2, 6s);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(3s);
  struct Waiter final : sim::Node {
    using Node::Node;
    curator::LeaderLatch* latch = nullptr;
    std::vector<std::pair<std::string, sim::Instant>> results;
    void on_start() override {}
    sim::Task<void> awaitBriefly() {
      bool led = co_await latch->await(1s);
      results.emplace_back(led ? "led" : "timed out", sim().now());
      led = co_await latch->await();
      results.emplace_back(led ? "led" : "closed", sim().now());
    }
  };
  auto& waiter = cluster.sim.add_node<Waiter>("waiter");
  waiter.latch = latches[1]->latch();
  waiter.start();
  sim::Instant begin = cluster.sim.now();
  waiter.spawn(waiter.awaitBriefly());
  cluster.sim.run_for(2s);
  ASSERT_EQ(waiter.results.size(), 1u);
  EXPECT_EQ(waiter.results[0].first, "timed out");
  EXPECT_EQ(waiter.results[0].second - begin, 1s);
  latches[0]->closeLatch();
  cluster.sim.run_for(1s);
  ASSERT_EQ(waiter.results.size(), 2u);
  EXPECT_EQ(waiter.results[1].first, "led");
}

TEST(LeaderLatch, ASuspendedLeaderStepsDownAndReconnectedRechecksItsNode) {
  Cluster cluster;
  auto latches = addLatches(cluster, 3, 12s);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(3s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  std::string node = *latches[0]->latch()->getOurPath();
  cluster.sim.network().isolate(latches[0]->id());
  cluster.sim.run_for(9s);  // past the read timeout (8 s), before the session ends (12 s)
  EXPECT_TRUE(leadersOf(latches).empty());
  EXPECT_EQ(cluster.trace.of("latch.not_leader", latches[0]->id()).size(), 1u);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(5s);
  // RECONNECTED -> getChildren: our node is still first and still ours.
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  EXPECT_EQ(*latches[0]->latch()->getOurPath(), node);
  EXPECT_EQ(latches[0]->latch()->resets(), 1u);  // only the first one, at start
}

TEST(LeaderLatch, APartitionedLeaderStepsDownBeforeTheNextLeads) {
  for (std::uint64_t seed = 1; seed <= 4; seed++) {
    Cluster cluster(seed);
    auto latches = addLatches(cluster, 3, 6s);
    startInOrder(cluster, latches, 100ms);
    cluster.sim.run_for(3s);
    ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
    cluster.sim.network().isolate(latches[0]->id());
    cluster.sim.run_for(20s);
    EXPECT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]}) << "seed " << seed;
    cluster.sim.network().heal_all();
    cluster.sim.run_for(10s);
    EXPECT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]}) << "seed " << seed;
    // The old leader rejoined at the tail with a new session and a new node.
    EXPECT_EQ(sortedLatchChildren(cluster).size(), 3u) << "seed " << seed;
    EXPECT_EQ(longestOverlap(leadershipIntervals(cluster.trace, "latch.leader", "latch.not_leader", cluster.sim.now())), 0s)
        << "seed " << seed;
  }
}

TEST(LeaderLatch, TheSameSeedGivesTheSameTrace) {
  auto run = [](std::uint64_t seed) {
    Cluster cluster(seed);
    auto latches = addLatches(cluster, 4, 6s);
    startInOrder(cluster, latches, 50ms);
    cluster.sim.run_for(3s);
    cluster.sim.network().isolate(leadersOf(latches).at(0)->id());
    cluster.sim.run_for(15s);
    cluster.sim.network().heal_all();
    latches[3]->crash();
    cluster.sim.run_for(15s);
    return std::make_pair(cluster.sim.trace().hash(), cluster.sim.trace().events());
  };
  EXPECT_EQ(run(7), run(7));
  EXPECT_NE(run(7).first, run(8).first);
}

// ---- bug switches ----

TEST(LeaderLatchBugs, IgnoringConnectionLossGivesTwoLeadersUnderAPartitionOfTheLeader) {
  CuratorBugs bugs;
  bugs.latch_ignores_connection_loss = true;
  Cluster cluster;
  auto latches = addLatches(cluster, 3, 6s, bugs);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(3s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  cluster.sim.network().isolate(latches[0]->id());
  cluster.sim.run_for(20s);
  // The server expired the partitioned leader's session and the next contender took over, but the
  // partitioned one kept its belief through SUSPENDED and LOST.
  EXPECT_EQ(leadersOf(latches), (std::vector<LeaderLatchInstance*>{latches[0], latches[1]}));
  EXPECT_GE(longestOverlap(leadershipIntervals(cluster.trace, "latch.leader", "latch.not_leader", cluster.sim.now())), 10s);
  // Healing ends it: RECONNECTED -> getChildren finds our node gone -> reset.
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]});
}

void unprotectedCreateScenario(bool bug, std::vector<LeaderLatchInstance*>& latches, Cluster& cluster) {
  CuratorBugs bugs;
  bugs.latch_unprotected_create = bug;
  latches = addLatches(cluster, 3, 6s, bugs);
  latches[0]->start();  // L leads
  cluster.sim.run_for(2s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  cluster.connectionLossAtCreate(latches[1]->id(), latch_path);  // V's create is applied, its reply lost
  latches[1]->start();
  cluster.sim.run_for(15s);
  latches[2]->start();  // C queues behind
  cluster.sim.run_for(3s);
  latches[0]->closeLatch();
  cluster.sim.run_for(30s);
}

TEST(LeaderLatchBugs, AnUnprotectedCreateLeavesAnOrphanThatBlocksTheElection) {
  Cluster cluster;
  std::vector<LeaderLatchInstance*> latches;
  unprotectedCreateScenario(true, latches, cluster);
  EXPECT_TRUE(leadersOf(latches).empty());  // stuck, for as long as V's session lives
  std::vector<std::string> children = sortedLatchChildren(cluster);
  ASSERT_EQ(children.size(), 3u);
  // The head of the queue is V's orphan: V's session owns it, V's latch does not know it.
  const zk::DataNode* head = cluster.leaderTree().getNode(latch_path + "/" + children[0]);
  EXPECT_EQ(head->stat.ephemeral_owner, latches[1]->framework()->getZookeeperClient().getZooKeeper().getSessionId());
  EXPECT_NE(*latches[1]->latch()->getOurPath(), latch_path + "/" + children[0]);
  EXPECT_FALSE(curator::ProtectedUtils::isProtectedZNode(children[0]));
}

TEST(LeaderLatchBugs, AProtectedCreateRecoversItsNodeAndTheElectionGoesOn) {
  Cluster cluster;
  std::vector<LeaderLatchInstance*> latches;
  unprotectedCreateScenario(false, latches, cluster);
  EXPECT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[1]});
  EXPECT_EQ(sortedLatchChildren(cluster).size(), 2u);  // V's and C's, nothing else
}

// CURATOR-696 (digest §11B): the ensemble is down for longer than the session timeout.
void curator696Scenario(bool bug, std::vector<LeaderLatchInstance*>& latches, Cluster& cluster) {
  CuratorBugs bugs;
  bugs.curator_696_no_owner_check = bug;
  latches = addLatches(cluster, 2, 6s, bugs);
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(3s);
  ASSERT_EQ(leadersOf(latches), std::vector<LeaderLatchInstance*>{latches[0]});
  // The whole ensemble goes down (kill -9) for 15 s, well over T: every client sees SUSPENDED at
  // once, then LOST T later, and opens a new session once the servers are back. The servers reload
  // the sessions from their logs and give each a fresh timeout, so the old nodes live ~T longer.
  for (zk::ServerId sid = 1; sid <= 3; sid++) cluster.ensemble.server(sid).crash();
  cluster.sim.run_for(15s);
  ASSERT_EQ(latches[0]->framework()->getZookeeperClient().getInstanceIndex(), 2);  // LOST: a new handle
  for (zk::ServerId sid = 1; sid <= 3; sid++) cluster.ensemble.server(sid).start();
  cluster.sim.run_for(40s);
}

TEST(LeaderLatchBugs, Curator696TrustsANodeOfTheOldSessionAndEndsWithTwoLeaders) {
  Cluster cluster;
  std::vector<LeaderLatchInstance*> latches;
  curator696Scenario(true, latches, cluster);
  EXPECT_EQ(leadersOf(latches), (std::vector<LeaderLatchInstance*>{latches[0], latches[1]}));
  // latch1 leads on a node that its old session owned and that has since expired.
  EXPECT_EQ(cluster.leaderTree().getNode(*latches[0]->latch()->getLastPathIsLeader()), nullptr);
}

TEST(LeaderLatchBugs, TheOwnerCheckOfCurator57KeepsOneLeader) {
  Cluster cluster;
  std::vector<LeaderLatchInstance*> latches;
  curator696Scenario(false, latches, cluster);
  auto leaders = leadersOf(latches);
  ASSERT_EQ(leaders.size(), 1u);
  const zk::DataNode* node = cluster.leaderTree().getNode(*leaders[0]->latch()->getOurPath());
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->stat.ephemeral_owner, leaders[0]->framework()->getZookeeperClient().getZooKeeper().getSessionId());
  EXPECT_GE(leaders[0]->latch()->resets(), 2u);  // it refused the old session's node
}

}  // namespace
}  // namespace curator_test
