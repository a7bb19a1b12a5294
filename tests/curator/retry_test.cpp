// ExponentialBackoffRetry's formula, and the framework's retry loop around a lost connection.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "curator_cluster.h"
#include "model/curator/ExponentialBackoffRetry.h"

namespace curator_test {
namespace {

using curator::ExponentialBackoffRetry;

TEST(ExponentialBackoffRetry, TheFirstRetrySleepsExactlyTheBase) {
  ExponentialBackoffRetry policy(1000ms, 3, ExponentialBackoffRetry::DEFAULT_MAX_SLEEP, 7);
  // retryCount 0: R in {0, 1}, max(1, R) == 1.
  for (int i = 0; i < 100; i++) EXPECT_EQ(policy.getSleepTimeMs(0), 1000ms);
}

TEST(ExponentialBackoffRetry, EachFactorOfTheSecondRetryComesUpWithJavasWeights) {
  ExponentialBackoffRetry policy(1000ms, 3, ExponentialBackoffRetry::DEFAULT_MAX_SLEEP, 11);
  // retryCount 1: R uniform in {0,1,2,3}, so base x {1,1,2,3}: factor 1 half the time.
  std::map<std::int64_t, int> seen;
  for (int i = 0; i < 4000; i++) seen[sim::millis(policy.getSleepTimeMs(1))]++;
  EXPECT_EQ(seen.size(), 3u);
  EXPECT_NEAR(seen[1000], 2000, 150);
  EXPECT_NEAR(seen[2000], 1000, 120);
  EXPECT_NEAR(seen[3000], 1000, 120);
}

TEST(ExponentialBackoffRetry, AllowsMaxRetriesThenRefuses) {
  ExponentialBackoffRetry policy(1000ms, 3, 3000ms, 3);  // ElasticJob's policy
  EXPECT_TRUE(policy.allowRetry(0).has_value());
  EXPECT_TRUE(policy.allowRetry(1).has_value());
  EXPECT_TRUE(policy.allowRetry(2).has_value());
  EXPECT_FALSE(policy.allowRetry(3).has_value());
  ExponentialBackoffRetry greedy(10ms, 100, ExponentialBackoffRetry::DEFAULT_MAX_SLEEP, 3);
  EXPECT_EQ(greedy.getN(), ExponentialBackoffRetry::MAX_RETRIES_LIMIT);  // pinned to 29
  EXPECT_TRUE(greedy.allowRetry(28).has_value());
  EXPECT_FALSE(greedy.allowRetry(29).has_value());
}

TEST(ExponentialBackoffRetry, OnlyTheFourConnectionCodesAreRetryable) {
  EXPECT_TRUE(ExponentialBackoffRetry::isRetryable(zk::Code::connection_loss));
  EXPECT_TRUE(ExponentialBackoffRetry::isRetryable(zk::Code::operation_timeout));
  EXPECT_TRUE(ExponentialBackoffRetry::isRetryable(zk::Code::session_moved));
  EXPECT_TRUE(ExponentialBackoffRetry::isRetryable(zk::Code::session_expired));
  EXPECT_FALSE(ExponentialBackoffRetry::isRetryable(zk::Code::no_node));
  EXPECT_FALSE(ExponentialBackoffRetry::isRetryable(zk::Code::node_exists));
  EXPECT_FALSE(ExponentialBackoffRetry::isRetryable(zk::Code::bad_version));
}

RC_GTEST_PROP(ExponentialBackoffRetry, SleepStaysWithinTheFormulasBounds, ()) {
  auto baseMs = *rc::gen::inRange<std::int64_t>(1, 5000);
  auto maxSleepMs = *rc::gen::inRange<std::int64_t>(1, 100000);
  auto retryCount = *rc::gen::inRange(0, ExponentialBackoffRetry::MAX_RETRIES_LIMIT + 1);
  auto seed = *rc::gen::arbitrary<std::uint64_t>();
  ExponentialBackoffRetry policy(std::chrono::milliseconds(baseMs), 29, std::chrono::milliseconds(maxSleepMs), seed);
  std::int64_t sleepMs = sim::millis(policy.getSleepTimeMs(retryCount));
  std::int64_t highest = baseMs * ((std::int64_t{1} << (retryCount + 1)) - 1);
  RC_ASSERT(sleepMs >= std::min(baseMs, maxSleepMs));
  RC_ASSERT(sleepMs <= std::min(highest, maxSleepMs));
  RC_ASSERT(sleepMs == maxSleepMs || sleepMs % baseMs == 0);
}

TEST(RetryLoop, AForegroundReadRetriesMaxRetriesTimesThenFailsWithConnectionLoss) {
  Cluster cluster;
  curator::CuratorFrameworkConfig config = shortSessions(6s);
  config.connectionTimeout = 2s;
  auto& client = cluster.client("c1", config, [](CuratorNode& self) -> sim::Task<void> {
    co_await self.framework().blockUntilConnected();
    self.record("connected");
    while (self.framework().getConnectionStateListenable().isConnected()) co_await self.sim().sleep(100ms);
    self.record("start read");
    zk::DataResult read = co_await self.framework().getData("/anything");
    self.record("read " + std::string(zk::code_name(read.code)));
  });
  client.start();
  cluster.sim.run_for(2s);
  ASSERT_TRUE(client.when("connected"));
  cluster.sim.network().isolate(client.id());
  cluster.sim.run_for(40s);
  ASSERT_TRUE(client.when("read CONNECTIONLOSS"));
  std::vector<TraceRecorder::Event> retries = cluster.trace.of("curator.retry", client.id());
  ASSERT_EQ(retries.size(), 3u);
  for (std::size_t i = 0; i < retries.size(); i++) {
    EXPECT_EQ(retries[i].field("operation"), "getData");
    EXPECT_EQ(retries[i].number("attempt"), static_cast<std::int64_t>(i + 1));
    std::int64_t highest = 1000 * ((std::int64_t{1} << (i + 1)) - 1);
    EXPECT_GE(retries[i].number("sleep_ms"), 1000);
    EXPECT_LE(retries[i].number("sleep_ms"), highest);
  }
}

}  // namespace
}  // namespace curator_test
