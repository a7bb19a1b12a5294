// LearnerHandler.SyncLimitCheck: two proposals tracked, the clock restarted at the latest on an ACK.
#include <gtest/gtest.h>

#include "model/zk/quorum/SyncLimitCheck.h"

namespace zk {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t sync_timeout_ms = 10'000;  // syncLimit 5 x tickTime 2000

TEST(SyncLimitCheck, AnAckRestartsTheClockAtTheLatestProposalNotTheOldestUnacknowledged) {
  SyncLimitCheck check;
  const sim::Instant t0{};
  check.updateProposal(1, t0);  // before start(): not timed
  check.start();
  EXPECT_TRUE(check.check(t0 + 1h, sync_timeout_ms));
  check.updateProposal(2, t0);
  check.updateProposal(3, t0 + 1s);
  check.updateProposal(4, t0 + 2s);  // overwrites 3 as the latest
  EXPECT_TRUE(check.check(t0 + 9999ms, sync_timeout_ms));
  EXPECT_FALSE(check.check(t0 + 10s, sync_timeout_ms));  // 2 has waited syncLimit ticks
  check.updateAck(2);
  // Timed from 4 now, though 3 is still unacknowledged (sent at 1 s).
  EXPECT_TRUE(check.check(t0 + 11500ms, sync_timeout_ms));
  EXPECT_FALSE(check.check(t0 + 12s, sync_timeout_ms));
  check.updateAck(3);  // neither of the two: no change
  EXPECT_FALSE(check.check(t0 + 12s, sync_timeout_ms));
  check.updateAck(4);
  EXPECT_TRUE(check.check(t0 + 1h, sync_timeout_ms));
}

TEST(SyncLimitCheck, AnAckOfTheLatestBeforeTheCurrentForgetsTheLatest) {
  SyncLimitCheck check;
  const sim::Instant t0{};
  check.start();
  check.updateProposal(5, t0);
  check.updateProposal(6, t0 + 5s);
  check.updateAck(6);  // "ACK for 6 received before ACK for 5"
  check.updateAck(5);  // current becomes the forgotten latest: nothing
  EXPECT_TRUE(check.check(t0 + 1h, sync_timeout_ms));
}

}  // namespace
}  // namespace zk
