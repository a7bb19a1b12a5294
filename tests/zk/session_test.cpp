// Sessions, ephemerals and watches through the client, against ZooKeeper 3.8's behaviour.
#include <gtest/gtest.h>

#include "model/zk/Ensemble.h"
#include "model/zk/client/ScriptedClient.h"
#include "model/zk/client/ZooKeeper.h"
#include "model/zk/server/SessionTracker.h"
#include "model/zk/server/ZooKeeperServer.h"
#include "sim/network.h"

namespace {

using namespace std::chrono_literals;

using ClientNode = zk::ScriptedClient;

struct Cluster {
  sim::Simulation sim;
  zk::Ensemble ensemble;
  explicit Cluster(std::uint64_t seed = 1) : sim(seed), ensemble(sim, 3, zk::QuorumPeerConfig{}) {
    sim.network().set_latency(1ms, 5ms);
    for (zk::ServerId sid = 1; sid <= 3; sid++) ensemble.server(sid).start();
  }
  ClientNode& client(const std::string& name, sim::Duration timeout, ClientNode::Script script) {
    return sim.add_node<ClientNode>(name, ensemble.nodes(), timeout, std::move(script));
  }
};

sim::Task<void> createEphemeral(ClientNode& self) {
  co_await self.waitConnected();
  zk::CreateResult created = co_await self.zk().create("/master", "me", zk::CreateMode::ephemeral);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(1h);
}

sim::Task<void> watchMaster(ClientNode& self) {
  co_await self.waitConnected();
  while (true) {
    zk::StatResult exists = co_await self.zk().exists("/master", [&self](const zk::WatchedEvent& event) {
      self.record(std::string(zk::event_type_name(event.type)) + " " + event.path);
    });
    if (exists.code == zk::Code::ok) break;
    co_await self.sim().sleep(200ms);
  }
  co_await self.sim().sleep(1h);
}

TEST(Session, RequestedTimeoutIsNegotiatedIntoTheServersBounds) {
  Cluster cluster;
  auto& short_one = cluster.client("i1", 1s, {});
  auto& long_one = cluster.client("i2", 10min, {});
  short_one.start();
  long_one.start();
  cluster.sim.run_for(5s);
  // REAL-ZOOKEEPER.md: 1000 ms is negotiated to 4000 ms (2 tickTime); the maximum is 20 ticks.
  EXPECT_EQ(short_one.zk().getSessionTimeout(), 4s);
  EXPECT_EQ(long_one.zk().getSessionTimeout(), 40s);
}

TEST(Session, AKilledClientsEphemeralGoesWithinTheExpiryWindowAndItsWatchFires) {
  // REAL-ZOOKEEPER.md: timeout 4000 ms, the ephemeral is deleted and watchers notified 4.4-6.4 s
  // after the kill. The mechanism bounds it by [T - T/3, T + tickTime + tickTime/2]: the last ping
  // may be up to T/3 old at the kill, expiry buckets round up by up to one tick, and a follower
  // relays its clients' touches to the leader only every tickTime/2 (6.4 s exceeds T + tickTime).
  for (std::uint64_t seed = 1; seed <= 8; seed++) {
    Cluster cluster(seed);
    auto& owner = cluster.client("i1", 4s, createEphemeral);
    auto& watcher = cluster.client("i2", 4s, watchMaster);
    owner.start();
    watcher.start();
    cluster.sim.run_for(5s);
    ASSERT_TRUE(owner.has("create OK")) << "seed " << seed;
    sim::Instant kill = cluster.sim.now();
    owner.crash();
    cluster.sim.run_for(10s);
    auto deleted = watcher.when("NodeDeleted /master");
    ASSERT_TRUE(deleted.has_value()) << "seed " << seed;
    sim::Duration delay = *deleted - kill;
    EXPECT_GE(delay, 4s - 4s / 3) << "seed " << seed;
    EXPECT_LE(delay, 4s + 2s + 1s + 100ms) << "seed " << seed;
  }
}

TEST(Session, ADisconnectShorterThanTheTimeoutKeepsTheSession) {
  Cluster cluster;
  auto& owner = cluster.client("i1", 6s, createEphemeral);
  owner.start();
  cluster.sim.run_for(5s);
  ASSERT_TRUE(owner.has("create OK"));
  zk::SessionId session = owner.zk().getSessionId();
  // Cut the client off from every server for 3 s (< 6 s): it disconnects at 2/3 of the timeout at
  // the latest and reconnects, with the same session and its ephemeral intact.
  cluster.sim.network().isolate(owner.id());
  cluster.sim.run_for(3s);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_TRUE(owner.zk().connected());
  EXPECT_EQ(owner.zk().getSessionId(), session);
  EXPECT_FALSE(owner.has("state Expired"));
  const zk::DataNode* master = cluster.ensemble.server(1).getZkDb().getDataTree().getNode("/master");
  ASSERT_NE(master, nullptr);
  EXPECT_EQ(master->stat.ephemeral_owner, session);
}

TEST(Session, ADisconnectLongerThanTheTimeoutEndsInExpiredOnReconnect) {
  Cluster cluster;
  auto& owner = cluster.client("i1", 4s, createEphemeral);
  owner.start();
  cluster.sim.run_for(5s);
  cluster.sim.network().isolate(owner.id());
  cluster.sim.run_for(10s);
  EXPECT_TRUE(owner.has("state Disconnected"));
  EXPECT_FALSE(owner.has("state Expired"));  // 3.8 clients only learn it from a server
  cluster.sim.network().heal_all();
  cluster.sim.run_for(5s);
  EXPECT_TRUE(owner.has("state Expired"));
  EXPECT_TRUE(owner.zk().closed());
  EXPECT_EQ(cluster.ensemble.server(1).getZkDb().getDataTree().getNode("/master"), nullptr);
}

TEST(Session, ARequestFailsWithConnectionLossOnADisconnectAndAtOnceWithSessionExpiredOnADeadHandle) {
  Cluster cluster;
  auto& owner = cluster.client("i1", 4s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    co_await self.sim().sleep(5s);  // isolated meanwhile: the request waits on a silent server
    zk::DataResult lost = co_await self.zk().getData("/", {});
    self.record("getData " + std::string(zk::code_name(lost.code)));
    while (!self.zk().closed()) co_await self.sim().sleep(100ms);
    sim::Instant asked = self.sim().now();
    zk::DataResult dead = co_await self.zk().getData("/", {});
    self.record("dead handle " + std::string(zk::code_name(dead.code)) + (self.sim().now() == asked ? " at once" : " later"));
  });
  owner.start();
  cluster.sim.run_for(4s);
  cluster.sim.network().isolate(owner.id());
  cluster.sim.run_for(16s);
  EXPECT_TRUE(owner.has("getData CONNECTIONLOSS"));
  cluster.sim.network().heal_all();
  cluster.sim.run_for(10s);
  EXPECT_TRUE(owner.has("state Expired"));
  EXPECT_TRUE(owner.has("dead handle SESSIONEXPIRED at once"));
}

