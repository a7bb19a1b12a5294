// live::RealTimeLoop: the simulation follows the wall clock, actions posted from another thread run
// as callbacks of their node (deferred while it is paused), and stop() ends a run early. Real time
// is only bounded from below here (an event never runs early); upper bounds are generous.
#include "live/realtime_loop.h"

#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "sim/node.h"
#include "tests/support/idle_node.h"

namespace {

using namespace std::chrono_literals;
using WallClock = std::chrono::steady_clock;

TEST(RealTimeLoop, EventsRunNoEarlierThanTheirRealTimeAndPostedActionsRunOnTheLoop) {
  sim::Simulation sim(1);
  auto& node = sim.add_node<test_support::IdleNode>("n");
  node.start();
  live::RealTimeLoop loop(sim);
  std::vector<std::string> happened;
  WallClock::time_point start = WallClock::now();
  WallClock::duration timer_at{};
  sim.schedule_callback(sim::epoch + 150ms, sim::no_node, [&] {
    happened.push_back("timer");
    timer_at = WallClock::now() - start;
  });
  std::thread poster([&] { loop.post(node.id(), [&] { happened.push_back("posted"); }); });
  loop.run_until(sim::epoch + 300ms);
  poster.join();
  EXPECT_GE(timer_at, 150ms);
  EXPECT_GE(WallClock::now() - start, 300ms);
  EXPECT_EQ(sim.now(), sim::epoch + 300ms);
  ASSERT_EQ(happened.size(), 2u);
  EXPECT_EQ(happened[1], "timer");  // the post came at once; the timer at 150 ms
}

TEST(RealTimeLoop, APausedNodeGetsItsPostedActionsWhenItResumes) {
  sim::Simulation sim(1);
  auto& node = sim.add_node<test_support::IdleNode>("n");
  node.start();
  node.pause();
  live::RealTimeLoop loop(sim);
  std::optional<sim::Instant> ran_at;
  loop.post(node.id(), [&] { ran_at = sim.now(); });
  sim.schedule_callback(sim::epoch + 100ms, sim::no_node, [&] { node.resume(); });
  loop.run_until(sim::epoch + 50ms);
  EXPECT_FALSE(ran_at.has_value());
  loop.run_until(sim::epoch + 200ms);
  ASSERT_TRUE(ran_at.has_value());
  EXPECT_GE(*ran_at, sim::epoch + 100ms);
}

TEST(RealTimeLoop, StopEndsARunEarly) {
  sim::Simulation sim(1);
  live::RealTimeLoop loop(sim);
  std::thread stopper([&] {
    std::this_thread::sleep_for(100ms);
    loop.stop();
  });
  WallClock::time_point start = WallClock::now();
  loop.run_until(sim::epoch + 600s);
  stopper.join();
  EXPECT_TRUE(loop.stopped());
  EXPECT_LT(WallClock::now() - start, 30s);
  EXPECT_LT(sim.now(), sim::epoch + 600s);
}

}  // namespace
