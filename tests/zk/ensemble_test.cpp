// Whole-ensemble behaviour against what a real ZooKeeper 3.8 ensemble does
// (../shared/docs/REAL-ZOOKEEPER.md and source 002's example).
#include <gtest/gtest.h>

#include "model/zk/Ensemble.h"
#include "model/zk/client/ZooKeeper.h"
#include "model/zk/quorum/Leader.h"
#include "sim/network.h"

namespace {

using namespace std::chrono_literals;
using zk::Ensemble;
using zk::ServerState;

// Records the time each server reached an established leadership or followership.
struct Milestones final : sim::TraceSink {
  std::vector<std::tuple<sim::Instant, sim::NodeId, std::string, std::int64_t>> events;
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind == "zab.established" || event.kind == "zab.following" || event.kind == "zab.sync" ||
        event.kind == "session.expire" || event.kind == "znode.delete" || event.kind == "watch.fire") {
      std::int64_t value = event.integer("epoch", event.integer("learner", 0));
      std::string detail(event.kind);
      if (event.kind == "zab.sync") detail += ":" + std::string(event.text("mode"));
      events.emplace_back(event.time, event.node, detail, value);
    }
  }
  std::optional<sim::Instant> first(std::string_view kind, sim::NodeId node = sim::no_node) const {
    for (const auto& [time, who, what, value] : events) {
      if (what == kind && (node == sim::no_node || who == node)) return time;
    }
    return std::nullopt;
  }
};

struct Cluster {
  sim::Simulation sim;
  Ensemble ensemble;
  Milestones milestones;

  explicit Cluster(std::size_t servers, std::uint64_t seed = 1, zk::QuorumPeerConfig config = {})
      : sim(seed), ensemble(sim, servers, config) {
    sim.network().set_latency(1ms, 5ms);
    sim.trace().add_sink(&milestones);
  }
  zk::QuorumPeer& server(zk::ServerId sid) { return ensemble.server(sid); }
  void startAll() {
    for (std::size_t sid = 1; sid <= ensemble.size(); sid++) server(static_cast<zk::ServerId>(sid)).start();
  }
  // Starts every server at once and gives them 5 s: the highest sid leads (FastLeaderElection's
  // totalOrderPredicate, every log empty). The common start of the failure tests below.
  ::testing::AssertionResult startAndElectHighest() {
    startAll();
    sim.run_for(5s);
    std::optional<zk::ServerId> leader = ensemble.leader();
    auto highest = static_cast<zk::ServerId>(ensemble.size());
    if (leader == highest) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << "after 5 s the leader is " << (leader ? std::to_string(*leader) : "nobody") << ", not server " << highest;
  }
  void startStaggered(sim::Duration interval) {
    for (std::size_t sid = 1; sid <= ensemble.size(); sid++) {
      sim.schedule_callback(sim.now() + interval * static_cast<std::int64_t>(sid - 1), sim::no_node,
                            [this, sid] { server(static_cast<zk::ServerId>(sid)).start(); });
    }
  }
  std::vector<ServerState> states() {
    std::vector<ServerState> result;
    for (std::size_t sid = 1; sid <= ensemble.size(); sid++) result.push_back(server(static_cast<zk::ServerId>(sid)).getPeerState());
  return result;
  }
};

TEST(Ensemble, SourceTwoExampleFiveServersStartedOneSecondApartElectServerThree) {
  for (std::uint64_t seed = 1; seed <= 5; seed++) {
    Cluster cluster(5, seed);
    cluster.startStaggered(1s);
    cluster.sim.run_for(10s);
    EXPECT_EQ(cluster.ensemble.leader(), 3) << "seed " << seed;
    EXPECT_EQ(cluster.states(), (std::vector<ServerState>{ServerState::following, ServerState::following, ServerState::leading,
                                                        ServerState::following, ServerState::following}))
        << "seed " << seed;
  }
}

TEST(Ensemble, ServersStartedTogetherElectTheHighestSid) {
  for (std::uint64_t seed = 1; seed <= 5; seed++) {
    Cluster cluster(5, seed);
    cluster.startAll();
    cluster.sim.run_for(10s);
    EXPECT_EQ(cluster.ensemble.leader(), 5) << "seed " << seed;
  }
}

