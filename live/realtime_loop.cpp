#include "live/realtime_loop.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

namespace live {

namespace {
using Clock = std::chrono::steady_clock;
// The longest the loop sleeps without looking at stop(): a signal handler cannot notify a condition.
constexpr auto stop_poll = std::chrono::milliseconds(50);
}  // namespace

void RealTimeLoop::post(sim::NodeId node, std::function<void()> action) {
  {
    std::lock_guard lock(mutex_);
    if (inbox_.size() >= inbox_max) {
      std::fputs("electsim: live mode: the real-time loop's inbox is full (the loop is stuck)\n", stderr);
      std::abort();  // the JVMs die with us (PR_SET_PDEATHSIG, child_process.h)
    }
    inbox_.push_back(Posted{node, std::move(action)});
  }
  arrived_.notify_one();
}

void RealTimeLoop::drain() {
  std::deque<Posted> ready;
  {
    std::lock_guard lock(mutex_);
    ready.swap(inbox_);
  }
  for (Posted& posted : ready) {
    // A callback of its node: deferred while the node is paused, dropped once it has crashed.
    sim_.schedule_callback(sim_.now(), posted.node, std::move(posted.action));
  }
}

void RealTimeLoop::run_until(sim::Instant end) {
  // Virtual instant sim.now() is real time `origin + (now - epoch)`.
  const Clock::time_point origin = Clock::now() - std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(sim_.now() - sim::epoch));
  auto wall_of = [origin](sim::Instant at) { return origin + std::chrono::duration_cast<Clock::duration>(std::chrono::nanoseconds(at - sim::epoch)); };
  while (!stop_.load()) {
    drain();
    sim::Instant real_now = sim::epoch + sim::Duration{std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - origin).count()};
    sim::Instant target = std::min(real_now, end);
    if (target > sim_.now()) {
      sim_.run_until(target);
    } else {
      sim_.run_until(sim_.now());  // what drain() scheduled at this instant
    }
    // A sink asked the run to stop (the trace reached --max-trace-size): it ends here, as a simulated one does.
    if (sim_.now() >= end || sim_.stop_requested()) return;
    // Sleep until the next event is due, something is posted, or the stop poll.
    Clock::time_point wake = std::min(wall_of(end), Clock::now() + stop_poll);
    if (std::optional<sim::Instant> next = sim_.next_event_time()) wake = std::min(wake, wall_of(std::max(*next, sim_.now())));
    std::unique_lock lock(mutex_);
    arrived_.wait_until(lock, wake, [this] { return !inbox_.empty() || stop_.load(); });
  }
}

}  // namespace live