TEST(Session, AGracefulCloseRemovesEphemeralsAtOnce) {
  Cluster cluster;
  auto& owner = cluster.client("i1", 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await createEphemeral(self);
  });
  owner.start();
  cluster.sim.run_for(3s);
  ASSERT_TRUE(owner.has("create OK"));
  sim::Instant before = cluster.sim.now();
  owner.spawn(owner.zk().close());
  cluster.sim.run_for(100ms);
  EXPECT_EQ(cluster.ensemble.server(1).getZkDb().getDataTree().getNode("/master"), nullptr);
  EXPECT_LE(cluster.sim.now() - before, 100ms);  // REAL-ZOOKEEPER.md: within ~10 ms
}

TEST(Session, AnInjectedExpirationClosesLocallyAndTheSessionExpiresOnlyByItsTimeout) {
  // ZooKeeperTestable.injectSessionExpiration on a connected handle (Curator's after a long
  // SUSPENDED): CLOSED at once, no closeSession, so the ephemeral stays until the server expires
  // the session, at least T - T/3 later.
  Cluster cluster;
  auto& owner = cluster.client("i1", 6s, createEphemeral);
  owner.start();
  cluster.sim.run_for(3s);
  ASSERT_TRUE(owner.has("create OK"));
  ASSERT_TRUE(owner.zk().connected());
  owner.zk().injectSessionExpiration();
  EXPECT_TRUE(owner.zk().closed());
  auto master = [&] { return cluster.ensemble.server(1).getZkDb().getDataTree().getNode("/master"); };
  cluster.sim.run_for(1s);
  EXPECT_NE(master(), nullptr) << "a graceful close would have deleted it within milliseconds";
  cluster.sim.run_for(10s);
  EXPECT_EQ(master(), nullptr) << "the server expired the session";
  EXPECT_FALSE(owner.zk().connected());
}

