// Seeded random streams. One root seed is split into independent named streams (network, faults,
// workload, one per node...), so adding a fault never perturbs the draws of the network.
//
// Generators and distributions are Boost.Random's: their output is specified by Boost, not by the
// standard library in use, so a seed replays the same on every platform.
#pragma once

#include <boost/random/mersenne_twister.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <boost/random/uniform_smallint.hpp>
#include <boost/random/taus88.hpp>
#include <cstdint>
#include <string_view>

#include "sim/assert.h"
#include "sim/time.h"

namespace sim {

// FNV-1a over bytes, then SplitMix64's finaliser: a stable, portable way to turn names into seeds.
// Inline: the models' txn digests call both for every commit on every server.
inline std::uint64_t stable_hash(std::string_view text, std::uint64_t basis = 0xcbf29ce484222325ULL) {
  std::uint64_t hash = basis;
  for (char c : text) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}
inline std::uint64_t mix64(std::uint64_t value) {
  value += 0x9e3779b97f4a7c15ULL;
  value = (value ^ (value >> 30)) * 0xbf58476d1ce4e5b9ULL;
  value = (value ^ (value >> 27)) * 0x94d049bb133111ebULL;
  return value ^ (value >> 31);
}
std::uint64_t derive_seed(std::uint64_t parent, std::string_view name);
std::uint64_t derive_seed(std::uint64_t parent, std::uint64_t index);

// A stream for model-level randomness: Mersenne twister, 2.5 KB of state, created rarely.
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : engine_(seed) {}

  std::uint64_t next_u64() { return engine_(); }
  // Uniform in [low, high], both included.
  std::int64_t uniform(std::int64_t low, std::int64_t high) {
    ELECTSIM_ASSERT(low <= high);
    if (low == high) return low;
    return boost::random::uniform_int_distribution<std::int64_t>(low, high)(engine_);
  }
  Duration uniform(Duration low, Duration high) { return Duration{uniform(low.count(), high.count())}; }
  // An index in [0, count), for picking among a few options (a peer, a fault kind). Boost's
  // uniform_smallint: one modulo, with a bias below count/2^64, which no run can notice.
  std::uint32_t pick(std::uint32_t count) {
    ELECTSIM_ASSERT(count > 0);
    return boost::random::uniform_smallint<std::uint32_t>(0, count - 1)(engine_);
  }
  // True with probability numerator/denominator.
  bool chance(std::uint32_t numerator, std::uint32_t denominator);
  // Uniform double in [0, 1): only for choosing among options, never for time.
  double unit();

  boost::random::mt19937_64& engine() { return engine_; }

 private:
  boost::random::mt19937_64 engine_;
};

// A stream with 12 bytes of state (L'Ecuyer's Tausworthe generator), for places that need many
// streams: one per network connection direction.
class SmallRng {
 public:
  explicit SmallRng(std::uint64_t seed);
  std::int64_t uniform(std::int64_t low, std::int64_t high) {
    ELECTSIM_ASSERT(low <= high);
    if (low == high) return low;  // constant latency: no draw at all
    return boost::random::uniform_int_distribution<std::int64_t>(low, high)(engine_);
  }

  // uniform(low, high) for a range drawn many times (every message's latency), with Boost's
  // per-call set-up done once: the same draws, the same values. For a range narrower than the
  // engine's, Boost's generate_uniform_int divides the engine's range into equal buckets and
  // rejects a draw past the last whole one; the bucket size is all it computes per call.
  class Uniform {
   public:
    Uniform(std::int64_t low, std::int64_t high);

   private:
    friend class SmallRng;
    std::int64_t low_;
    std::int64_t high_;
    std::uint32_t range_ = 0;
    std::uint32_t bucket_size_ = 0;  // 0: not the narrow case; Boost's call does it all
  };
  std::int64_t uniform(const Uniform& draw) {
    if (draw.low_ == draw.high_) return draw.low_;
    if (draw.bucket_size_ == 0) return uniform(draw.low_, draw.high_);
    while (true) {
      std::uint32_t bucket = static_cast<std::uint32_t>(engine_() - (engine_.min)()) / draw.bucket_size_;
      if (bucket <= draw.range_) return static_cast<std::int64_t>(bucket) + draw.low_;
    }
  }

 private:
  boost::random::taus88 engine_;
};

class RandomStreams {
 public:
  explicit RandomStreams(std::uint64_t root_seed) : root_seed_(root_seed) {}
  std::uint64_t root_seed() const { return root_seed_; }
  std::uint64_t seed_for(std::string_view name) const { return derive_seed(root_seed_, name); }
  Rng stream(std::string_view name) const { return Rng(seed_for(name)); }

 private:
  std::uint64_t root_seed_;
};

}  // namespace sim
