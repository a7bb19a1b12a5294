#include <gtest/gtest.h>

#include <set>
#include <variant>

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

TEST(Network, MessagesInFlightOnOneDirectionTakeOneEventAndStillArriveEachWhenDue) {
  // The event queue holds the direction's next delivery only; the others wait as instants in the
  // connection (a burst's million reads in flight took 40 B of queue each).
  std::size_t pending_after_sends = 0;
  TwoNodes setup(1ms, 50ms, [&](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    ELECTSIM_ASSERT(socket.has_value());
    std::size_t pending_before = self.sim().pending_events();
    for (int i = 1; i <= 1000; i++) socket->send(i);
    pending_after_sends = self.sim().pending_events() - pending_before;
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_for(10s);
  EXPECT_EQ(pending_after_sends, 1u);
  EXPECT_EQ(setup.server.entries(), numbers(1, 1000));
  // Random latencies from one send instant: FIFO makes arrivals non-decreasing, and with 1,000
  // draws from 1-50 ms, many messages arrive at the instant of an earlier one's longer draw.
  std::set<Instant> instants;
  for (std::size_t i = 0; i < setup.server.log.size(); i++) {
    if (i > 0) {
      EXPECT_GE(setup.server.log[i].first, setup.server.log[i - 1].first);
    }
    instants.insert(setup.server.log[i].first);
  }
  EXPECT_GT(instants.size(), 1u);
  EXPECT_LT(instants.size(), 1000u);
  EXPECT_LE(setup.server.log.back().first, epoch + 150ms);
}

TEST(Network, ADirectionsDeliveriesDueAtOneInstantArriveTogetherAtTheFirstOnesPlace) {
  // Two messages sent at one instant with a fixed latency are due at one instant; an event queued
  // for that instant between the two sends runs after both (docs/engine.md, Network). Each message
  // used to be an event of its own, and the two arrived on either side of it.
  TwoNodes setup(10ms, 10ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    ELECTSIM_ASSERT(socket.has_value());
    socket->send(1);
    ScriptNode& server = static_cast<ScriptNode&>(self.sim().node(0));
    self.sim().schedule_callback(self.sim().now() + 10ms, server.id(), [&server] { server.record("timer"); });
    socket->send(2);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_for(1s);
  EXPECT_EQ(setup.server.entries(), (std::vector<std::string>{"1", "2", "timer"}));
}

// A message alternative that counts how it is moved and copied.
struct Counted {
  static inline int moves = 0;
  static inline int copies = 0;
  int value = 0;
  explicit Counted(int v) : value(v) {}
  Counted(Counted&& other) noexcept : value(other.value) { moves++; }
  Counted(const Counted& other) : value(other.value) { copies++; }
  Counted& operator=(Counted&& other) noexcept {
    value = other.value;
    moves++;
    return *this;
  }
  Counted& operator=(const Counted& other) {
    value = other.value;
    copies++;
    return *this;
  }
};
using CountedMessage = std::variant<Counted, int>;

TEST(Network, AnAlternativeOfAVariantMessageIsMadeInPlaceMovedOnce) {
  // Socket::send of one alternative builds the message in the in-flight buffer around it: one move
  // (or one copy of an lvalue), not a conversion to the variant and a second move.
  Simulation sim{5};
  ScriptNode& server = sim.add_node<ScriptNode>("server", [](ScriptNode& self) -> Task<void> {
    Listener<CountedMessage> listener = self.sim().network().listen<CountedMessage>(self.id(), port);
    Socket<CountedMessage> socket = co_await listener.accept();
    while (true) {
      Received<CountedMessage> received = co_await socket.receive();
      if (!received) co_return;
      if (const auto* counted = std::get_if<Counted>(&*received)) self.record("counted " + std::to_string(counted->value));
      if (const auto* number = std::get_if<int>(&*received)) self.record("int " + std::to_string(*number));
    }
  });
  ScriptNode& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<CountedMessage>(0, port, 1s);
    ELECTSIM_ASSERT(socket.has_value());
    Counted::moves = Counted::copies = 0;
    Counted first(1);
    socket->send(std::move(first));
    self.record("after a moved alternative: " + std::to_string(Counted::moves) + " moves, " + std::to_string(Counted::copies) + " copies");
    Counted::moves = Counted::copies = 0;
    const Counted second(2);
    socket->send(second);
    self.record("after an lvalue alternative: " + std::to_string(Counted::moves) + " moves, " + std::to_string(Counted::copies) + " copies");
    socket->send(3);
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_for(1s);
  EXPECT_EQ(client.entries(), (std::vector<std::string>{"after a moved alternative: 1 moves, 0 copies", "after an lvalue alternative: 0 moves, 1 copies"}));
  EXPECT_EQ(server.entries(), (std::vector<std::string>{"counted 1", "counted 2", "int 3"}));
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

// ---- TCP's retransmission timer: when held data goes after a heal ----

TEST(RetransmissionTimer, DoublesFromTheMinimumAndIsCappedAtTheMaximum) {
  RetransmissionTimer timer;
  timer.arm(epoch + 1ms);
  EXPECT_EQ(timer.next(), epoch + 201ms);
  EXPECT_EQ(timer.advance_to(epoch + 201ms), epoch + 201ms);  // at the heal itself: that one
  EXPECT_EQ(timer.advance_to(epoch + 202ms), epoch + 601ms);  // 200, 600, 1400 ms after the send
  EXPECT_EQ(timer.advance_to(epoch + 1s), epoch + 1401ms);
  EXPECT_EQ(timer.rto(), 800ms);
  // 0.2, 0.4, ... 102.4 s, then 120 s each: 204.6 s after the send, then 29 more to pass an hour.
  EXPECT_EQ(timer.advance_to(epoch + 1ms + 1h), epoch + 1ms + 204600ms + 29 * 120s);
  EXPECT_EQ(timer.rto(), tcp_rto_max);
}

std::vector<std::string> timed_entries(const ScriptNode& node) {
  std::vector<std::string> out;
  for (const auto& [time, what] : node.log) out.push_back(what + " at " + format_instant(time));
  return out;
}

TEST(Retransmission, HeldDataGoesAtTheFirstRetransmissionAfterTheHealNotAtTheHeal) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    co_await self.sim().sleep_until(epoch + 1001ms);
    socket->send(1);
    co_await self.sim().sleep_until(epoch + 2s);
    network.heal_all();  // the timer fired into the cut at 1.201, 1.601 and 2.401 s
    socket->send(2);     // queued behind 1
    co_await self.sim().sleep_until(epoch + 3s);
    socket->send(3);     // nothing held any more: at once
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(timed_entries(setup.server), (std::vector<std::string>{"1 at 2.402s", "2 at 2.402s", "3 at 3.001s"}));
  EXPECT_EQ(setup.sim.network().stats().retransmissions, 1u);
}

TEST(Retransmission, AShortCutDelaysToTheFirstRetransmission) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    co_await self.sim().sleep_until(epoch + 1001ms);
    socket->send(1);
    co_await self.sim().sleep_until(epoch + 1100ms);
    network.heal_all();
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(timed_entries(setup.server), (std::vector<std::string>{"1 at 1.202s"}));
}

TEST(Retransmission, ACutThatHealsWithNothingHeldDelaysNothing) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    co_await self.sim().sleep_until(epoch + 5s);
    network.heal_all();
    socket->send(1);
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(timed_entries(setup.server), (std::vector<std::string>{"1 at 5.001s"}));
}

TEST(Retransmission, ARetransmissionIntoANewCutIsLostAndTheTimerKeepsDoubling) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    co_await self.sim().sleep_until(epoch + 1001ms);
    socket->send(1);
    co_await self.sim().sleep_until(epoch + 2s);
    network.heal_all();  // the next retransmission is due at 2.401 s...
    co_await self.sim().sleep_until(epoch + 2200ms);
    network.partition({{0}, {1}});  // ...and goes into this cut
    co_await self.sim().sleep_until(epoch + 3500ms);
    network.heal_all();  // the one after is 1.6 s later: 4.001 s
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(timed_entries(setup.server), (std::vector<std::string>{"1 at 4.002s"}));
}

