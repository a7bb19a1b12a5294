#include <gtest/gtest.h>

#include <stdexcept>

#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::DestructionProbe;
using test::ScriptNode;

Task<int> add_later(Simulation& sim, int a, int b) {
  co_await sim.sleep(10ms);
  co_return a + b;
}

Task<int> fail_later(Simulation& sim) {
  co_await sim.sleep(1ms);
  throw std::runtime_error("boom");
}

Task<int> depth(int remaining) {
  if (remaining == 0) co_return 0;
  int below = co_await depth(remaining - 1);
  co_return below + 1;
}

TEST(Task, ReturnsItsValueToTheAwaiter) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    int sum = co_await add_later(self.sim(), 2, 3);
    self.record("sum " + std::to_string(sum));
  });
  node.start();
  sim.run_for(1s);
  ASSERT_EQ(node.log.size(), 1u);
  EXPECT_EQ(node.log[0].second, "sum 5");
  EXPECT_EQ(node.log[0].first, epoch + 10ms);
}

TEST(Task, RethrowsTheCalleesException) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    try {
      co_await fail_later(self.sim());
    } catch (const std::runtime_error& error) {
      self.record(error.what());
    }
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(node.entries(), std::vector<std::string>{"boom"});
}

TEST(Task, IsLazyUntilAwaitedOrSpawned) {
  Simulation sim(1);
  int runs = 0;
  auto& node = sim.add_node<ScriptNode>("n", [&runs](ScriptNode&) -> Task<void> {
    auto body = [](int& counter) -> Task<void> {
      counter++;
      co_return;
    };
    Task<void> never_awaited = body(runs);  // created, destroyed without running
    co_await body(runs);
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(runs, 1);
}

TEST(Task, DeepAwaitChainsDoNotGrowTheStack) {
  // Symmetric transfer: 200,000 nested awaits complete without a stack overflow.
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    int result = co_await depth(200'000);
    self.record(std::to_string(result));
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(node.entries(), std::vector<std::string>{"200000"});
}

TEST(Task, AnUncaughtExceptionInAProcessStopsTheRunAsAFinding) {
  Simulation sim(7);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    co_await self.sim().sleep(5ms);
    ELECTSIM_ASSERT_MSG(false, "model invariant");
  });
  node.start();
  EXPECT_THROW(sim.run_for(1s), AssertionFailure);
  EXPECT_EQ(sim.failure_node(), node.id());
  EXPECT_EQ(sim.now(), epoch + 5ms);
}

TEST(Scope, SpawnedTasksStartAtTheCurrentInstantInSpawnOrder) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    auto child = [](ScriptNode& node, std::string name) -> Task<void> {
      node.record(name);
      co_return;
    };
    self.spawn(child(self, "a"));
    self.spawn(child(self, "b"));
    self.record("parent");  // children have not run yet: spawning never runs inline
    co_return;
  });
  node.start();
  sim.run_for(1s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"parent", "a", "b"}));
}

TEST(Scope, ClearingDestroysChildrenAndTheirPendingTimers) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    Scope workers(self.sim(), self.id());
    auto sleeper = [](ScriptNode& node) -> Task<void> {
      DestructionProbe probe{&node, "destroyed"};
      co_await node.sim().sleep(10s);
      node.record("woke");  // never: the scope is cleared first
    };
    workers.spawn(sleeper(self));
    co_await self.sim().sleep(1s);
    workers.clear();
    self.record("cleared");
    co_await self.sim().sleep(20s);
  });
  node.start();
  sim.run_for(60s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"destroyed", "cleared"}));
}

}  // namespace
