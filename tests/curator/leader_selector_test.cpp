// LeaderSelector over InterProcessMutex: leadership rotates with autoRequeue, is interrupted on
// SUSPENDED (LeaderSelectorListenerAdapter), and the mutex's lock nodes come and go with it.
#include "latch_fixture.h"

namespace curator_test {
namespace {

using curator::LeaderSelectorInstance;

std::vector<LeaderSelectorInstance*> addSelectors(Cluster& cluster, int count, sim::Duration sessionTimeout, sim::Duration hold,
                                                   curator::CuratorBugs bugs = {}) {
  std::vector<LeaderSelectorInstance*> selectors;
  for (int i = 0; i < count; i++) {
    std::string name = "selector" + std::to_string(i + 1);
    selectors.push_back(&cluster.sim.add_node<LeaderSelectorInstance>(name, name, cluster.ensemble.nodes(), sessionTimeout, bugs,
                                                                      latch_path, hold));
  }
  for (LeaderSelectorInstance* selector : selectors) {
    selector->start();
    cluster.sim.run_for(100ms);
  }
  return selectors;
}

TEST(LeaderSelector, LeadershipRotatesWithAutoRequeueAndNeverOverlaps) {
  Cluster cluster;
  auto selectors = addSelectors(cluster, 3, 10s, 5s);
  cluster.sim.run_for(60s);
  std::vector<TraceRecorder::Event> turns = cluster.trace.of("selector.leader");
  ASSERT_GE(turns.size(), 10u);  // about one turn per 5 s
  // Each requeued at the tail: the turns go round in order.
  for (std::size_t i = 3; i < turns.size(); i++) EXPECT_EQ(turns[i].node, turns[i - 3].node) << "turn " << i;
  for (LeaderSelectorInstance* selector : selectors) {
    EXPECT_GE(selector->turnsCompleted(), 3u) << selector->name();
    EXPECT_EQ(selector->selector()->interruptions(), 0u);
  }
  auto intervals = leadershipIntervals(cluster.trace, "selector.leader", "selector.released", cluster.sim.now());
  EXPECT_EQ(longestOverlap(intervals), 0s);
  // A turn is the hold time; the next leader follows within a few round trips.
  for (std::size_t i = 1; i < turns.size(); i++) {
    sim::Duration gap = turns[i].time - turns[i - 1].time;
    EXPECT_GE(gap, 5s);
    EXPECT_LE(gap, 5s + 100ms);
  }
  // Three contenders, three lock nodes, all protected "lock-" nodes.
  std::vector<std::string> children = latchChildren(cluster);
  EXPECT_EQ(children.size(), 3u);
  for (const std::string& child : children) EXPECT_NE(child.find("-lock-"), std::string::npos) << child;
}

TEST(LeaderSelector, ALeaderIsInterruptedOnSuspendedBeforeTheNextLeads) {
  for (std::uint64_t seed = 1; seed <= 3; seed++) {
    Cluster cluster(seed);
    auto selectors = addSelectors(cluster, 3, 6s, 1h);  // leaders hold on until interrupted
    cluster.sim.run_for(3s);
    auto leaders = leadersOf(selectors);
    ASSERT_EQ(leaders.size(), 1u) << "seed " << seed;
    LeaderSelectorInstance* first = leaders[0];
    sim::Instant cut = cluster.sim.now();
    cluster.sim.network().isolate(first->id());
    cluster.sim.run_for(20s);
    // SUSPENDED interrupts it; LOST finds no thread to interrupt: the interrupted task is still in
    // its finally block, releasing the mutex with a foreground delete that waits for the connection.
    EXPECT_EQ(first->selector()->interruptions(), 1u) << "seed " << seed;
    std::vector<TraceRecorder::Event> released = cluster.trace.of("selector.released", first->id());
    ASSERT_EQ(released.size(), 1u) << "seed " << seed;
    EXPECT_LE(released[0].time - cut, 4s + 10ms) << "seed " << seed;  // SUSPENDED: 2/3 T at the latest
    auto now = leadersOf(selectors);
    ASSERT_EQ(now.size(), 1u) << "seed " << seed;
    EXPECT_NE(now[0], first) << "seed " << seed;
    auto intervals = leadershipIntervals(cluster.trace, "selector.leader", "selector.released", cluster.sim.now());
    EXPECT_EQ(longestOverlap(intervals), 0s) << "seed " << seed;
    // Back in touch, the old leader queues again behind the others (a new session, a new node).
    cluster.sim.network().heal_all();
    cluster.sim.run_for(30s);
    EXPECT_EQ(latchChildren(cluster).size(), 3u) << "seed " << seed;
    EXPECT_EQ(leadersOf(selectors).size(), 1u) << "seed " << seed;
  }
}

TEST(LeaderSelector, AListenerThatNeverCancelsKeepsLeadingThroughAPartition) {
  curator::CuratorBugs bugs;
  bugs.latch_ignores_connection_loss = true;
  Cluster cluster;
  auto selectors = addSelectors(cluster, 3, 6s, 1h, bugs);
  cluster.sim.run_for(3s);
  auto leaders = leadersOf(selectors);
  ASSERT_EQ(leaders.size(), 1u);
  cluster.sim.network().isolate(leaders[0]->id());
  cluster.sim.run_for(20s);
  EXPECT_EQ(leaders[0]->selector()->interruptions(), 0u);
  EXPECT_EQ(leadersOf(selectors).size(), 2u);  // the mutex itself never looks at connection states
  auto intervals = leadershipIntervals(cluster.trace, "selector.leader", "selector.released", cluster.sim.now());
  EXPECT_GE(longestOverlap(intervals), 10s);
}

TEST(LeaderSelector, ClosingTheLeaderReleasesTheMutexAtOnce) {
  Cluster cluster;
  auto selectors = addSelectors(cluster, 3, 6s, 1h);
  cluster.sim.run_for(3s);
  auto leaders = leadersOf(selectors);
  ASSERT_EQ(leaders.size(), 1u);
  sim::Instant close = cluster.sim.now();
  leaders[0]->selector()->close();
  cluster.sim.run_for(1s);
  auto now = leadersOf(selectors);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], leaders[0]);
  EXPECT_LE(cluster.trace.of("selector.leader", now[0]->id()).back().time - close, 50ms);
  EXPECT_EQ(latchChildren(cluster).size(), 2u);
}

