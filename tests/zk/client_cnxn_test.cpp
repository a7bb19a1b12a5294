// The client's connection handling (ClientCnxn's SendThread) against scripted servers, where a
// real ensemble could not show the difference: when it pauses before an attempt, and which replies
// move the last zxid it presents to the next server.
#include <gtest/gtest.h>

#include "model/zk/client/ClientCnxn.h"
#include "model/zk/client/ScriptedClient.h"
#include "model/zk/client/ZooKeeper.h"
#include "model/zk/quorum/QuorumPeerConfig.h"
#include "sim/network.h"

namespace {

using namespace std::chrono_literals;

using ClientNode = zk::ScriptedClient;

// A server that accepts one connection after another. It answers each ConnectRequest at once and
// notes the zxid the client says it has seen; `after_reply` decides, for each request answered,
// whether the connection then closes.
struct ScriptedServer final : sim::Node {
  ScriptedServer(sim::Simulation& sim, std::string name) : Node(sim, std::move(name)) {}
  std::vector<zk::Zxid> last_zxids_presented;
  std::vector<sim::Instant> connect_requests_at;
  // The zxid each kind of reply carries, and whether the server hangs up after it.
  zk::Zxid get_data_zxid = 0;
  zk::Zxid set_watches_zxid = 0;
  bool close_after_get_data = false;
  bool close_after_set_watches = false;
  bool answer_close_session = true;

  void on_start() override { spawn(serve()); }
  sim::Task<void> serve() {
    sim::Listener<zk::ClientPacket> listener = sim().network().listen<zk::ClientPacket>(id(), zk::client_port);
    while (true) {
      sim::Socket<zk::ClientPacket> socket = co_await listener.accept();
      bool open = true;
      while (open) {
        sim::Received<zk::ClientPacket> received = co_await socket.receive(1h);
        if (!received) break;
        if (const auto* connect = std::get_if<zk::ConnectRequest>(&*received.message)) {
          last_zxids_presented.push_back(connect->last_zxid_seen);
          connect_requests_at.push_back(sim().now());
          zk::ConnectResponse response;
          response.timeout_ms = 6000;
          response.session_id = 42;
          socket.send(response);
          continue;
        }
        const auto* request = std::get_if<zk::ClientRequest>(&*received.message);
        if (request == nullptr) continue;
        zk::ClientReply reply;
        reply.xid = request->xid;
        if (request->type == zk::OpCode::get_data) {
          reply.zxid = get_data_zxid;
          open = !close_after_get_data;
        } else if (request->type == zk::OpCode::set_watches) {
          reply.zxid = set_watches_zxid;
          open = !close_after_set_watches;
        } else if (request->type == zk::OpCode::ping) {
          reply.xid = zk::ping_xid;
        } else if (request->type == zk::OpCode::close_session && !answer_close_session) {
          continue;
        }
        socket.send(reply);
      }
      socket.close();
    }
  }
};

// A client of `server` alone, session timeout 6 s, started.
ClientNode& startClientOf(sim::Simulation& sim, const ScriptedServer& server, ClientNode::Script script) {
  auto& client = sim.add_node<ClientNode>("i1", std::vector<sim::NodeId>{server.id()}, 6s, std::move(script));
  client.start();
  return client;
}

TEST(ClientCnxn, AttemptsBeforeTheFirstConnectionAreMadeWithoutTheRandomPause) {
  // ClientCnxn.SendThread: startConnect sleeps 0..1 s only `if (!isFirstConnect)`, and
  // isFirstConnect turns false in primeConnection, once a connection is up. Two of the three servers
  // are down: with a fixed 5 ms latency a refusal takes one 10-ms round trip, and the client
  // connects at 30, 40 or 50 ms as the shuffle puts the live server first, second or third. With a
  // pause before each attempt after the first, the seeds where it is not first would take up to a
  // second more.
  int seeds_with_a_refused_attempt_first = 0;
  for (std::uint64_t seed = 1; seed <= 20; seed++) {
    sim::Simulation sim(seed);
    sim.network().set_latency(5ms, 5ms);
    auto& down1 = sim.add_node<ScriptedServer>("zk1");
    auto& down2 = sim.add_node<ScriptedServer>("zk2");
    auto& up = sim.add_node<ScriptedServer>("zk3");
    up.start();
    auto& client = sim.add_node<ClientNode>("i1", std::vector<sim::NodeId>{down1.id(), down2.id(), up.id()}, 6s,
                                            [](ClientNode& self) -> sim::Task<void> {
                                              co_await self.waitConnected();
                                              self.record("connected");
                                            });
    client.start();
    sim.run_for(5s);
    std::optional<sim::Instant> connected = client.when("connected");
    ASSERT_TRUE(connected.has_value()) << "seed " << seed;
    EXPECT_LE(*connected - sim::epoch, 50ms) << "seed " << seed;
    if (*connected - sim::epoch > 30ms) seeds_with_a_refused_attempt_first++;
  }
  EXPECT_GT(seeds_with_a_refused_attempt_first, 0);  // the test saw the case it is about
}

TEST(ClientCnxn, AReconnectPausesAtRandomBeforeItsAttempt) {
  // Once a connection has been made, every attempt waits 0..1 s first: after the server hangs up,
  // the second ConnectRequest comes later than the 20 ms of a handshake, in some seeds by hundreds
  // of ms.
  sim::Duration longest_gap = 0ms;
  for (std::uint64_t seed = 1; seed <= 5; seed++) {
    sim::Simulation sim(seed);
    sim.network().set_latency(5ms, 5ms);
    auto& server = sim.add_node<ScriptedServer>("zk1");
    server.close_after_get_data = true;
    server.start();
    startClientOf(sim, server, [](ClientNode& self) -> sim::Task<void> {
      co_await self.waitConnected();
      co_await self.zk().getData("/x");
    });
    sim.run_for(5s);
    ASSERT_GE(server.connect_requests_at.size(), 2u) << "seed " << seed;
    // The hang-up reaches the client 5 ms after the getData reply was sent, 10 ms after the first
    // ConnectRequest arrived: the rest is the pause and the new handshake.
    longest_gap = std::max(longest_gap, server.connect_requests_at[1] - server.connect_requests_at[0]);
  }
  EXPECT_GT(longest_gap, 100ms);
}

TEST(ClientCnxn, TheSetWatchesReplyMovesTheLastZxidSeen) {
  // 3.8 sends SetWatches with an ordinary xid (ClientCnxnSocketNIO.doIO), so its reply goes through
  // readResponse and `lastZxid = replyHdr.getZxid()`: the next ConnectRequest presents the zxid of
  // the server that answered SetWatches, and a server behind it refuses the client.
  sim::Simulation sim(1);
  sim.network().set_latency(1ms, 5ms);
  auto& server = sim.add_node<ScriptedServer>("zk1");
  server.get_data_zxid = 0x10;
  server.close_after_get_data = true;
  server.set_watches_zxid = 0x20;
  server.close_after_set_watches = true;
  server.start();
  startClientOf(sim, server, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    // A watch, so that the reconnect sends SetWatches; the server hangs up after the reply.
    co_await self.zk().getData("/x", [](const zk::WatchedEvent&) {});
  });
  sim.run_for(10s);
  ASSERT_GE(server.last_zxids_presented.size(), 3u);
  EXPECT_EQ(server.last_zxids_presented[0], 0);
  EXPECT_EQ(server.last_zxids_presented[1], 0x10);  // the getData reply's
  EXPECT_EQ(server.last_zxids_presented[2], 0x20);  // the SetWatches reply's
}