TEST(Retransmission, NothingIsDeliveredOnAConnectionBothEndsClosedDuringTheCut) {
  Simulation sim(3);
  sim.network().set_latency(1ms, 1ms);
  auto& server = sim.add_node<ScriptNode>("server", [](ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
    {
      Socket<int> socket = co_await listener.accept();
      Received<int> received = co_await socket.receive(2s);
      self.record(received.timed_out() ? "timed out" : "unexpected");
    }  // closed: its FIN is held too
    co_await self.sim().sleep(1h);
  });
  auto& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    {
      auto socket = co_await network.connect<int>(0, port, 1s);
      co_await self.sim().sleep_until(epoch + 1s);
      network.partition({{0}, {1}});
      socket->send(1);
      co_await self.sim().sleep_until(epoch + 1500ms);
    }  // closed: both ends are, so the connection is gone
    co_await self.sim().sleep_until(epoch + 5s);
    network.heal_all();
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_until(epoch + 30s);
  EXPECT_EQ(server.entries(), (std::vector<std::string>{"timed out"}));
  EXPECT_EQ(sim.network().stats().retransmissions, 0u);
  EXPECT_EQ(sim.network().stats().messages_delivered, 0u);
}

TEST(Retransmission, AFinHeldByTheCutArrivesAtTheRetransmissionAndLateDataIsDropped) {
  Simulation sim(3);
  sim.network().set_latency(1ms, 1ms);
  auto& server = sim.add_node<ScriptNode>("server", [](ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
    {
      Socket<int> socket = co_await listener.accept();  // at 1 ms
      Received<int> received = co_await socket.receive(2s);
      self.record(received.timed_out() ? "timed out" : "unexpected");
    }  // closed at 2.001 s, into the cut
    co_await self.sim().sleep(1h);
  });
  auto& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    socket->send(1);
    co_await self.sim().sleep_until(epoch + 5s);
    network.heal_all();
    Received<int> fin = co_await socket->receive();
    self.record(fin.closed() ? "closed at " + format_instant(self.sim().now()) : "unexpected");
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_until(epoch + 30s);
  // The server's FIN, sent at 2.001 s: retransmitted at 2.201, 2.601, 3.401 and 5.001 s. The
  // client's 1, sent at 1 s: at 1.2, 1.6, 2.4, 4.0 and 7.2 s, to an end closed since.
  EXPECT_EQ(client.entries(), (std::vector<std::string>{"closed at 5.002s"}));
  EXPECT_EQ(server.entries(), (std::vector<std::string>{"timed out"}));
  EXPECT_EQ(sim.network().stats().messages_dropped, 1u);
  EXPECT_EQ(sim.network().stats().retransmissions, 2u);
}

