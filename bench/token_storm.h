// The engine micro-benchmark: N nodes in a full mesh of connections, K tokens; every delivered token
// is forwarded to a pseudo-random other node after a constant latency, until M deliveries. It runs
// on the engine paths the models use (a coroutine per connection blocked in receive(), Socket::send
// through the network's FIFO links and the event queue), not on a bypass.
#pragma once

#include <cstdint>

namespace bench {

struct TokenStormConfig {
  std::uint32_t nodes = 100;
  std::uint32_t tokens = 100;
  std::uint64_t deliveries = 10'000'000;
  std::uint64_t seed = 1;
};

struct TokenStormResult {
  std::uint64_t deliveries = 0;
  std::uint64_t events = 0;
  double wall_seconds = 0;
  double deliveries_per_second = 0;
  std::uint64_t trace_hash = 0;
  // Heap allocations on the simulating thread during the measured (steady-state) phase.
  std::uint64_t steady_state_allocations = 0;
};

TokenStormResult run_token_storm(const TokenStormConfig& config);

}  // namespace bench
