#include "sim/random.h"

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>
#include <type_traits>

#include "sim/assert.h"

namespace sim {

std::uint64_t derive_seed(std::uint64_t parent, std::string_view name) {
  return mix64(stable_hash(name, mix64(parent)));
}

std::uint64_t derive_seed(std::uint64_t parent, std::uint64_t index) {
  return mix64(mix64(parent) ^ mix64(index + 0x632be59bd9b4e019ULL));
}

bool Rng::chance(std::uint32_t numerator, std::uint32_t denominator) {
  ELECTSIM_ASSERT(denominator > 0);
  ELECTSIM_ASSERT(numerator <= denominator);
  return boost::random::uniform_int_distribution<std::uint32_t>(0, denominator - 1)(engine_) < numerator;
}

double Rng::unit() { return boost::random::uniform_01<double>()(engine_); }

SmallRng::SmallRng(std::uint64_t seed) {
  // taus88 needs seeds above small thresholds in each component; Boost's seed(seq) handles that when
  // given enough entropy, so feed it three derived words.
  std::uint32_t words[3] = {static_cast<std::uint32_t>(mix64(seed) | 0x80u), static_cast<std::uint32_t>(mix64(seed + 1) | 0x80u),
                            static_cast<std::uint32_t>(mix64(seed + 2) | 0x80u)};
  std::uint32_t* first = words;
  engine_.seed(first, words + 3);
}

SmallRng::Uniform::Uniform(std::int64_t low, std::int64_t high) : low_(low), high_(high) {
  ELECTSIM_ASSERT(low <= high);
  using Engine = boost::random::taus88;
  static_assert(std::is_same_v<Engine::result_type, std::uint32_t>);
  // generate_uniform_int's "brange > range" case, for a non-negative low (its add() is then a
  // plain sum); anything else is left to Boost's call.
  const std::uint32_t brange = (Engine::max)() - (Engine::min)();
  const auto range = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
  if (low < 0 || range == 0 || range >= brange) return;
  range_ = static_cast<std::uint32_t>(range);
  if (brange == UINT32_MAX) {
    bucket_size_ = brange / (range_ + 1);
    if (brange % (range_ + 1) == range_) ++bucket_size_;
  } else {
    bucket_size_ = (brange + 1) / (range_ + 1);
  }
  ELECTSIM_ASSERT(bucket_size_ > 0);
}

}  // namespace sim
