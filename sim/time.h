// Virtual time: integer nanoseconds, never floating point, never the wall clock.
//
// Duration is std::chrono::nanoseconds (a strong type with integer ticks), so the standard literals
// work unchanged: `co_await sim.sleep(200ms)`. Instant is a time point on SimClock, a clock that has
// no now(): only the Simulation knows what time it is.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace sim {

using namespace std::chrono_literals;

using Duration = std::chrono::nanoseconds;

struct SimClock {
  using rep = std::int64_t;
  using period = std::nano;
  using duration = Duration;
  using time_point = std::chrono::time_point<SimClock, Duration>;
  static constexpr bool is_steady = true;
  // Deliberately no now(): time inside a simulation is Simulation::now().
};

using Instant = SimClock::time_point;

constexpr Instant epoch{};
constexpr Instant instant_max = Instant{Duration{INT64_MAX}};

static_assert(sizeof(Duration) == 8);
static_assert(std::is_integral_v<Duration::rep>);

constexpr std::int64_t nanos(Duration d) { return d.count(); }
constexpr std::int64_t nanos(Instant t) { return t.time_since_epoch().count(); }
constexpr std::int64_t millis(Duration d) { return std::chrono::duration_cast<std::chrono::milliseconds>(d).count(); }

// "31.204s", "200ms", "1.5us": shortest exact decimal in the largest unit that keeps it readable.
std::string format_duration(Duration d);
inline std::string format_instant(Instant t) { return format_duration(t.time_since_epoch()); }

// Parses "200ms", "6s", "1m", "1h", "500us", "10ns", "1.5s" (a decimal fraction is allowed when it is
// a whole number of nanoseconds). Returns nullopt on anything else, including negative values.
std::optional<Duration> parse_duration(std::string_view text);

}  // namespace sim
