#include <gtest/gtest.h>

#include <stdexcept>

#include "sim/eager.h"
#include "sim/frame_pool.h"
#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::ScriptNode;

Task<int> add_later(Simulation& sim, int a, int b) {
  co_await sim.sleep(10ms);
  co_return a + b;
}

// A cache in front of a slow read: a hit answers at once, a miss waits 10 ms.
Eager<int> cached_or_later(Simulation& sim, bool hit) {
  if (hit) return 7;
  return add_later(sim, 3, 4);
}

Task<void> fail_later(Simulation& sim) {
  co_await sim.sleep(1ms);
  throw std::runtime_error("boom");
}

Eager<void> maybe_fail(Simulation& sim, bool filtered) {
  if (filtered) return Eager<void>::done();
  return fail_later(sim);
}

TEST(Eager, AReadyAnswerNeedsNoFrameAndNoTime) {
  Simulation sim(1);
  std::uint64_t frames_during_hit = 0;
  auto& node = sim.add_node<ScriptNode>("n", [&frames_during_hit](ScriptNode& self) -> Task<void> {
    std::uint64_t before = frame_pool_stats().allocations;
    int hit = co_await cached_or_later(self.sim(), true);
    frames_during_hit = frame_pool_stats().allocations - before;
    self.record("hit " + std::to_string(hit));
    int miss = co_await cached_or_later(self.sim(), false);
    self.record("miss " + std::to_string(miss));
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(frames_during_hit, 0u);
  ASSERT_EQ(node.log.size(), 2u);
  EXPECT_EQ(node.log[0].second, "hit 7");
  EXPECT_EQ(node.log[0].first, epoch);
  EXPECT_EQ(node.log[1].second, "miss 7");
  EXPECT_EQ(node.log[1].first, epoch + 10ms);
}

TEST(Eager, VoidIsDoneAtOnceOrRunsItsTaskAndRethrows) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    co_await maybe_fail(self.sim(), true);
    self.record("filtered");
    try {
      co_await maybe_fail(self.sim(), false);
      self.record("not thrown");
    } catch (const std::runtime_error& error) {
      self.record(error.what());
    }
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"filtered", "boom"}));
  ASSERT_EQ(node.log.size(), 2u);
  EXPECT_EQ(node.log[0].first, epoch);
  EXPECT_EQ(node.log[1].first, epoch + 1ms);
}

TEST(Eager, TakeMovesTheReadyAnswerOut) {
  Eager<std::string> ready(std::string("answer"));
  ASSERT_TRUE(ready.ready());
  EXPECT_EQ(ready.take(), "answer");
}

}  // namespace