TEST(Session, SequentialNamesCountSuccessfulCreatesUnderTheParent) {
  Cluster cluster;
  auto& client = cluster.client("i1", 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    zk::ZooKeeper& zk = self.zk();
    co_await zk.create("/seq", "", zk::CreateMode::persistent);
    for (int i = 0; i < 3; i++) self.record((co_await zk.create("/seq/a-", "", zk::CreateMode::persistent_sequential)).path);
    co_await zk.deleteNode("/seq/a-0000000001");
    co_await zk.create("/seq/missing/x", "", zk::CreateMode::persistent);  // fails: NONODE, no effect on the counter
    self.record((co_await zk.create("/seq/a-", "", zk::CreateMode::persistent_sequential)).path);
    self.record((co_await zk.create("/seq/b-", "", zk::CreateMode::ephemeral_sequential)).path);
  });
  client.start();
  cluster.sim.run_for(5s);
  std::vector<std::string> names;
  for (const auto& [time, entry] : client.log) {
    if (entry.rfind("/seq/", 0) == 0) names.push_back(entry);
  }
  // REAL-ZOOKEEPER.md: after a-0,a-1,a-2, delete a-1: next a-3; prefixes share the counter.
  EXPECT_EQ(names, (std::vector<std::string>{"/seq/a-0000000000", "/seq/a-0000000001", "/seq/a-0000000002", "/seq/a-0000000003",
                                             "/seq/b-0000000004"}));
}

TEST(Session, AFollowerRelaysATouchForEverySessionItCommitsAndDropsItOnClose) {
  // LearnerSessionTracker.commitSession ends with touchTable.put(sessionId, sessionTimeout) and
  // removeSession removes it: every follower relays a touch of each new session in its next PING
  // reply, whichever server the client is on. Watched at the event that commits the txn.
  Cluster cluster;
  cluster.sim.run_for(5s);
  std::optional<zk::ServerId> leader = cluster.ensemble.leader();
  ASSERT_TRUE(leader.has_value());
  zk::ServerId follower_sid = *leader == 1 ? 2 : 1;
  zk::QuorumPeer& follower = cluster.ensemble.server(follower_sid);
  struct Commits final : sim::TraceSink {
    sim::NodeId node = sim::no_node;
    std::int32_t type = 0;
    zk::SessionId session = 0;
    bool seen = false;
    void on_event(const sim::TraceEvent& event) override {
      if (event.kind != "zab.commit" || event.node != node || event.integer("type") != type) return;
      seen = true;
      session = static_cast<zk::SessionId>(event.integer("session"));
    }
  } commits;
  commits.node = follower.id();
  commits.type = static_cast<std::int32_t>(zk::OpCode::create_session);
  cluster.sim.trace().add_sink(&commits);
  // The client is on the leader, so no packet of its own reaches the follower.
  auto& client = cluster.sim.add_node<ClientNode>("i1", std::vector<sim::NodeId>{cluster.ensemble.server(*leader).id()}, 6s,
                                                  [](ClientNode& self) -> sim::Task<void> {
                                                    co_await self.waitConnected();
                                                    co_await self.zk().close();
                                                  });
  client.start();
  while (!commits.seen && cluster.sim.step()) {
  }
  ASSERT_TRUE(commits.seen);
  zk::LearnerSessionTracker* touches = follower.getActiveServer()->learnerSessionTracker();
  ASSERT_NE(touches, nullptr);
  EXPECT_EQ(touches->pendingTouch(commits.session), std::optional<std::int32_t>(6000));
  // The client closes at once, before the follower's next ping takes the touch: committing the
  // close takes it out of the table.
  zk::SessionId session = commits.session;
  commits.seen = false;
  commits.type = static_cast<std::int32_t>(zk::OpCode::close_session);
  bool touch_before_close = false;
  while (!commits.seen) {
    touch_before_close = touches->pendingTouch(session).has_value();
    if (!cluster.sim.step()) break;
  }
  ASSERT_TRUE(commits.seen);
  EXPECT_EQ(commits.session, session);
  EXPECT_TRUE(touch_before_close);
  EXPECT_EQ(touches->pendingTouch(session), std::nullopt);
  cluster.sim.trace().remove_sink(&commits);
}