TEST(Ensemble, ThreeServersBackToBackServeWithinTheMeasuredWindow) {
  // REAL-ZOOKEEPER.md: sid 3 leads every time; serving 1.4-2.4 s after the last start; each
  // election about 0.4 s. The model has no JVM start-up, so it may serve sooner; it must not
  // serve later.
  Cluster cluster(3);
  cluster.startAll();
  cluster.sim.run_for(10s);
  ASSERT_EQ(cluster.ensemble.leader(), 3);
  auto established = cluster.milestones.first("zab.established");
  ASSERT_TRUE(established.has_value());
  EXPECT_LE(*established, sim::epoch + 2400ms);
  EXPECT_GE(*established, sim::epoch + 200ms);  // at least finalizeWait
}

TEST(Ensemble, TheMostLoggedServerWins) {
  Cluster cluster(3);
  cluster.server(1).seedHistory(zk::make_zxid(1, 5));
  cluster.server(2).seedHistory(zk::make_zxid(1, 3));
  cluster.server(3).seedHistory(zk::make_zxid(1, 3));
  cluster.startAll();
  cluster.sim.run_for(10s);
  EXPECT_EQ(cluster.ensemble.leader(), 1);
  EXPECT_EQ(cluster.server(1).getCurrentEpoch(), 2);
}

TEST(Ensemble, LeaderCrashElectsTheNextHighestWithinMilliseconds) {
  Cluster cluster(3);
  ASSERT_TRUE(cluster.startAndElectHighest());
  sim::Instant crash_time = cluster.sim.now();
  cluster.server(3).crash();
  cluster.sim.run_for(5s);
  EXPECT_EQ(cluster.ensemble.leader(), 2);
  // REAL-ZOOKEEPER.md: new leader (sid 2 of 3) in 0.3-0.6 s after kill -9.
  std::optional<sim::Instant> reelected;
  for (const auto& [time, node, what, epoch] : cluster.milestones.events) {
    if (what == "zab.established" && time > crash_time) {
      reelected = time;
      break;
    }
  }
  ASSERT_TRUE(reelected.has_value());
  EXPECT_LE(*reelected - crash_time, 600ms);
  EXPECT_GE(*reelected - crash_time, 200ms);
}

TEST(Ensemble, AFollowerGivesUpOnALeaderThatRefusesAfterFiveTriesAndFourPauses) {
  // Learner.connectToLeader: 5 tries 100 ms apart, the fifth failure thrown before its sleep. Server
  // 2 wins against server 1 and dies the instant server 1 decides to follow it: every try is
  // refused after a round trip.
  Cluster cluster(3);
  struct States final : sim::TraceSink {
    Cluster& cluster;
    std::vector<std::pair<sim::Instant, std::string>> ofServer1;
    explicit States(Cluster& c) : cluster(c) {}
    void on_event(const sim::TraceEvent& event) override {
      if (event.kind != "zk.state" || event.node != cluster.server(1).id()) return;
      std::string state(event.text("state"));
      if (state == "FOLLOWING" && ofServer1.empty()) {
        cluster.sim.schedule_callback(event.time, sim::no_node, [this] { cluster.server(2).crash(); });
      }
      if (state != "LOOKING" || !ofServer1.empty()) ofServer1.emplace_back(event.time, state);
    }
  } states(cluster);
  cluster.sim.trace().add_sink(&states);
  cluster.server(1).start();
  cluster.server(2).start();
  cluster.sim.run_for(3s);
  cluster.sim.trace().remove_sink(&states);
  ASSERT_GE(states.ofServer1.size(), 2u);
  EXPECT_EQ(states.ofServer1[0].second, "FOLLOWING");
  EXPECT_EQ(states.ofServer1[1].second, "LOOKING");
  sim::Duration gaveUpAfter = states.ofServer1[1].first - states.ofServer1[0].first;
  EXPECT_GE(gaveUpAfter, 400ms);  // four pauses
  EXPECT_LT(gaveUpAfter, 450ms);  // and five round trips of at most 10 ms, not a fifth pause
}

TEST(Ensemble, ARestartedLeaderFollowsAndDoesNotTakeLeadershipBack) {
  Cluster cluster(3);
  ASSERT_TRUE(cluster.startAndElectHighest());
  cluster.server(3).crash();
  cluster.sim.run_for(5s);
  ASSERT_EQ(cluster.ensemble.leader(), 2);
  sim::Instant restart_time = cluster.sim.now();
  cluster.server(3).start();
  cluster.sim.run_for(5s);
  EXPECT_EQ(cluster.ensemble.leader(), 2);
  EXPECT_EQ(cluster.server(3).getPeerState(), ServerState::following);
  // REAL-ZOOKEEPER.md: rejoins as a follower in 0.5-0.9 s (the model has no JVM start: sooner).
  auto following = cluster.milestones.first("zab.following", cluster.server(3).id());
  ASSERT_TRUE(following.has_value());
  EXPECT_LE(*following - restart_time, 900ms);
}

