// Zen1 master election: who wins, how long it takes, and what happens when the master goes away or
// the network splits, with Elasticsearch 6.8's behaviour and with es-2488-local-elect (1.x).
#include <gtest/gtest.h>

#include "es_test_support.h"

namespace {

using namespace std::chrono_literals;
using estest::Cluster;
using properties::Verdict;

TEST(Election, ThreeNodesStartedTogetherElectEs1AfterOnePingRound) {
  for (std::uint64_t seed = 1; seed <= 3; seed++) {
    Cluster c(estest::config(3, 2), seed);
    c.cluster.startAll();
    c.sim.run_for(20s);
    EXPECT_EQ(c.stableMaster(), 1U) << "seed " << seed << "\n" << c.recorder.dump();
    std::optional<sim::Instant> elected = c.recorder.first("es.master", c.id(1), "master=true");
    ASSERT_TRUE(elected.has_value());
    // ping_timeout (3 s), then one join and the election state's publication.
    EXPECT_GE(*elected, sim::epoch + 3s);
    EXPECT_LE(*elected, sim::epoch + 3s + 100ms);
  }
}

TEST(Election, FiveNodesElectEs1TogetherOrStaggered) {
  for (bool staggered : {false, true}) {
    Cluster c(estest::config(5, 3), 4);
    if (staggered) {
      c.cluster.startStaggered(1s);
    } else {
      c.cluster.startAll();
    }
    c.sim.run_for(30s);
    EXPECT_EQ(c.stableMaster(), 1U) << (staggered ? "staggered" : "together") << "\n" << c.recorder.dump();
    EXPECT_EQ(c.recorder.count("es.master", sim::no_node, "master=true"), 1U);
  }
}

TEST(Election, NoMasterUntilMinimumMasterNodesAreDiscovered) {
  Cluster c(estest::config(3, 2), 2);
  c.node(1).start();
  c.sim.run_for(30s);
  EXPECT_TRUE(c.masters().empty());
  EXPECT_GE(c.recorder.count("es.ping", c.id(1)), 9U);  // a ping round every ping_timeout
  EXPECT_EQ(c.recorder.count("es.elected"), 0U);
  c.node(2).start();
  c.sim.run_for(10s);
  EXPECT_EQ(c.stableMasterAmong({1, 2}), 1U);
}

TEST(Election, AnElectedNodeGivesUpWhenTheJoinsItNeedsDoNotComeWithinWaitForJoinsTimeout) {
  // minimum_master_nodes 3: es1 needs joins from es2 and es3, but es3 cannot reach es1 (es2 sees
  // both, and tells each about the other in its ping answers).
  Cluster c(estest::config(3, 3), 3);
  c.sim.network().bridge(c.id(2), {c.id(1)}, {c.id(3)});
  c.cluster.startAll();
  c.sim.run_for(100s);
  EXPECT_TRUE(c.masters().empty());
  // es1 keeps winning the ping rounds, then waits join_timeout / 2 = 30 s for joins each time.
  std::vector<sim::Instant> elections;
  for (const estest::Recorder::Line& line : c.recorder.lines) {
    if (line.kind == "es.elected" && line.node == c.id(1) && line.fields.find("master=es1") != std::string::npos) elections.push_back(line.time);
  }
  ASSERT_GE(elections.size(), 2U) << c.recorder.dump();
  EXPECT_EQ(elections[1] - elections[0], 33s);  // 30 s of waiting, then a 3 s ping round
  EXPECT_GE(c.recorder.count("es.join", c.id(2), "ok=false"), 1U);  // its pending join failed with the election
}

TEST(Election, AMasterCrashIsNoticedAtOnceAndTheNextNodeIsElected) {
  Cluster c(estest::config(3, 2, 1.0), 5);
  c.cluster.startAll();
  c.sim.run_for(20s);
  ASSERT_EQ(c.stableMaster(), 1U);
  sim::Instant crash = c.sim.now();
  c.node(1).crash();
  c.sim.run_for(5s);
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U) << c.recorder.dump();
  std::optional<sim::Instant> elected = c.recorder.first("es.master", c.id(2), "master=true");
  ASSERT_TRUE(elected.has_value());
  // The closed connection is noticed at once, then one ping round.
  EXPECT_LE(*elected - crash, 3s + 100ms);
  c.node(1).start();
  c.sim.run_for(10s);
  EXPECT_EQ(c.stableMaster(), 2U);  // es1 joins es2: an active master is followed, not replaced
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::held);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

TEST(Election, ASilentMasterIsNoticedByFaultDetectionAfterRetriesTimesTheTimeout) {
  Cluster c(estest::config(3, 2, 1.0), 6);
  c.cluster.startAll();
  c.sim.run_for(20s);
  ASSERT_EQ(c.stableMaster(), 1U);
  sim::Instant off = c.sim.now();
  c.node(1).power_off();
  c.sim.run_for(150s);
  std::optional<sim::Instant> noticed = c.recorder.first("es.fault_detection", c.id(2), "kind=master");
  ASSERT_TRUE(noticed.has_value());
  // At most one interval until the next ping, then fd_ping_retries (3) x fd_ping_timeout (30 s).
  EXPECT_GE(*noticed - off, 90s);
  EXPECT_LE(*noticed - off, 91s);
  // es2's election state still lists es1, which never answers: it is applied once publish_timeout
  // (30 s) has passed, then fault detection removes es1.
  std::optional<sim::Instant> elected = c.recorder.first("es.master", c.id(2), "master=true");
  ASSERT_TRUE(elected.has_value());
  EXPECT_GE(*elected - *noticed, 3s + 30s);
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U);
}

