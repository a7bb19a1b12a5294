// RealTimeLoop: runs a simulation in real time, so that the model's recipes (Curator, ElasticJob)
// can drive a real ZooKeeper ensemble through the C client (docs/live-mode.md).
//
// The simulation's clock follows the wall clock from the moment run_until starts: an event due at
// virtual instant t runs when t of real time has passed. Other threads (the C client's completion
// thread) never touch the simulation: post() queues an action, and the loop's thread schedules it
// as a callback of its node at the current instant, so a paused node's completions wait for its
// resume and a crashed node's are dropped, exactly as the engine treats simulated deliveries.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>

#include "sim/simulation.h"

namespace live {

class RealTimeLoop {
 public:
  static constexpr std::size_t inbox_max = 1'000'000;  // actions waiting for the loop at once

  explicit RealTimeLoop(sim::Simulation& sim) : sim_(sim) {}
  RealTimeLoop(const RealTimeLoop&) = delete;
  RealTimeLoop& operator=(const RealTimeLoop&) = delete;

  // Any thread: runs `action` on the loop's thread as a callback of `node` (sim::no_node: the harness).
  // Past inbox_max waiting actions the loop is stuck: electsim stops with a message (the caller is
  // the C client's thread, where an exception cannot go).
  void post(sim::NodeId node, std::function<void()> action);
  // The loop's thread: runs the simulation until virtual `end` has passed in real time, or stop().
  void run_until(sim::Instant end);
  // Any thread, also a signal handler (only an atomic store): run_until returns within 50 ms.
  void stop() { stop_.store(true); }
  bool stopped() const { return stop_.load(); }

 private:
  struct Posted {
    sim::NodeId node;
    std::function<void()> action;
  };
  void drain();

  sim::Simulation& sim_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Posted> inbox_;
  std::atomic<bool> stop_{false};
};

}  // namespace live
