// org.apache.curator.retry.ExponentialBackoffRetry (a SleepingRetry) and RetryPolicy.allowRetry's
// list of retryable codes.
//
//   sleep = base * max(1, R),  R uniform in [0, 2^(retryCount+1) - 1]  (Random.nextInt(1 << (n+1)))
//   capped at maxSleep; a retry is allowed while retryCount < maxRetries (at most 29).
//
// The policy owns its random stream (Java: a `new Random()` per policy), seeded from the
// simulation so a run replays; the sleep itself is taken by the caller (RetryLoop), which is how
// Curator's RetrySleeper works for background operations.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <optional>

#include "model/zk/types.h"
#include "sim/random.h"
#include "sim/time.h"

namespace curator {

class ExponentialBackoffRetry {
 public:
  static constexpr int MAX_RETRIES_LIMIT = 29;
  static constexpr sim::Duration DEFAULT_MAX_SLEEP = std::chrono::milliseconds(std::numeric_limits<std::int32_t>::max());
  static_assert((std::int64_t{1} << (MAX_RETRIES_LIMIT + 1)) <= std::numeric_limits<std::int32_t>::max());

  ExponentialBackoffRetry(sim::Duration baseSleepTime, int maxRetries, sim::Duration maxSleep, std::uint64_t seed);

  // SleepingRetry.allowRetry: the sleep to take before retry number retryCount + 1, or nothing when
  // retryCount has reached maxRetries. retryCount is 0 for the first retry.
  std::optional<sim::Duration> allowRetry(int retryCount);
  // The Hadoop-derived formula above; draws one random number.
  sim::Duration getSleepTimeMs(int retryCount);

  int getN() const { return maxRetries_; }
  sim::Duration getBaseSleepTime() const { return baseSleepTime_; }
  sim::Duration getMaxSleep() const { return maxSleep_; }

  // RetryPolicy.allowRetry(Throwable): only these four codes are retried.
  static constexpr bool isRetryable(zk::Code code) {
    return code == zk::Code::connection_loss || code == zk::Code::operation_timeout || code == zk::Code::session_moved ||
           code == zk::Code::session_expired;
  }

 private:
  sim::Duration baseSleepTime_;
  int maxRetries_;
  sim::Duration maxSleep_;
  sim::Rng random_;
};

}  // namespace curator