TEST(Retransmission, ADarkReceiverRebootedResetsAtTheNextRetransmission) {
  TwoNodes setup(1ms, 1ms, [](ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1001ms);
    socket->send(1);  // the server's machine is off: silence
    Received<int> reset = co_await socket->receive();
    self.record(reset.closed() ? "closed" : "unexpected");
    co_await self.sim().sleep(1h);
  });
  setup.sim.run_until(epoch + 1s);
  setup.server.power_off();
  setup.sim.run_until(epoch + 3s);
  setup.server.start();  // its new kernel answers the retransmission of 4.001 s with a reset
  setup.sim.run_until(epoch + 10s);
  EXPECT_EQ(timed_entries(setup.client), (std::vector<std::string>{"closed at 4.003s"}));
}

TEST(Retransmission, WhatAPoweredOffSenderHeldIsNeverSentAndItsRebootResetsAtOnce) {
  Simulation sim(3);
  sim.network().set_latency(1ms, 1ms);
  // The server writes at 5 s, to the client's rebooted machine: the reset comes straight back, not
  // queued behind what the client's old kernel held.
  auto& server = sim.add_node<ScriptNode>("server", [](ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), port);
    Socket<int> socket = co_await listener.accept();
    co_await self.sim().sleep_until(epoch + 5s);
    socket.send(99);
    Received<int> received = co_await socket.receive(5s);
    self.record(received ? std::to_string(*received) : received.closed() ? "reset" : "timed out");
  });
  auto& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    co_await self.sim().sleep_until(epoch + 1s);
    network.partition({{0}, {1}});
    socket->send(1);  // held, then lost with the machine's power
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_until(epoch + 1500ms);
  client.power_off();
  sim.run_until(epoch + 2s);
  sim.network().heal_all();
  sim.run_until(epoch + 3s);
  client.set_script({});
  client.start();
  sim.run_until(epoch + 20s);
  EXPECT_EQ(timed_entries(server), (std::vector<std::string>{"reset at 5.002s"}));
  EXPECT_EQ(sim.network().stats().retransmissions, 0u);
}

