#include "sim/random.h"

#include <boost/random/bernoulli_distribution.hpp>
#include <boost/random/uniform_01.hpp>
#include <boost/random/uniform_int_distribution.hpp>

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

}  // namespace sim