TEST(ClientCnxn, ACloseWhoseConnectionEndsBeforeTheReplyReturnsAtOnce) {
  // ClientCnxn.close waits for its closeSession packet to finish. When the connection ends first,
  // SendThread.run leaves its loop (closing) and cleanup() finishes every pending packet, the close's
  // too (CONNECTIONLOSS), so close returns then, not after a timeout.
  sim::Simulation sim(1);
  sim.network().set_latency(5ms, 5ms);
  auto& server = sim.add_node<ScriptedServer>("zk1");
  server.answer_close_session = false;
  server.start();
  auto& client = startClientOf(sim, server, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    co_await self.sim().sleep(1s);
    self.record("closing");
    co_await self.zk().close();
    self.record("closed");
  });
  sim.run_for(1100ms);
  ASSERT_TRUE(client.has("closing"));
  server.crash();  // the process exits: the client's connection ends 5 ms later
  sim.run_for(20s);
  ASSERT_TRUE(client.has("closed"));
  EXPECT_LE(*client.when("closed") - *client.when("closing"), 200ms);
}

TEST(ClientCnxn, ARequestMadeWhileTheHandleClosesFailsWithConnectionLoss) {
  // queuePacket: `if (!state.isAlive() || closing) conLossPacket(packet)`: CONNECTIONLOSS while the
  // close is under way (SESSIONEXPIRED once CLOSED), and nothing more is sent.
  sim::Simulation sim(1);
  sim.network().set_latency(5ms, 5ms);
  auto& server = sim.add_node<ScriptedServer>("zk1");
  server.start();
  auto& client = startClientOf(sim, server, [](ClientNode& self) -> sim::Task<void> {
    co_await self.waitConnected();
    self.spawn(self.zk().close());
    co_await self.sim().sleep(1ms);  // the close has begun: its closeSession is on the wire
    zk::DataResult during = co_await self.zk().getData("/x");
    self.record("during close: " + std::string(zk::code_name(during.code)));
    co_await self.sim().sleep(1s);
    zk::DataResult after = co_await self.zk().getData("/x");
    self.record("after close: " + std::string(zk::code_name(after.code)));
  });
  sim.run_for(5s);
  EXPECT_TRUE(client.has("during close: CONNECTIONLOSS"));
  EXPECT_TRUE(client.has("after close: SESSIONEXPIRED"));
}

}  // namespace
