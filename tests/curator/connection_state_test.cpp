// ConnectionStateManager: CONNECTED once, SUSPENDED at the client's read timeout (2/3 T), LOST
// when SUSPENDED has lasted the negotiated timeout T, RECONNECTED on a new session with a new
// handle; a short blip keeps the session.
#include "curator_cluster.h"

namespace curator_test {
namespace {

sim::Task<void> idle(CuratorNode& self) { co_await self.sim().sleep(1h); }

TEST(ConnectionStates, TheFirstConnectionIsPostedAsConnectedOnce) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), idle);
  client.start();
  cluster.sim.run_for(3s);
  EXPECT_EQ(client.states(), (std::vector<std::string>{"CONNECTED"}));
  EXPECT_EQ(client.framework().getConnectionStateListenable().getCurrentConnectionState(), curator::ConnectionState::reconnected);
  EXPECT_EQ(client.framework().getZookeeperClient().getLastNegotiatedSessionTimeout(), 6s);
}

TEST(ConnectionStates, APartitionGivesSuspendedAtTwoThirdsThenLostAfterTheTimeoutThenReconnected) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), idle);
  client.start();
  cluster.sim.run_for(3s);
  zk::SessionId oldSession = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  ASSERT_NE(oldSession, 0);
  sim::Instant cut = cluster.sim.now();
  cluster.sim.network().isolate(client.id());
  cluster.sim.run_for(20s);
  auto suspended = client.when("state SUSPENDED");
  auto lost = client.when("state LOST");
  ASSERT_TRUE(suspended);
  ASSERT_TRUE(lost);
  // The client gives up on its server readTimeout = 2/3 T after it last heard from it, which was
  // at most half a read timeout (the ping interval) before the cut.
  EXPECT_GT(*suspended - cut, 4s - 2s - 100ms);
  EXPECT_LE(*suspended - cut, 4s + 10ms);
  // Curator 3+ simulates the expiry: LOST exactly T after SUSPENDED.
  EXPECT_EQ(*lost - *suspended, 6s);
  EXPECT_EQ(client.framework().getZookeeperClient().getInstanceIndex(), 2);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_EQ(client.states(), (std::vector<std::string>{"CONNECTED", "SUSPENDED", "LOST", "RECONNECTED"}));
  zk::SessionId newSession = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  EXPECT_NE(newSession, 0);
  EXPECT_NE(newSession, oldSession);
  std::vector<TraceRecorder::Event> replaced = cluster.trace.of("curator.handle_replaced", client.id());
  ASSERT_EQ(replaced.size(), 1u);
  EXPECT_EQ(replaced[0].number("old_session"), oldSession);
  EXPECT_EQ(replaced[0].number("new_session"), newSession);
  std::vector<TraceRecorder::Event> states;
  for (const TraceRecorder::Event& event : cluster.trace.of("client.state", client.id())) {
    if (event.field("layer") == "curator") states.push_back(event);
  }
  ASSERT_EQ(states.size(), 4u);
  EXPECT_EQ(states[2].field("state"), "LOST");
}

TEST(ConnectionStates, AShortBlipGivesSuspendedThenReconnectedOnTheSameSession) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(9s), idle);
  client.start();
  cluster.sim.run_for(3s);
  zk::SessionId session = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  cluster.sim.network().isolate(client.id());
  cluster.sim.run_for(6500ms);  // past the read timeout (6 s), well before the session ends
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_EQ(client.states(), (std::vector<std::string>{"CONNECTED", "SUSPENDED", "RECONNECTED"}));
  EXPECT_EQ(client.framework().getZookeeperClient().getZooKeeper().getSessionId(), session);
  EXPECT_EQ(client.framework().getZookeeperClient().getInstanceIndex(), 1);
}

TEST(ConnectionStates, TheSessionPolicyChangesOnlyWhatRecipesCallAnError) {
  EXPECT_TRUE(curator::isErrorState(curator::ConnectionStateErrorPolicy::standard, curator::ConnectionState::suspended));
  EXPECT_FALSE(curator::isErrorState(curator::ConnectionStateErrorPolicy::session, curator::ConnectionState::suspended));
  EXPECT_TRUE(curator::isErrorState(curator::ConnectionStateErrorPolicy::session, curator::ConnectionState::lost));
}

TEST(ConnectionStates, BlockUntilConnectedTimesOutWhenNoServerAnswers) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), [](CuratorNode& self) -> sim::Task<void> {
    bool connected = co_await self.framework().blockUntilConnected(2s);
    self.record(connected ? "connected" : "timed out");
    connected = co_await self.framework().blockUntilConnected();
    self.record(connected ? "connected" : "timed out");
  });
  cluster.sim.network().isolate(client.id());
  sim::Instant start = cluster.sim.now();
  client.start();
  cluster.sim.run_for(5s);
  ASSERT_TRUE(client.when("timed out"));
  EXPECT_EQ(*client.when("timed out") - start, 2s);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_TRUE(client.when("connected"));
}

TEST(ConnectionStates, AnExpiryReportedByTheServerAlsoGivesLostAndANewHandle) {
  // With the simulated expiry off, the client learns of the expiry only from the server when the
  // partition heals (ZooKeeper 3.8 has no client-side expiry): LOST then, and a new session.
  Cluster cluster;
  curator::CuratorFrameworkConfig config = shortSessions(6s);
  config.simulatedSessionExpirationPercent = 0;
  auto& client = cluster.client("c1", config, idle);
  client.start();
  cluster.sim.run_for(3s);
  cluster.sim.network().isolate(client.id());
  cluster.sim.run_for(20s);
  EXPECT_EQ(client.states(), (std::vector<std::string>{"CONNECTED", "SUSPENDED"}));
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_EQ(client.states(), (std::vector<std::string>{"CONNECTED", "SUSPENDED", "LOST", "RECONNECTED"}));
  EXPECT_EQ(client.framework().getZookeeperClient().getInstanceIndex(), 2);
}

}  // namespace
}  // namespace curator_test