TEST(Session, AConnectionLeftBehindByAClientThatMovedIsClosedByTheServersConnectionExpirer) {
  // NIOServerCnxnFactory: each read or write touches the connection in cnxnExpiryQueue (10-s
  // buckets, the session's timeout), and the ConnectionExpirerThread closes it when its bucket
  // comes. The client is cut off from its server and moves to another one, where its session lives
  // on: the old server closes the connection (nothing told it the client left) within T + 10 s of
  // the last packet, and not before T.
  Cluster cluster;
  cluster.sim.run_for(5s);
  struct Expiries final : sim::TraceSink {
    std::vector<std::pair<sim::Instant, sim::NodeId>> seen;
    void on_event(const sim::TraceEvent& event) override {
      if (event.kind == "server.cnxn_expire") seen.emplace_back(event.time, event.node);
    }
  } expiries;
  cluster.sim.trace().add_sink(&expiries);
  auto& client = cluster.client("i1", 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    co_await self.sim().sleep(1h);
  });
  client.start();
  cluster.sim.run_for(3s);
  auto& handle = dynamic_cast<zk::SimulatedZooKeeper&>(client.zk());
  sim::NodeId first = handle.cnxn().currentServer();
  ASSERT_NE(first, sim::no_node);
  cluster.sim.network().drop(client.id(), first);
  cluster.sim.network().drop(first, client.id());
  sim::Instant cut = cluster.sim.now();
  cluster.sim.run_for(30s);
  EXPECT_NE(handle.cnxn().currentServer(), first);  // moved
  EXPECT_EQ(handle.getState(), zk::ClientCnxn::States::connected);  // with its session
  ASSERT_EQ(expiries.seen.size(), 1u);
  EXPECT_EQ(expiries.seen[0].second, first);
  // The last packet came at most T/3 before the cut (a ping); the bucket is up to 10 s later.
  EXPECT_GE(expiries.seen[0].first - cut, 6s - 2s);
  EXPECT_LE(expiries.seen[0].first - cut, 6s + 10s);
  cluster.sim.trace().remove_sink(&expiries);
}

TEST(Session, AClientThatSawANewerZxidIsRefusedByALaggingServer) {
  // ZooKeeperServer.processConnectRequest: a client whose last seen zxid is ahead of the server's
  // is refused (the connection closes with no response); the client must try another server.
  Cluster cluster;
  struct RawClient final : sim::Node {
    using Node::Node;
    sim::NodeId server = 0;
    std::vector<std::string> outcome;
    void on_start() override { spawn(run()); }
    sim::Task<void> run() {
      co_await sim().sleep(3s);
      for (zk::Zxid claimed : {zk::Zxid(0), zk::make_zxid(9, 1)}) {
        auto socket = co_await sim().network().connect<zk::ClientPacket>(server, zk::client_port, 1s);
        zk::ConnectRequest connect;
        connect.last_zxid_seen = claimed;
        connect.timeout_ms = 6000;
        socket->send(connect);
        sim::Received<zk::ClientPacket> answer = co_await socket->receive(1s);
        outcome.push_back(answer ? "answered" : (answer.closed() ? "closed" : "silent"));
      }
    }
  };
  auto& raw = cluster.sim.add_node<RawClient>("raw");
  raw.server = cluster.ensemble.server(1).id();
  raw.start();
  cluster.sim.run_for(10s);
  EXPECT_EQ(raw.outcome, (std::vector<std::string>{"answered", "closed"}));
}

}  // namespace

