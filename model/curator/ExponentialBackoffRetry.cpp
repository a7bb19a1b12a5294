#include "model/curator/ExponentialBackoffRetry.h"

#include <algorithm>

namespace curator {

ExponentialBackoffRetry::ExponentialBackoffRetry(sim::Duration baseSleepTime, int maxRetries, sim::Duration maxSleep, std::uint64_t seed)
    : baseSleepTime_(baseSleepTime),
      // validateMaxRetries: pinned to 29 (with a warning in Java) so 1 << (n + 1) stays an int.
      maxRetries_(std::min(maxRetries, MAX_RETRIES_LIMIT)),
      maxSleep_(maxSleep),
      random_(seed) {
  ELECTSIM_ASSERT(baseSleepTime >= sim::Duration::zero());
  ELECTSIM_ASSERT(maxRetries >= 0);
  ELECTSIM_ASSERT(maxSleep >= sim::Duration::zero());
}

sim::Duration ExponentialBackoffRetry::getSleepTimeMs(int retryCount) {
  ELECTSIM_ASSERT(retryCount >= 0);
  ELECTSIM_ASSERT(retryCount <= MAX_RETRIES_LIMIT);
  std::int64_t bound = std::int64_t{1} << (retryCount + 1);
  std::int64_t factor = std::max<std::int64_t>(1, random_.uniform(0, bound - 1));
  sim::Duration sleep = baseSleepTime_ * factor;
  // "Sleep extension too large (%d). Pinning to %d"
  return std::min(sleep, maxSleep_);
}

std::optional<sim::Duration> ExponentialBackoffRetry::allowRetry(int retryCount) {
  if (retryCount >= maxRetries_) return std::nullopt;
  return getSleepTimeMs(retryCount);
}

}  // namespace curator