TEST(Election, APauseShorterThanFaultDetectionChangesNothing) {
  Cluster c(estest::config(3, 2, 1.0), 7);
  c.cluster.startAll();
  c.sim.run_for(20s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.node(1).pause();
  c.sim.run_for(60s);
  c.node(1).resume();
  c.sim.run_for(10s);
  EXPECT_EQ(c.stableMaster(), 1U);
  EXPECT_EQ(c.recorder.count("es.rejoin"), 0U);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::held);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

TEST(Election, TheCandidateWithTheHighestClusterStateVersionWinsOverALowerNodeId) {
  Cluster c(estest::config(3, 2, 2.0), 8);
  c.cluster.startAll();
  c.sim.run_for(20s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.node(2).crash();
  c.sim.run_for(20s);  // es1 and es3 go on without es2
  c.node(1).crash();
  c.sim.run_for(10s);
  std::int64_t es3Version = c.node(3).committedState()->version;
  ASSERT_GT(es3Version, c.node(2).persistedState()->version);
  c.node(2).start();  // its state is not recovered: it pings with version -1
  c.sim.run_for(10s);
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 3U) << c.recorder.dump();
  EXPECT_GT(c.node(2).appliedState()->version, es3Version);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

TEST(Election, AFullClusterRestartRecoversTheLatestPersistedMetadata) {
  es::EsConfig config = estest::config(3, 2, 2.0);
  config.cluster_tasks.keys = 100000;  // every task writes a new key: old values stay as they were
  Cluster c(config, 9);
  c.cluster.startAll();
  c.sim.run_for(30s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.node(1).crash();  // es2 or es3 becomes master and goes on
  c.sim.run_for(20s);
  es::ClusterStatePtr before = c.node(2).appliedState();
  for (std::size_t n : {2U, 3U}) c.node(n).crash();
  ASSERT_GT(before->version, c.node(1).persistedState()->version);  // es1 is behind
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);  // all unrecovered: es1 wins the tie, then recovers from the others
  EXPECT_EQ(c.recorder.count("es.gateway", c.id(1), "recovered=true"), 2U) << c.recorder.dump(100000);
  es::ClusterStatePtr after = c.node(1).appliedState();
  EXPECT_FALSE(after->stateNotRecovered);
  EXPECT_GT(after->version, before->version);
  for (const auto& [key, value] : before->metadata) EXPECT_EQ(after->metadata.at(key), value) << key;
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

// Issue #2488's reproduction: three nodes, minimum_master_nodes 2; only the link between the
// master (es1) and one other node (es2) is cut, both ways; es3 sees both.
TEST(Election, BridgePartitionDoesNotElectASecondMasterInElasticsearch68) {
  Cluster c(estest::config(3, 2, 1.0), 1);
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.sim.network().bridge(c.id(3), {c.id(1)}, {c.id(2)});
  for (int step = 0; step < 30; step++) {
    c.sim.run_for(10s);
    EXPECT_EQ(c.masters(), std::vector<std::size_t>{1}) << "at " << sim::format_instant(c.sim.now());
  }
  // es2 lost its master, pinged, heard from es3 that es1 is master, and keeps trying to join it.
  EXPECT_GE(c.recorder.count("es.rejoin", c.id(2)), 1U);
  EXPECT_GE(c.recorder.count("es.elected", c.id(2), "master=es1"), 2U);
  EXPECT_EQ(c.recorder.count("es.elected", c.id(2), "master=es2"), 0U);
  EXPECT_EQ(c.stableMasterAmong({1, 3}), 1U);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::held);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

TEST(Election, BridgePartitionElectsASecondMasterWithTheElasticsearch1Bug) {
  es::EsConfig config = estest::config(3, 2, 1.0);
  config.bugs.local_elect_2488 = true;
  Cluster c(config, 1);
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.sim.network().bridge(c.id(3), {c.id(1)}, {c.id(2)});
  c.sim.run_for(300s);
  // es2's master fault detection fails; it removes es1 from its own node list {es1, es2, es3} and
  // elects the lowest remaining id, itself, without pinging: es3 still counts towards
  // minimum_master_nodes. es1 keeps es3 too, so both masters have "enough" master nodes.
  EXPECT_EQ(c.masters(), (std::vector<std::size_t>{1, 2})) << c.recorder.dump();
  EXPECT_EQ(c.recorder.count("es.elected", c.id(2), "by=local"), 1U);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::violated);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::violated);  // es3 applies both masters' states
}

TEST(Election, MinimumMasterNodesOneSplitsTheBrainOnATwoSidedPartition) {
  Cluster c(estest::config(3, 1, 1.0), 2);
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.sim.network().partition({{c.id(1)}, {c.id(2), c.id(3)}});
  c.sim.run_for(150s);
  // es1 keeps enough master nodes (itself) and commits alone; es2 and es3 elect es2.
  EXPECT_EQ(c.masters(), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U);
  EXPECT_EQ(c.recorder.count("es.master", c.id(1), "master=false"), 0U);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::violated);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::violated);
  // What happens after a heal depends on what the cut links held: see
  // TwoMastersMeetingThroughFaultDetectionPingsResolveByClusterStateVersion.
}