// 250 messages with latencies of 1-50 ms: before the cut, in flight when it comes, during it,
// right after the heal and long after. Returns what the server read and when.
std::vector<std::pair<Instant, std::string>> fifo_across_a_cut(std::uint64_t seed) {
  Simulation sim(seed);
  sim.network().set_latency(1ms, 50ms);
  auto& server = sim.add_node<ScriptNode>("server", record_server);
  auto& client = sim.add_node<ScriptNode>("client", [](ScriptNode& self) -> Task<void> {
    Network& network = self.sim().network();
    auto socket = co_await network.connect<int>(0, port, 1s);
    auto send = [&socket](int from, int to) {
      for (int i = from; i <= to; i++) socket->send(i);
    };
    co_await self.sim().sleep_until(epoch + 500ms);
    send(1, 50);
    co_await self.sim().sleep_until(epoch + 1s);
    send(51, 100);
    network.partition({{0}, {1}});  // 51-100 are in flight: held; the timer counts from 1 s
    co_await self.sim().sleep_until(epoch + 2s);
    send(101, 150);
    co_await self.sim().sleep_until(epoch + 3s);
    network.heal_all();  // retransmissions at 1.2, 1.6, 2.4 and 4.0 s
    send(151, 200);
    co_await self.sim().sleep_until(epoch + 10s);
    send(201, 250);
    co_await self.sim().sleep(1h);
  });
  server.start();
  client.start();
  sim.run_until(epoch + 20s);
  return server.log;
}

TEST(Retransmission, HeldMessagesKeepTheirOrderAndWaitForTheRetransmission) {
  std::vector<std::pair<Instant, std::string>> log = fifo_across_a_cut(3);
  std::vector<std::string> values;
  for (const auto& [time, what] : log) values.push_back(what);
  ASSERT_EQ(values, numbers(1, 250));
  for (std::size_t i = 0; i < log.size(); i++) {
    Instant time = log[i].first;
    if (i < 50) {
      EXPECT_LT(time, epoch + 1s) << i;
    } else if (i < 200) {  // held: at the retransmission of 4 s, plus a latency
      EXPECT_GE(time, epoch + 4001ms) << i;
      EXPECT_LE(time, epoch + 4050ms) << i;
    } else {
      EXPECT_GE(time, epoch + 10001ms) << i;
      EXPECT_LE(time, epoch + 10050ms) << i;
    }
  }
}

TEST(Retransmission, SameSeedSameDeliveriesAcrossACut) {
  EXPECT_EQ(fifo_across_a_cut(11), fifo_across_a_cut(11));
  EXPECT_NE(fifo_across_a_cut(11), fifo_across_a_cut(12));  // the latencies are the seed's
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