TEST(Session, AWatchIsRegisteredBeforeANotificationRightBehindItsReply) {
  // ClientCnxn.finishPacket registers the watch while reading the reply, before any later packet:
  // a notification right behind the reply on the connection must find the watcher. A scripted
  // server sends the getData reply and the NodeDeleted notification back to back.
  sim::Simulation sim(1);
  struct ScriptedServer final : sim::Node {
    using Node::Node;
    void on_start() override { spawn(serve()); }
    sim::Task<void> serve() {
      sim::Listener<zk::ClientPacket> listener = sim().network().listen<zk::ClientPacket>(id(), zk::client_port);
      sim::Socket<zk::ClientPacket> socket = co_await listener.accept();
      while (true) {
        sim::Received<zk::ClientPacket> received = co_await socket.receive(1h);
        if (!received) co_return;
        if (std::holds_alternative<zk::ConnectRequest>(*received.message)) {
          zk::ConnectResponse response;
          response.timeout_ms = 6000;
          response.session_id = 42;
          socket.send(response);
        } else if (auto* request = std::get_if<zk::ClientRequest>(&*received.message); request && request->type == zk::OpCode::get_data) {
          zk::ClientReply reply;
          reply.xid = request->xid;
          socket.send(reply);
          socket.send(zk::WatcherEvent{zk::WatchedEvent{zk::EventType::node_deleted, zk::KeeperState::sync_connected, request->path}});
        }
      }
    }
  };
  auto& server = sim.add_node<ScriptedServer>("zk1");
  server.start();
  auto& client = sim.add_node<ClientNode>("i1", std::vector<sim::NodeId>{server.id()}, 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    zk::DataResult data = co_await self.zk().getData("/x", [&self](const zk::WatchedEvent& event) {
      self.record(std::string(zk::event_type_name(event.type)) + " " + event.path);
    });
    self.record("getData " + std::string(zk::code_name(data.code)));
  });
  client.start();
  sim.run_for(2s);
  EXPECT_TRUE(client.has("getData OK"));
  EXPECT_TRUE(client.has("NodeDeleted /x"));
}

TEST(Session, AWriteIsAnsweredWithItsOwnZxidBeforeLaterTxnsNotify) {
  // FinalRequestProcessor answers a write as it applies its txn, before CommitProcessor hands it
  // the next commit: the reply carries that txn's zxid, and a later txn's notifications follow it
  // on the connection. Client a writes /a while b writes /b at the same instant, a watching /b;
  // the leader reads its followers' ACKs of both in one burst in some seeds.
  for (std::uint64_t seed = 1; seed <= 40; seed++) {
    Cluster cluster(seed);
    cluster.sim.run_for(3s);
    auto& a = cluster.client("a", 10s, [](ClientNode& self) -> sim::Task<void> {
      co_await self.waitConnected();
      (void)co_await self.zk().create("/a", "", zk::CreateMode::persistent);
      (void)co_await self.zk().create("/b", "", zk::CreateMode::persistent);
      (void)co_await self.zk().exists("/b", [&self](const zk::WatchedEvent& event) { self.record(std::string(zk::event_type_name(event.type))); });
      co_await self.sim().sleep_until(sim::Instant{} + 8s);
      zk::StatResult set = co_await self.zk().setData("/a", "x");
      self.record("set " + std::string(zk::code_name(set.code)));
      self.record(self.zk().lastZxid() == set.stat.mzxid ? "reply zxid is its own" : "reply zxid is a later one");
    });
    auto& b = cluster.client("b", 10s, [](ClientNode& self) -> sim::Task<void> {
      co_await self.waitConnected();
      co_await self.sim().sleep_until(sim::Instant{} + 8s);
      (void)co_await self.zk().setData("/b", "y");
    });
    a.start();
    b.start();
    cluster.sim.run_for(9s);
    ASSERT_TRUE(a.has("set OK")) << "seed " << seed;
    ASSERT_TRUE(a.has("NodeDataChanged")) << "seed " << seed;
    EXPECT_TRUE(a.has("reply zxid is its own")) << "seed " << seed;
  }
}

