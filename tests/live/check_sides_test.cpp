// The conformance checks' model sides (no JVM: deterministic for the seed) and the live side's
// helpers that interpret srvr answers and C client events. The live sides need a real ensemble and
// run under `ctest -L live` or `electsim conformance`.
#include <gtest/gtest.h>

#if ELECTSIM_LIVE

#include "live/conformance.h"
#include "live/live_check_support.h"

namespace {

using namespace std::chrono_literals;

TEST(CheckSupport, ZxidsArePrintedAsSrvrPrintsThem) {
  EXPECT_EQ(live::hex_zxid(0), "0x0");
  EXPECT_EQ(live::hex_zxid(std::int64_t{1} << 32), "0x100000000");
  EXPECT_EQ(live::hex_zxid((std::int64_t{2} << 32) + 3), "0x200000003");
}

TEST(CheckSupport, CClientStatesGetTheJavaClientsNames) {
  EXPECT_EQ(live::keeper_state_word("connected"), "SyncConnected");
  EXPECT_EQ(live::keeper_state_word("connecting"), "Disconnected");
  EXPECT_EQ(live::keeper_state_word("associating"), "Disconnected");
  EXPECT_EQ(live::keeper_state_word("expired"), "Expired");
}

TEST(CheckSupport, SettledNeedsOneLeaderAndEveryOtherServerFollowing) {
  using live::ServerMode;
  auto statuses = [](std::vector<ServerMode> modes) {
    std::vector<live::ServerStatus> result;
    for (ServerMode mode : modes) result.push_back(live::ServerStatus{mode, std::nullopt});
    return result;
  };
  EXPECT_TRUE(live::settled(statuses({ServerMode::follower, ServerMode::follower, ServerMode::leader})));
  EXPECT_FALSE(live::settled(statuses({ServerMode::not_serving, ServerMode::follower, ServerMode::leader})));
  EXPECT_FALSE(live::settled(statuses({ServerMode::leader, ServerMode::follower, ServerMode::leader})));  // two LEADING after a pause
  EXPECT_FALSE(live::settled(statuses({ServerMode::follower, ServerMode::no_answer, ServerMode::leader})));
}

TEST(CheckSupport, FirstSessionStateIsTheFirstAfterTheInstant) {
  live::Clock::time_point start{};
  std::vector<live::ClientEvent> events{
      {start + 1s, "session", "connecting", ""},
      {start + 2s, "deleted", "connected", "/a"},
      {start + 3s, "session", "connected", ""},
      {start + 4s, "session", "expired", ""},
  };
  EXPECT_EQ(live::first_session_state(events, "connected", start), start + 3s);  // a watch event is not a session event
  EXPECT_EQ(live::first_session_state(events, "connecting", start + 2s), std::nullopt);
  EXPECT_EQ(live::first_session_state(events, "expired", start), start + 4s);
}

// The model sides of the checks REAL-ZOOKEEPER.md's rows describe, pinned for seed 1.
TEST(ModelChecks, FiveServersStaggeredElectSid3AndTogetherSid5) {
  live::ConformanceConfig config;
  live::Measures staggered = live::run_model_check("five-staggered", config);
  for (int gap_ms : live::five_server_gaps_ms) EXPECT_EQ(staggered.words["leader " + std::to_string(gap_ms)], "3") << gap_ms;
  EXPECT_EQ(live::run_model_check("five-together", config).words["leader"], "5");
}

TEST(ModelChecks, TheLeaderShowsEpochShiftedAndAWriteReachesEveryServer) {
  live::Measures measures = live::run_model_check("zxid-election", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["leader zxid"], "0x100000000");
  EXPECT_EQ(measures.words["zxids after write"], "0x100000002, 0x100000002, 0x100000002");
}

TEST(ModelChecks, AGracefulCloseDeletesTheEphemeralAtOnce) {
  live::Measures measures = live::run_model_check("graceful-close", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["ephemeral"], "deleted");
  EXPECT_LT(measures.milliseconds["close to deleted"], 50);
}

TEST(ModelChecks, ALongLeaderPauseElectsSid2AndTheOldLeaderExpiresItsClient) {
  live::Measures measures = live::run_model_pause_check("leader-pause", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["new leader"], "2");
  EXPECT_EQ(measures.words["old leader afterwards"], "FOLLOWING");
  EXPECT_EQ(measures.words["owner told"], "Expired");
  EXPECT_TRUE(measures.milliseconds.contains("new leader to /a deleted"));
}

TEST(ModelChecks, AShortLeaderPauseDisconnectsItsClientButExpiresNothing) {
  live::Measures measures = live::run_model_pause_check("leader-pause-short", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["elections"], "none");
  EXPECT_EQ(measures.words["owner session"], "kept");
  EXPECT_EQ(measures.words["/a afterwards"], "present");
}

TEST(ModelChecks, ALongFollowerPauseExpiresItsClientAndTheLeaderStays) {
  live::Measures measures = live::run_model_pause_check("follower-pause", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["leader throughout"], "3");
  EXPECT_EQ(measures.words["owner told"], "Expired");
  EXPECT_TRUE(measures.milliseconds.contains("pause to /f deleted"));
}

TEST(ModelChecks, AHealedFollowerRejoinsAtItsNextRetransmissionNotAtTheHeal) {
  live::Measures measures = live::run_model_heal_check("heal-rejoin", live::ConformanceConfig{});
  EXPECT_EQ(measures.words["leader throughout"], "3");
  EXPECT_EQ(measures.words["isolated afterwards"], "FOLLOWING");
  // Retransmissions 0.2, 0.6, 1.4, 3.0 and 6.2 s after it started looking; the heal 5 s (and up to
  // a poll of 50 ms) after that.
  EXPECT_GE(measures.milliseconds["heal to following"], 1150);
  EXPECT_LE(measures.milliseconds["heal to following"], 1300);
}

}  // namespace

#endif