TEST(Election, MinimumMasterNodesTwoKeepsOneMasterOnATwoSidedPartition) {
  Cluster c(estest::config(3, 2, 1.0), 2);
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.sim.network().partition({{c.id(1)}, {c.id(2), c.id(3)}});
  c.sim.run_for(150s);
  EXPECT_EQ(c.masters(), std::vector<std::size_t>{2});
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U);
  // es1 could commit nothing and stepped down (the first publication after the cut failed, or
  // fault detection left it with too few master nodes).
  EXPECT_EQ(c.recorder.count("es.master", c.id(1), "master=false"), 1U);
  c.sim.network().heal_all();
  sim::Instant healed = c.sim.now();
  c.sim.run_for(c.cluster.config().stabilisationTime() + 10s);
  EXPECT_EQ(c.stableMaster(), 2U);
  c.eventualMaster.finish(properties::RunFacts{c.sim.now(), healed, true});
  EXPECT_EQ(c.eventualMaster.verdict(), Verdict::held);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::held);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::held);
}

TEST(Election, TheMasterStepsDownWhenItSeesTooFewMasterNodes) {
  Cluster c(estest::config(3, 2), 3);  // no workload: only node fault detection tells es1
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.node(2).crash();  // removed at once (its connection closes): es1 and es3 are still enough
  c.sim.run_for(10s);
  EXPECT_EQ(c.masters(), std::vector<std::size_t>{1});
  EXPECT_EQ(c.node(1).committedState()->nodes.size(), 2U);
  c.node(3).crash();  // removing es3 would leave one master node of the two needed: step down
  c.sim.run_for(10s);
  EXPECT_EQ(c.recorder.count("es.rejoin", c.id(1), "not enough master nodes (has [1], but needed [2])"), 1U) << c.recorder.dump();
  EXPECT_EQ(c.recorder.count("es.master", c.id(1), "master=false"), 1U);
  EXPECT_TRUE(c.masters().empty());
}

TEST(Election, TwoMastersMeetingThroughFaultDetectionPingsResolveByClusterStateVersion) {
  // With minimum_master_nodes 1 a partition elects es2 beside es1. If it heals before es2's fault
  // detection has removed es1 from es2's state, the two masters ping each other's nodes: a master
  // pinged by another master (max_pings_from_another_master times) compares the version the ping
  // carries with its own and either rejoins (the other's is newer) or tells the other to rejoin.
  Cluster c(estest::config(3, 1, 1.0), 4);
  c.cluster.startAll();
  c.sim.run_for(10s);
  ASSERT_EQ(c.stableMaster(), 1U);
  c.sim.network().partition({{c.id(1)}, {c.id(2), c.id(3)}});
  c.sim.run_for(150s);
  ASSERT_EQ(c.masters(), (std::vector<std::size_t>{1, 2}));
  c.sim.network().heal_all();
  c.sim.run_for(60s);
  std::size_t meetings = 0;
  for (const estest::Recorder::Line& line : c.recorder.lines) {
    if (line.kind != "es.another_master") continue;
    meetings++;
    auto number = [&](std::string_view key) {
      std::size_t at = line.fields.find(key);
      return std::stoll(line.fields.substr(at + key.size()));
    };
    std::int64_t local = number(" version=");
    std::int64_t other = number("other_version=");
    std::string otherName = line.fields.substr(line.fields.find("other=") + 6, 3);
    if (other > local) {
      EXPECT_EQ(c.recorder.first("es.rejoin", line.node, "discovered another master with a new cluster_state"), line.time);
    } else {
      EXPECT_TRUE(c.recorder.first("es.rejoin", c.cluster.node(otherName).id(), "received a request to rejoin").has_value());
    }
  }
  EXPECT_GE(meetings, 1U) << c.recorder.dump();
  EXPECT_TRUE(c.stableMaster().has_value()) << c.recorder.dump();
}

TEST(Election, TheSameSeedGivesTheSameTrace) {
  auto run = [](std::uint64_t seed) {
    Cluster c(estest::config(5, 3, 3.0), seed);
    c.cluster.startAll();
    c.sim.run_for(20s);
    c.sim.network().partition({{c.id(1), c.id(2)}, {c.id(3), c.id(4), c.id(5)}});
    c.sim.run_for(120s);
    c.sim.network().heal_all();
    c.node(3).crash();
    c.sim.run_for(60s);
    return c.sim.trace().hash();
  };
  EXPECT_EQ(run(21), run(21));
  EXPECT_NE(run(21), run(22));
}

}  // namespace
