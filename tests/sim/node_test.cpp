#include <gtest/gtest.h>

#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::DestructionProbe;
using test::ScriptNode;

// A process that ticks every second, recording the time.
Task<void> ticker(ScriptNode& node) {
  DestructionProbe probe{&node, "frame destroyed"};
  for (int tick = 1;; tick++) {
    co_await node.sim().sleep(1s);
    node.record("tick " + std::to_string(tick) + " at " + format_instant(node.sim().now()));
  }
}

TEST(Node, CrashDestroysCoroutinesAndCancelsTheirTimers) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", ticker);
  node.start();
  sim.run_until(epoch + 2500ms);
  node.crash();
  EXPECT_FALSE(node.up());
  EXPECT_EQ(node.stop_calls, 1);
  sim.run_until(epoch + 10s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"tick 1 at 1s", "tick 2 at 2s", "frame destroyed"}));
}

TEST(Node, RestartRunsTheStartRoutineAgainOverPersistentState) {
  Simulation sim(1);
  int persistent_counter = 0;  // survives crashes, like a txn log
  auto& node = sim.add_node<ScriptNode>("n", [&persistent_counter](ScriptNode& self) -> Task<void> {
    persistent_counter++;
    int volatile_counter = 0;  // lost with the frame
    while (true) {
      co_await self.sim().sleep(1s);
      volatile_counter++;
      self.record("start " + std::to_string(persistent_counter) + " tick " + std::to_string(volatile_counter));
    }
  });
  node.start();
  sim.run_until(epoch + 2500ms);
  node.crash();
  sim.run_until(epoch + 5s);
  node.start();
  sim.run_until(epoch + 6500ms);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"start 1 tick 1", "start 1 tick 2", "start 2 tick 1"}));
  EXPECT_EQ(node.starts(), 2u);
}

TEST(Node, PauseFreezesTimersAndResumeFiresWhatCameDueAtOnce) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", ticker);
  node.start();
  sim.run_until(epoch + 1500ms);
  node.pause();
  sim.run_until(epoch + 4200ms);  // ticks due at 2s, 3s and 4s wait
  EXPECT_EQ(node.log.size(), 1u);
  node.resume();
  sim.run_until(epoch + 5500ms);
  // The 2s timer fires at resume time (stale), the ticker then sleeps 1s from there.
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"tick 1 at 1s", "tick 2 at 4.2s", "tick 3 at 5.2s"}));
}

TEST(Node, ACrashDuringAPauseKillsTheFrozenProcess) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", ticker);
  node.start();
  sim.run_until(epoch + 1500ms);
  node.pause();
  sim.run_until(epoch + 3s);
  node.crash();
  EXPECT_FALSE(node.paused());
  sim.run_until(epoch + 10s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"tick 1 at 1s", "frame destroyed"}));
}

TEST(Node, HarnessCallbacksOfACrashedNodeAreDropped) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n");
  node.start();
  bool ran = false;
  sim.schedule_callback(epoch + 2s, node.id(), [&ran] { ran = true; });
  sim.run_until(epoch + 1s);
  node.crash();
  node.start();
  sim.run_until(epoch + 5s);
  EXPECT_FALSE(ran);
}

}  // namespace
