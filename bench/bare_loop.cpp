#include "bench/bare_loop.h"

#include <chrono>
#include <queue>
#include <vector>

#include "sim/random.h"

namespace bench {

BareLoopResult run_bare_loop(std::uint32_t nodes, std::uint32_t tokens, std::uint64_t deliveries, std::uint64_t seed) {
  struct Event {
    std::int64_t at;
    std::uint64_t sequence;
    std::uint32_t target;
    bool operator>(const Event& other) const { return at != other.at ? at > other.at : sequence > other.sequence; }
  };
  constexpr std::int64_t latency = 1'000'000;  // 1 ms, constant, as in the token storm
  std::priority_queue<Event, std::vector<Event>, std::greater<>> queue;
  sim::Rng rng(seed);
  std::uint64_t sequence = 0;
  for (std::uint32_t token = 0; token < tokens; token++) queue.push({latency, sequence++, rng.pick(nodes)});
  std::vector<std::uint64_t> received(nodes, 0);

  auto wall_start = std::chrono::steady_clock::now();
  std::uint64_t done = 0;
  while (done < deliveries) {
    Event event = queue.top();
    queue.pop();
    received[event.target]++;
    done++;
    std::uint32_t next = rng.pick(nodes - 1);
    if (next >= event.target) next++;
    queue.push({event.at + latency, sequence++, next});
  }
  auto wall_end = std::chrono::steady_clock::now();

  BareLoopResult result;
  result.deliveries = done;
  result.wall_seconds = std::chrono::duration<double>(wall_end - wall_start).count();
  result.deliveries_per_second = static_cast<double>(done) / result.wall_seconds;
  for (std::uint64_t count : received) result.checksum = result.checksum * 31 + count;
  return result;
}

}  // namespace bench
