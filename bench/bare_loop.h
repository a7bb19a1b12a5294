// The peer the token storm is measured against: a bare binary-heap event loop with no coroutines, no
// connections and no network, only (time, sequence, target) events and a random next target. What
// the engine costs on top of this is the price of writing models as coroutines over sockets.
#pragma once

#include <cstdint>

namespace bench {

struct BareLoopResult {
  std::uint64_t deliveries = 0;
  double wall_seconds = 0;
  double deliveries_per_second = 0;
  std::uint64_t checksum = 0;
};

BareLoopResult run_bare_loop(std::uint32_t nodes, std::uint32_t tokens, std::uint64_t deliveries, std::uint64_t seed);

}  // namespace bench
