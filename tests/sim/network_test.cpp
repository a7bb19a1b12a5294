#include <gtest/gtest.h>

#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::ScriptNode;

constexpr std::uint16_t port = 9;

// A server that accepts connections and records every message (and every close) it reads.
Task<void> record_server(ScriptNode& self) {
  Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
  Scope readers(self.sim(), self.id());
  while (true) {
    Socket<int> socket = co_await listener.accept();
    auto reader = [](ScriptNode& node, Socket<int> socket) -> Task<void> {
      while (true) {
        Received<int> received = co_await socket.receive();
        if (!received) {
          node.record("closed at " + format_instant(node.sim().now()));
          co_return;
        }
        node.record(std::to_string(*received));
      }
    };
    readers.spawn(reader(self, std::move(socket)));
  }
}

struct TwoNodes {
  Simulation sim{3};
  ScriptNode& server = sim.add_node<ScriptNode>("server", record_server);
  ScriptNode& client = sim.add_node<ScriptNode>("client");

  TwoNodes(Duration latency_min, Duration latency_max, ScriptNode::Script client_script) {
    sim.network().set_latency(latency_min, latency_max);
    client.set_script(std::move(client_script));
    server.start();
    client.start();
  }
};

std::vector<std::string> numbers(int from, int to) {
  std::vector<std::string> out;
  for (int i = from; i <= to; i++) out.push_back(std::to_string(i));
  return out;
}

TEST(Network, DeliveryIsFifoUnderRandomLatencyAndWithinItsBounds) {
  TwoNodes setup(1ms, 50ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    ELECTSIM_ASSERT(socket.has_value());
    for (int i = 1; i <= 200; i++) socket->send(i);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_for(10s);
  EXPECT_EQ(setup.server.entries(), numbers(1, 200));
  for (const auto& [time, what] : setup.server.log) {
    EXPECT_GE(time, epoch + 1ms + 1ms);  // handshake plus at least one latency
    EXPECT_LE(time, epoch + 150ms);      // SYN, SYN-ACK and the data, each at most 50ms
  }
}

TEST(Network, ACrashedPeerIsSeenClosedOneLatencyLater) {
  TwoNodes setup(5ms, 5ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    socket->send(1);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 1s);
  setup.client.crash();
  setup.sim.run_until(epoch + 2s);
  EXPECT_EQ(setup.server.entries(), (std::vector<std::string>{"1", "closed at 1.005s"}));
}

TEST(Network, APoweredOffPeerIsSilenceAndItsRebootAnswersWithAReset) {
  Simulation sim(5);
  sim.network().set_latency(2ms, 2ms);
  auto& server = sim.add_node<ScriptNode>("server", [](ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
    Socket<int> socket = co_await listener.accept();
    Received<int> silence = co_await socket.receive(5s);
    self.record(silence.timed_out() ? "timed out" : "unexpected");
    co_await self.sim().sleep(10s);  // the client's machine comes back meanwhile
    socket.send(99);                 // its new kernel knows nothing of this connection
    Received<int> reset = co_await socket.receive(5s);
    self.record(reset.closed() ? "reset at " + format_instant(self.sim().now()) : "unexpected");
  });
  auto& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_until(epoch + 1s);
  client.power_off();
  sim.run_until(epoch + 8s);
  client.set_script({});
  client.start();
  sim.run_until(epoch + 30s);
  EXPECT_EQ(server.entries(), (std::vector<std::string>{"timed out", "reset at 15.006s"}));
}

TEST(Network, ConnectIsRefusedWithoutAListenerAndTimesOutIntoSilence) {
  Simulation sim(1);
  sim.network().set_latency(3ms, 3ms);
  auto& target = sim.add_node<ScriptNode>("target");
  auto& caller = sim.add_node<ScriptNode>("caller", [](ScriptNode& self) -> Task<void> {
    auto refused = co_await self.sim().network().connect<int>(0, port, 1s);
    self.record(std::string(refused ? "connected" : "refused") + " at " + format_instant(self.sim().now()));
    self.sim().network().isolate(0);
    auto silent = co_await self.sim().network().connect<int>(0, port, 1s);
    self.record(std::string(silent ? "connected" : "timed out") + " at " + format_instant(self.sim().now()));
  });
  target.start();
  caller.start();
  sim.run_for(10s);
  EXPECT_EQ(caller.entries(), (std::vector<std::string>{"refused at 6ms", "timed out at 1.006s"}));
}

TEST(Network, APartitionHoldsMessagesAndHealDeliversThemInOrder) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    socket->send(1);
    co_await self.sim().sleep(1s);
    self.sim().network().partition({{0}, {1}});
    socket->send(2);
    socket->send(3);
    co_await self.sim().sleep(5s);
    self.sim().network().heal_all();
    socket->send(4);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 3s);
  EXPECT_EQ(setup.server.entries(), numbers(1, 1));
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(setup.server.entries(), numbers(1, 4));
}

