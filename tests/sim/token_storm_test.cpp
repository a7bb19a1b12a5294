#include <gtest/gtest.h>

#include "bench/token_storm.h"
#include "sim/frame_pool.h"

namespace {

TEST(TokenStorm, DeliversExactlyTheRequestedNumber) {
  bench::TokenStormResult result = bench::run_token_storm({.nodes = 10, .tokens = 10, .deliveries = 100'000, .seed = 1});
  EXPECT_EQ(result.deliveries, 100'000u);
}

TEST(TokenStorm, AllocatesNothingPerMessageInSteadyState) {
  if (!sim::heap_allocations_counted()) GTEST_SKIP() << "allocation counting is off in sanitizer builds";
  // A fixed seed makes the count exact: after the warm-up every ring has reached its size.
  bench::TokenStormResult result = bench::run_token_storm({.nodes = 20, .tokens = 50, .deliveries = 2'000'000, .seed = 1});
  EXPECT_EQ(result.steady_state_allocations, 0u);
}

}  // namespace