TEST(LeaderSelector, ACrashedLeadersLockNodeGoesWithItsSession) {
  Cluster cluster;
  auto selectors = addSelectors(cluster, 3, 6s, 1h);
  cluster.sim.run_for(3s);
  auto leaders = leadersOf(selectors);
  ASSERT_EQ(leaders.size(), 1u);
  leaders[0]->crash();
  cluster.sim.run_for(15s);
  auto now = leadersOf(selectors);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], leaders[0]);
  EXPECT_EQ(latchChildren(cluster).size(), 2u);
}

// Two shutdown requests for one process (the swarm's seed 19: both arrive while the process is
// paused, so both run when it resumes). The JVM runs its shutdown hooks once; closing the selector
// twice would fail with "Already closed or has not been started".
TEST(LeaderSelector, ASecondShutdownRequestClosesNothingTwice) {
  Cluster cluster;
  auto selectors = addSelectors(cluster, 2, 6s, 1h);
  cluster.sim.run_for(3s);
  auto leaders = leadersOf(selectors);
  ASSERT_EQ(leaders.size(), 1u);
  LeaderSelectorInstance* leader = leaders[0];
  leader->pause();
  leader->shutdown();
  cluster.sim.run_for(2s);
  leader->shutdown();
  cluster.sim.run_for(1s);
  leader->resume();
  // The client, silent for 3 s, times out as it resumes; the closeSession sent meanwhile gets no
  // reply, so the close waits out the handle's close timeout (10 s) before the process exits.
  ASSERT_NO_THROW(cluster.sim.run_for(12s));
  EXPECT_FALSE(leader->up());
  EXPECT_EQ(cluster.trace.of("instance.shutdown", leader->id()).size(), 1u);
  auto now = leadersOf(selectors);
  ASSERT_EQ(now.size(), 1u);
  EXPECT_NE(now[0], leader);
  EXPECT_EQ(latchChildren(cluster).size(), 1u);
  // Restarted, it may shut down again: once per incarnation.
  leader->start();
  cluster.sim.run_for(3s);
  leader->shutdown();
  leader->shutdown();
  ASSERT_NO_THROW(cluster.sim.run_for(2s));
  EXPECT_FALSE(leader->up());
  EXPECT_EQ(cluster.trace.of("instance.shutdown", leader->id()).size(), 2u);
}

}  // namespace
}  // namespace curator_test