TEST(Ensemble, AMinorityCannotElectAndTheMajorityKeepsItsLeader) {
  Cluster cluster(3);
  ASSERT_TRUE(cluster.startAndElectHighest());
  cluster.sim.network().isolate(cluster.server(1).id());
  cluster.sim.run_for(30s);
  EXPECT_EQ(cluster.server(1).getPeerState(), ServerState::looking);
  EXPECT_EQ(cluster.ensemble.leader(), 3);
  // Isolating the leader: the two others elect zk2 once they time it out; zk3 steps down.
  cluster.sim.network().heal_all();
  cluster.sim.run_for(5s);
  ASSERT_EQ(cluster.ensemble.leader(), 3);
  cluster.sim.network().isolate(cluster.server(3).id());
  cluster.sim.run_for(30s);
  EXPECT_EQ(cluster.ensemble.leader(), 2);
  EXPECT_EQ(cluster.server(3).getPeerState(), ServerState::looking);
}

TEST(Ensemble, AFollowerPausedBrieflyStaysAndALongPauseMakesTheLeaderDropIt) {
  Cluster cluster(3);
  ASSERT_TRUE(cluster.startAndElectHighest());
  // Leader paused 3 s (< syncLimit ticks = 10 s): nothing changes.
  cluster.server(3).pause();
  cluster.sim.run_for(3s);
  cluster.server(3).resume();
  cluster.sim.run_for(5s);
  EXPECT_EQ(cluster.ensemble.leader(), 3);
  auto elections_before = std::count_if(cluster.milestones.events.begin(), cluster.milestones.events.end(),
                                        [](const auto& event) { return std::get<2>(event) == "zab.established"; });
  EXPECT_EQ(elections_before, 1);
  // Leader paused 12 s: the followers drop it after ~syncLimit ticks and elect zk2.
  sim::Instant pause_time = cluster.sim.now();
  cluster.server(3).pause();
  cluster.sim.run_for(12s);
  EXPECT_EQ(cluster.server(2).getPeerState(), ServerState::leading);
  std::optional<sim::Instant> reelected;
  for (const auto& [time, node, what, epoch] : cluster.milestones.events) {
    if (what == "zab.established" && time > pause_time) reelected = reelected ? reelected : time;
  }
  ASSERT_TRUE(reelected.has_value());
  EXPECT_GE(*reelected - pause_time, 10s);
  EXPECT_LE(*reelected - pause_time, 11s);
  cluster.server(3).resume();
  cluster.sim.run_for(5s);
  EXPECT_EQ(cluster.ensemble.leader(), 2);
  EXPECT_EQ(cluster.server(3).getPeerState(), ServerState::following);
}

// Ensemble::leader() is the harness's word for "ZooKeeper serves" (eventual-leader's first stage,
// full-coverage's snapshots): a leader's own LEADING is not enough. Explore found a naive-master run
// (seed 901294 of a 4,000-run sweep) whose leader was paused until the heal and still said LEADING
// at that instant, while the others were LOOKING: the recipe's bound started 11 s too early.
TEST(Ensemble, ALeaderCountsOnlyUnpausedAndFollowedByAQuorum) {
  Cluster cluster(3);
  ASSERT_TRUE(cluster.startAndElectHighest());
  cluster.server(3).pause();
  EXPECT_EQ(cluster.server(3).getPeerState(), ServerState::leading);
  EXPECT_EQ(cluster.ensemble.leader(), std::nullopt) << "a paused leader serves nobody";
  cluster.sim.run_for(12s);
  ASSERT_EQ(cluster.server(2).getPeerState(), ServerState::leading);
  // At the instant of the resume the old leader still believes it leads its old epoch; zk2 leads the
  // new one with zk1 behind it.
  cluster.server(3).resume();
  ASSERT_EQ(cluster.server(3).getPeerState(), ServerState::leading);
  EXPECT_EQ(cluster.ensemble.leader(), 2);
  // A leader whose followers are gone is not serving either, though it has not noticed yet.
  cluster.sim.run_for(5s);
  ASSERT_EQ(cluster.ensemble.leader(), 2);
  cluster.server(1).pause();
  cluster.server(3).pause();
  EXPECT_EQ(cluster.server(2).getPeerState(), ServerState::leading);
  EXPECT_EQ(cluster.ensemble.leader(), std::nullopt);
}

}  // namespace
