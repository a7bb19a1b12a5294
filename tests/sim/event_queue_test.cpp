#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>

#include "sim/event_queue.h"

namespace {

struct TestEvent {
  std::int64_t at;
  std::uint64_t sequence;
};

TEST(EventQueue, OrdersByTimeThenInsertion) {
  sim::EventQueue<TestEvent> queue;
  queue.push({5, 0});
  queue.push({3, 1});
  queue.push({5, 2});
  queue.push({3, 3});
  queue.push({0, 4});
  std::vector<std::uint64_t> order;
  while (!queue.empty()) order.push_back(queue.pop().sequence);
  EXPECT_EQ(order, (std::vector<std::uint64_t>{4, 1, 3, 0, 2}));
}

TEST(EventQueue, PeekingDoesNotForbidEarlierPushes) {
  sim::EventQueue<TestEvent> queue;
  queue.push({1000, 0});
  EXPECT_EQ(queue.top_time(), 1000);
  queue.push({10, 1});  // still allowed: nothing was popped
  EXPECT_EQ(queue.pop().sequence, 1u);
}

TEST(EventQueue, PopsOnlyWhatIsDueAndLeavesTheRestPushable) {
  sim::EventQueue<TestEvent> queue;
  TestEvent got{};
  EXPECT_FALSE(queue.pop_if_not_after(100, got));  // empty
  queue.push({1000, 0});
  queue.push({50, 1});
  ASSERT_TRUE(queue.pop_if_not_after(100, got));
  EXPECT_EQ(got.sequence, 1u);
  EXPECT_FALSE(queue.pop_if_not_after(999, got));  // not due: nothing moved
  queue.push({500, 2});                            // so an earlier push is still allowed
  ASSERT_TRUE(queue.pop_if_not_after(1000, got));
  EXPECT_EQ(got.sequence, 2u);
  queue.push({500, 3});  // equal times go to bucket 0 behind nothing
  EXPECT_FALSE(queue.pop_if_not_after(499, got));
  ASSERT_TRUE(queue.pop_if_not_after(500, got));
  EXPECT_EQ(got.sequence, 3u);
  ASSERT_TRUE(queue.pop_if_not_after(1000, got));
  EXPECT_EQ(got.sequence, 0u);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, RejectsPushesIntoThePast) {
  sim::EventQueue<TestEvent> queue;
  queue.push({100, 0});
  queue.pop();
  EXPECT_THROW(queue.push({99, 1}), sim::AssertionFailure);
}

// The radix heap against a stable sort: for any interleaving of monotone pushes and pops, the pops
// come out in (time, insertion) order.
RC_GTEST_PROP(EventQueue, MatchesAStableSortUnderInterleavedPushAndPop, ()) {
  sim::EventQueue<TestEvent> queue;
  std::vector<TestEvent> reference;
  std::int64_t now = 0;
  std::uint64_t sequence = 0;
  auto steps = *rc::gen::container<std::vector<std::pair<bool, std::int64_t>>>(
      rc::gen::pair(rc::gen::arbitrary<bool>(), rc::gen::inRange<std::int64_t>(0, 5000)));
  for (auto [push, delay] : steps) {
    if (push || reference.empty()) {
      // Small delays collide often; occasionally a far one exercises the high buckets.
      std::int64_t at = now + (delay % 7 == 0 ? delay * 1'000'000'007LL : delay % 13);
      queue.push({at, sequence});
      reference.push_back({at, sequence});
      sequence++;
    } else {
      auto earliest = std::min_element(reference.begin(), reference.end(), [](const TestEvent& a, const TestEvent& b) {
        return a.at != b.at ? a.at < b.at : a.sequence < b.sequence;
      });
      TestEvent expected = *earliest;
      reference.erase(earliest);
      RC_ASSERT(queue.top_time() == expected.at);
      TestEvent got{};
      if (delay % 2 == 0) {
        RC_ASSERT(!queue.pop_if_not_after(expected.at - 1, got));  // not due yet: nothing changes
        RC_ASSERT(queue.pop_if_not_after(expected.at, got));
      } else {
        got = queue.pop();
      }
      RC_ASSERT(got.sequence == expected.sequence);
      now = got.at;
    }
    RC_ASSERT(queue.size() == reference.size());
  }
}

}  // namespace
