#include <gtest/gtest.h>

#include "tests/sim/script_node.h"

namespace {

using namespace sim;
using test::ScriptNode;

TEST(Sleep, ResumesAtExactlyTheDeadline) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    co_await self.sim().sleep(1500ms);
    self.record("a");
    co_await self.sim().sleep(0ms);
    self.record("b");
    co_await self.sim().sleep_until(epoch + 2s);
    self.record("c");
  });
  node.start();
  sim.run_for(10s);
  ASSERT_EQ(node.log.size(), 3u);
  EXPECT_EQ(node.log[0].first, epoch + 1500ms);
  EXPECT_EQ(node.log[1].first, epoch + 1500ms);
  EXPECT_EQ(node.log[2].first, epoch + 2s);
}

TEST(Condition, NotifyAllWakesEveryWaiterAndTimeoutsReportFalse) {
  Simulation sim(1);
  Condition condition(sim);
  auto& node = sim.add_node<ScriptNode>("n", [&condition](ScriptNode& self) -> Task<void> {
    auto waiter = [](ScriptNode& node, Condition& condition, std::string name, Duration timeout) -> Task<void> {
      bool notified = co_await condition.wait_for(timeout);
      node.record(name + (notified ? " notified" : " timed out"));
    };
    self.spawn(waiter(self, condition, "a", 10s));
    self.spawn(waiter(self, condition, "b", 10s));
    self.spawn(waiter(self, condition, "c", 1s));
    co_await self.sim().sleep(2s);
    condition.notify_all();
  });
  node.start();
  sim.run_for(20s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"c timed out", "a notified", "b notified"}));
  EXPECT_EQ(node.log[1].first, epoch + 2s);
}

TEST(Signal, IsStickyOnceSet) {
  Simulation sim(1);
  Signal signal(sim);
  auto& node = sim.add_node<ScriptNode>("n", [&signal](ScriptNode& self) -> Task<void> {
    signal.set();
    co_await signal.wait();  // already set: no suspension
    self.record("through");
    signal.reset();
    bool set = co_await signal.wait_for(1s);
    self.record(set ? "set" : "timeout");
  });
  node.start();
  sim.run_for(5s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"through", "timeout"}));
}

TEST(Queue, HandsItemsToWaitingConsumersInOrderAndPollsTimeOut) {
  Simulation sim(1);
  Queue<int> queue(sim, 2);
  auto& node = sim.add_node<ScriptNode>("n", [&queue](ScriptNode& self) -> Task<void> {
    auto consumer = [](ScriptNode& node, Queue<int>& queue, std::string name) -> Task<void> {
      int item = co_await queue.pop();
      node.record(name + " got " + std::to_string(item));
    };
    self.spawn(consumer(self, queue, "first"));
    self.spawn(consumer(self, queue, "second"));
    co_await self.sim().sleep(1s);
    EXPECT_TRUE(queue.push(1));
    EXPECT_TRUE(queue.push(2));
    EXPECT_TRUE(queue.push(3));
    EXPECT_TRUE(queue.push(4));
    EXPECT_FALSE(queue.push(5));  // bounded: two went to consumers, two are buffered
    auto polled = co_await queue.poll(1s);
    self.record("polled " + std::to_string(polled.value_or(-1)));
    co_await queue.poll(1s);
    auto empty = co_await queue.poll(500ms);
    self.record(empty ? "unexpected" : "poll timed out");
  });
  node.start();
  sim.run_for(10s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"polled 3", "first got 1", "second got 2", "poll timed out"}));
}

TEST(Future, DeliversAValueAnExceptionOrABrokenPromise) {
  Simulation sim(1);
  auto& node = sim.add_node<ScriptNode>("n", [](ScriptNode& self) -> Task<void> {
    Simulation& sim = self.sim();
    {
      Promise<int> promise;
      Future<int> future = promise.get_future();
      auto timed_out = co_await future.wait_for(sim, 1s);
      self.record(timed_out ? "early" : "timeout");
      promise.set_value(42);
      int value = co_await future.wait(sim);
      self.record("value " + std::to_string(value));
    }
    {
      Promise<int> promise;
      Future<int> future = promise.get_future();
      promise.set_exception(std::make_exception_ptr(std::runtime_error("refused")));
      try {
        co_await future.wait(sim);
      } catch (const std::runtime_error& error) {
        self.record(error.what());
      }
    }
    {
      std::optional<Promise<int>> promise(std::in_place);
      Future<int> future = promise->get_future();
      promise.reset();
      try {
        co_await future.wait(sim);
      } catch (const BrokenPromise&) {
        self.record("broken");
      }
    }
  });
  node.start();
  sim.run_for(10s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"timeout", "value 42", "refused", "broken"}));
}

TEST(FirstOf, ReturnsTheFirstSourceToFireOrTheTimeout) {
  Simulation sim(1);
  Condition stop(sim);
  Queue<int> work(sim, 10);
  auto& node = sim.add_node<ScriptNode>("n", [&](ScriptNode& self) -> Task<void> {
    auto poker = [](ScriptNode& node, Queue<int>& work, Condition& stop) -> Task<void> {
      co_await node.sim().sleep(1s);
      work.push(7);
      co_await node.sim().sleep(1s);
      stop.notify_all();
    };
    self.spawn(poker(self, work, stop));
    int first = co_await first_of(self.sim(), stop, work, Timeout{10s});
    self.record("fired " + std::to_string(first) + " item " + std::to_string(work.try_pop().value_or(-1)));
    int second = co_await first_of(self.sim(), stop, work, Timeout{10s});
    self.record("fired " + std::to_string(second));
    int third = co_await first_of(self.sim(), stop, work, Timeout{3s});
    self.record("fired " + std::to_string(third));
  });
  node.start();
  sim.run_for(60s);
  EXPECT_EQ(node.entries(), (std::vector<std::string>{"fired 1 item 7", "fired 0", "fired 2"}));
  EXPECT_EQ(node.log[2].first, epoch + 5s);
}

}  // namespace
