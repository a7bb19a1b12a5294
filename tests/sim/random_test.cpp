#include <gtest/gtest.h>

#include "tests/sim/script_node.h"

namespace {

using namespace sim;

TEST(Random, SeedDerivationIsStableAcrossPlatforms) {
  // Golden values: if these change, every recorded failure file stops replaying.
  // They pin the seed derivation and Boost.Random's generator and distributions together.
  EXPECT_EQ(stable_hash("zk1"), 0xce54b71987752d19ULL);
  EXPECT_EQ(derive_seed(42, "network"), 0xc00fdced1e529718ULL);
  Rng rng(derive_seed(1, "workload"));
  std::vector<std::int64_t> draws;
  for (int i = 0; i < 4; i++) draws.push_back(rng.uniform(0, 1000));
  EXPECT_EQ(draws, (std::vector<std::int64_t>{948, 619, 471, 573}));
  EXPECT_EQ(rng.pick(7), 3u);
  EXPECT_EQ(rng.pick(1000), 477u);
}

TEST(Random, NamedStreamsAreIndependent) {
  RandomStreams streams(7);
  Rng network = streams.stream("network");
  Rng faults = streams.stream("faults");
  std::vector<std::int64_t> network_alone;
  for (int i = 0; i < 100; i++) network_alone.push_back(network.uniform(0, 1'000'000));
  // Drawing from another stream in between changes nothing for the network stream.
  Rng network_again = streams.stream("network");
  for (int i = 0; i < 100; i++) {
    faults.uniform(0, 10);
    EXPECT_EQ(network_again.uniform(0, 1'000'000), network_alone[static_cast<std::size_t>(i)]);
  }
  EXPECT_NE(streams.seed_for("network"), streams.seed_for("faults"));
  EXPECT_NE(RandomStreams(7).seed_for("network"), RandomStreams(8).seed_for("network"));
}

TEST(Random, PickAndChanceStayInRange) {
  Rng rng(3);
  std::vector<int> counts(5, 0);
  for (int i = 0; i < 10'000; i++) counts[rng.pick(5)]++;
  for (int count : counts) EXPECT_GT(count, 1'500);
  int hits = 0;
  for (int i = 0; i < 10'000; i++) hits += rng.chance(1, 4) ? 1 : 0;
  EXPECT_GT(hits, 2'000);
  EXPECT_LT(hits, 3'000);
}

// Latencies on one connection do not depend on traffic elsewhere: adding a chatty third node leaves
// the a->b arrival times unchanged.
std::vector<Instant> arrival_times(bool with_noise) {
  Simulation sim(11);
  sim.network().set_latency(1ms, 20ms);
  auto& b = sim.add_node<test::ScriptNode>("b", [](test::ScriptNode& self) -> Task<void> {
    Listener<int> listener = self.sim().network().listen<int>(self.id(), 1);
    Scope readers(self.sim(), self.id());
    while (true) {
      Socket<int> socket = co_await listener.accept();
      auto reader = [](test::ScriptNode& node, Socket<int> socket) -> Task<void> {
        while (auto received = co_await socket.receive()) {
          if (*received < 1000) node.record("a");
        }
      };
      readers.spawn(reader(self, std::move(socket)));
    }
  });
  auto& a = sim.add_node<test::ScriptNode>("a", [](test::ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, 1, 1s);
    for (int i = 0; i < 50; i++) {
      socket->send(i);
      co_await self.sim().sleep(7ms);
    }
  });
  auto& noise = sim.add_node<test::ScriptNode>("noise", [](test::ScriptNode& self) -> Task<void> {
    auto socket = co_await self.sim().network().connect<int>(0, 1, 1s);
    for (int i = 0; i < 500; i++) {
      socket->send(1000 + i);
      co_await self.sim().sleep(1ms);
    }
  });
  b.start();
  a.start();
  if (with_noise) noise.start();
  sim.run_for(10s);
  std::vector<Instant> times;
  for (const auto& [time, what] : b.log) times.push_back(time);
  return times;
}

TEST(Random, APreparedUniformDrawsExactlyWhatBoostsDistributionDraws) {
  // SmallRng::Uniform does Boost's per-call set-up once; every draw must still be Boost's, or every
  // recorded failure file stops replaying. Two generators from one seed, one drawn each way.
  const std::int64_t two32 = std::int64_t{1} << 32;
  std::vector<std::pair<std::int64_t, std::int64_t>> ranges = {
      {0, 0},        {5, 5},          {0, 1},         {1'000'000, 5'000'000}, {100'000, 500'000}, {0, 255},
      {0, 256},      {0, 1 << 30},    {7, (1 << 30) + 7}, {0, two32 - 3}, {0, two32 - 2},   {0, two32 - 1},
      {0, two32},    {3, two32 + 3},  {0, two32 * 5},  {-50, 50},            {-two32, 10},       {1, 2},
  };
  Rng picker(derive_seed(9, "ranges"));
  for (int i = 0; i < 40; i++) {
    std::int64_t low = picker.uniform(0, 10'000'000);
    ranges.emplace_back(low, low + picker.uniform(0, std::int64_t{1} << (i % 40)));
  }
  for (std::uint64_t seed = 1; seed <= 5; seed++) {
    for (const auto& [low, high] : ranges) {
      SmallRng prepared(derive_seed(seed, "uniform"));
      SmallRng plain(derive_seed(seed, "uniform"));
      const SmallRng::Uniform draw(low, high);
      for (int n = 0; n < 200; n++) {
        ASSERT_EQ(prepared.uniform(draw), plain.uniform(low, high)) << "[" << low << ", " << high << "] seed " << seed << " draw " << n;
      }
    }
  }
}

TEST(Random, AConnectionsLatenciesIgnoreOtherTraffic) {
  std::vector<Instant> quiet = arrival_times(false);
  EXPECT_EQ(quiet.size(), 50u);
  EXPECT_EQ(arrival_times(true), quiet);
}

}  // namespace