TEST(Session, APingToTheLeaderForASessionOwnedElsewhereClosesTheConnection) {
  // PrepRequestProcessor checks the session's owner for a ping on the leader as for a write
  // (ZOOKEEPER-710): a client that only pings, whose session another server now owns (a late
  // REVALIDATE did it), is disconnected at its next ping, and its reconnect owns the session again.
  Cluster cluster;
  cluster.sim.run_for(3s);
  std::optional<zk::ServerId> leader = cluster.ensemble.leader();
  ASSERT_TRUE(leader.has_value());
  zk::ServerId other = *leader == 1 ? 2 : 1;
  auto& client = cluster.sim.add_node<ClientNode>("a", std::vector<sim::NodeId>{cluster.ensemble.server(*leader).id()}, 6s,
                                                  [](ClientNode& self) -> sim::Task<void> {
                                                    co_await self.waitConnected();
                                                    co_await self.sim().sleep(1h);
                                                  });
  struct Disconnects final : sim::TraceSink {
    sim::NodeId node;
    std::vector<sim::Instant> at;
    explicit Disconnects(sim::NodeId n) : node(n) {}
    void on_event(const sim::TraceEvent& event) override {
      if (event.kind == "client.state" && event.node == node && event.text("state") == "DISCONNECTED") at.push_back(event.time);
    }
  } disconnects(client.id());
  cluster.sim.trace().add_sink(&disconnects);
  client.start();
  cluster.sim.run_for(2s);
  ASSERT_TRUE(client.zk().getSessionId() != 0);
  zk::SessionTrackerImpl* tracker = cluster.ensemble.server(*leader).getActiveServer()->sessionTracker();
  const zk::SessionId session = client.zk().getSessionId();
  ASSERT_EQ(tracker->setOwner(session, static_cast<std::uint64_t>(other)), zk::Code::ok);
  const sim::Instant moved = cluster.sim.now();
  cluster.sim.run_for(5s);
  cluster.sim.trace().remove_sink(&disconnects);
  ASSERT_EQ(disconnects.at.size(), 1u);
  EXPECT_LE(disconnects.at[0] - moved, 2100ms);  // the next ping: every readTimeout / 2 = 2 s
  EXPECT_EQ(client.zk().getSessionId(), session);  // the same session, on the leader again
  EXPECT_EQ(tracker->checkSession(session, static_cast<std::uint64_t>(*leader)), zk::Code::ok);
}

TEST(Session, ANodesCtimeAndMtimeAreWallTimeWhicheverServerLeads) {
  // PrepRequestProcessor stamps a txn with Time.currentWallTime(): the machines' wall clocks
  // agree, so a node changed under a new leader keeps mtime - ctime equal to the time between.
  Cluster cluster;
  cluster.sim.run_for(3s);
  std::optional<zk::ServerId> first = cluster.ensemble.leader();
  ASSERT_TRUE(first.has_value());
  auto& client = cluster.client("a", 10s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    (void)co_await self.zk().create("/x", "", zk::CreateMode::persistent);
    zk::StatResult created = co_await self.zk().exists("/x");
    self.record("ctime " + std::to_string(created.stat.ctime));
    self.record("created at " + std::to_string(sim::millis(self.sim().now().time_since_epoch())));
    co_await self.sim().sleep_until(sim::Instant{} + 20s);
    zk::StatResult set = co_await self.zk().setData("/x", "y");
    self.record(set.code == zk::Code::ok ? "set OK" : "set failed");
    self.record("mtime " + std::to_string(set.stat.mtime));
  });
  client.start();
  cluster.sim.run_for(5s);
  cluster.ensemble.server(*first).crash();  // another server leads when /x changes
  cluster.sim.run_for(20s);
  ASSERT_TRUE(client.has("set OK"));
  ASSERT_NE(cluster.ensemble.leader(), first);
  auto number = [&client](const std::string& prefix) -> std::int64_t {
    for (const auto& [time, entry] : client.log) {
      if (entry.rfind(prefix, 0) == 0) return std::stoll(entry.substr(prefix.size()));
    }
    return -1;
  };
  const std::int64_t run_start_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  const std::int64_t ctime = number("ctime ");
  EXPECT_GE(ctime - run_start_ms, number("created at ") - 100);  // stamped a few round trips before
  EXPECT_LE(ctime - run_start_ms, number("created at "));
  const std::int64_t mtime = number("mtime ");
  EXPECT_GE(mtime - ctime, 14'000);  // set at 20 s, created before 6 s
  EXPECT_LE(mtime - ctime, 20'000);
}

TEST(Session, ARecursiveWatchOutlivesItsEventsAndAMoveToAnotherServer) {
  // addWatch (3.6+): the watcher stays after each event, hears of nodes below its path, and the
  // client re-adds it on the next server it connects to (SetWatches2), so events keep coming.
  Cluster cluster;
  cluster.sim.run_for(3s);
  ClientNode& watcher = cluster.client("watcher", 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    zk::Code added = co_await self.zk().addWatch("/j", [&self](const zk::WatchedEvent& event) {
      self.record(std::string(zk::event_type_name(event.type)) + " " + event.path);
    }, zk::AddWatchMode::persistent_recursive);
    self.record("addWatch " + std::string(zk::code_name(added)));
  });
  watcher.start();
  cluster.sim.run_for(1s);
  ASSERT_TRUE(watcher.has("addWatch OK"));
  ClientNode& writer = cluster.client("writer", 6s, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    co_await self.zk().create("/j", "", zk::CreateMode::persistent);
    co_await self.zk().create("/j/a", "", zk::CreateMode::persistent);
    co_await self.zk().setData("/j/a", "1");
    co_await self.zk().setData("/j/a", "2");
    self.record("first writes");
    co_await self.sim().sleep(10s);
    co_await self.zk().setData("/j/a", "3");
    co_await self.zk().deleteNode("/j/a");
    self.record("second writes");
  });
  writer.start();
  cluster.sim.run_for(2s);
  ASSERT_TRUE(writer.has("first writes"));
  EXPECT_TRUE(watcher.has("NodeCreated /j"));
  EXPECT_TRUE(watcher.has("NodeCreated /j/a"));
  EXPECT_EQ(std::count_if(watcher.log.begin(), watcher.log.end(), [](const auto& entry) { return entry.second == "NodeDataChanged /j/a"; }), 2);
  // The watcher's server dies; the client moves to another one within its session.
  auto& handle = dynamic_cast<zk::SimulatedZooKeeper&>(watcher.zk());
  const sim::NodeId first = handle.cnxn().currentServer();
  cluster.sim.node(first).crash();
  cluster.sim.run_for(10s);
  ASSERT_TRUE(writer.has("second writes"));
  EXPECT_NE(handle.cnxn().currentServer(), first);
  EXPECT_EQ(std::count_if(watcher.log.begin(), watcher.log.end(), [](const auto& entry) { return entry.second == "NodeDataChanged /j/a"; }), 3);
  EXPECT_TRUE(watcher.has("NodeDeleted /j/a"));
  EXPECT_FALSE(watcher.has("state Expired"));
}