TEST(Network, PartitionShapes) {
  Simulation sim(1);
  for (int i = 0; i < 5; i++) sim.add_node<ScriptNode>("n" + std::to_string(i));
  Network& network = sim.network();
  auto all_pairs = [&network] {
    std::string out;
    for (NodeId a = 0; a < 5; a++) {
      for (NodeId b = 0; b < 5; b++) out += network.reachable(a, b) ? '1' : '0';
      out += ' ';
    }
    return out;
  };
  EXPECT_EQ(all_pairs(), "11111 11111 11111 11111 11111 ");
  network.partition({{0, 1}, {2, 3}});  // node 4 is in no group: it keeps its links
  EXPECT_EQ(all_pairs(), "11001 11001 00111 00111 11111 ");
  network.heal_all();
  network.isolate(2);
  EXPECT_EQ(all_pairs(), "11011 11011 00100 11011 11011 ");
  network.heal_all();
  network.bridge(0, {1, 2}, {3, 4});  // 0 sees everyone; the sides do not see each other
  EXPECT_EQ(all_pairs(), "11111 11100 11100 10011 10011 ");
  network.heal_all();
  network.drop(1, 3);  // one way only
  EXPECT_EQ(all_pairs(), "11111 11101 11111 11111 11111 ");
  EXPECT_EQ(network.reachability().strongly_connected_groups().size(), 1u);
  network.heal_all();
  network.partition({{0, 1}, {2, 3, 4}});
  auto groups = network.reachability().strongly_connected_groups();
  EXPECT_EQ(groups, (std::vector<std::vector<NodeId>>{{0, 1}, {2, 3, 4}}));
  network.heal_all();
  EXPECT_TRUE(network.reachability().fully_connected());
}

TEST(Network, OneWayLossSilencesOnlyThatDirection) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    self.sim().network().drop(1, 0);  // client -> server lost
    socket->send(1);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_for(10s);
  EXPECT_TRUE(setup.server.entries().empty());
}

TEST(Network, PausedReceiversGetTheirMessagesAfterResume) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    co_await self.sim().sleep(1s);
    socket->send(1);
    socket->send(2);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 500ms);
  setup.server.pause();
  setup.sim.run_until(epoch + 5s);
  EXPECT_TRUE(setup.server.log.empty());
  setup.server.resume();
  setup.sim.run_until(epoch + 6s);
  EXPECT_EQ(setup.server.entries(), numbers(1, 2));
  EXPECT_EQ(setup.server.log[0].first, epoch + 5s);
}

TEST(Inbox, GathersSeveralSocketsWithTheirSenders) {
  Simulation sim(1);
  sim.network().set_latency(1ms, 1ms);
  auto& hub = sim.add_node<ScriptNode>("hub", [](ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
    Inbox<int> inbox(self.sim());
    std::vector<Socket<int>> sockets;
    for (int i = 0; i < 2; i++) {
      sockets.push_back(co_await listener.accept());
      sockets.back().attach(inbox);
    }
    for (int i = 0; i < 4; i++) {
      Envelope<int> envelope = co_await inbox.receive();
      self.record(std::to_string(envelope.from) + (envelope.closed() ? ":closed" : ":" + std::to_string(*envelope.message)));
    }
  });
  auto sender = [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    co_await self.sim().sleep(Duration(self.id() * 100ms));
    socket->send(static_cast<int>(self.id()) * 10);
    co_await self.sim().sleep(1h);  // keep the socket open until the crash
  };
  auto& a = sim.add_node<ScriptNode>("a", sender);
  auto& b = sim.add_node<ScriptNode>("b", sender);
  hub.start();
  a.start();
  b.start();
  sim.run_until(epoch + 1s);
  b.crash();
  sim.run_for(1s);
  EXPECT_EQ(hub.entries(), (std::vector<std::string>{"1:10", "2:20", "2:closed"}));
}

}  // namespace