TEST(Session, NestedRecursiveWatchersAreCalledDeepestFirstHoweverManyTheClientHolds) {
  // ZKWatchManager.addPersistentWatches walks from the event's path up to "/" (PathParentIterator),
  // so nested recursive watchers are called deepest first. The client finds a few by testing each
  // against the path and many by the walk: both must give the walk's order.
  for (const bool many : {false, true}) {
    Cluster cluster;
    cluster.sim.run_for(3s);
    std::vector<std::string> watched = {"/", "/j", "/j/a", "/jx"};  // /jx is no parent of /j/a/b
    if (many) watched.insert(watched.end(), {"/k", "/l", "/m"});
    ClientNode& watcher = cluster.client("watcher", 6s, [watched](ClientNode& self) -> sim::Task<void> {
      co_await self.waitConnected();
      for (const std::string& path : watched) {
        (void)co_await self.zk().addWatch(path, [&self, path](const zk::WatchedEvent& event) {
          if (event.path == "/j/a/b") self.record("watcher " + path + " " + std::string(zk::event_type_name(event.type)));
        }, zk::AddWatchMode::persistent_recursive);
      }
      co_await self.zk().create("/j", "", zk::CreateMode::persistent);
      co_await self.zk().create("/j/a", "", zk::CreateMode::persistent);
      co_await self.zk().create("/j/a/b", "", zk::CreateMode::persistent);
      self.record("created");
    });
    watcher.start();
    cluster.sim.run_for(2s);
    ASSERT_TRUE(watcher.has("created")) << "many " << many;
    std::vector<std::string> calls;
    for (const auto& [time, entry] : watcher.log) {
      if (entry.rfind("watcher ", 0) == 0) calls.push_back(entry);
    }
    EXPECT_EQ(calls, (std::vector<std::string>{"watcher /j/a NodeCreated", "watcher /j NodeCreated", "watcher / NodeCreated"}))
        << "many " << many;
  }
}

TEST(Session, AHandleClosedDuringItsHandshakeNeverConnects) {
  // A close() while the first connect is in flight: the handshake that completes afterwards must not
  // revive the handle (ClientCnxn checks the closing state after every step of the connect).
  for (std::uint64_t seed = 1; seed <= 4; seed++) {
    Cluster cluster(seed);
    auto& client = cluster.client("i1", 6s, {});
    cluster.sim.run_for(2s);  // the ensemble has a leader
    client.start();
    client.spawn(client.zk().close());  // the connect's handshake is still on the wire
    cluster.sim.run_for(5s);
    EXPECT_TRUE(client.zk().closed()) << "seed " << seed;
    EXPECT_FALSE(client.has("state SyncConnected")) << "seed " << seed;
  }
}
