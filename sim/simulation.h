// The simulation: virtual clock, one event queue, node registry, and the loop that runs them.
//
// Events are ordered by (time, insertion sequence) and nothing else: ties are broken by the order of
// scheduling, never by pointer values or hash order. An event either resumes a coroutine (a timer or
// a wake-up), runs a harness callback (a fault), or is handed to a registered handler (the network's
// message deliveries). Events aimed at a paused node wait in that node's deferred list and fire, in
// their original order, when it resumes; events of a crashed node's coroutines are cancelled when the
// coroutines' frames are destroyed (their awaiters cancel their tokens).
#pragma once

#include <coroutine>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/assert.h"
#include "sim/event_queue.h"
#include "sim/random.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace sim {

class Network;
class Node;

using NodeId = std::uint32_t;
inline constexpr NodeId no_node = UINT32_MAX;

// Identifies one scheduled event so it can be cancelled. Cancelling a token whose event already fired
// (or was cancelled) does nothing: slots carry a generation that changes each time they are reused.
struct EventToken {
  std::uint32_t slot = UINT32_MAX;
  std::uint32_t generation = 0;
  bool valid() const { return slot != UINT32_MAX; }
};

// Receives the events of one kind (for example the network's deliveries). `target` and `generation`
// are whatever the handler passed to schedule_handler; the handler checks them itself.
class EventHandler {
 public:
  virtual void handle_event(std::uint32_t target, std::uint32_t generation) = 0;

 protected:
  ~EventHandler() = default;
};

// A limit on everything a run can grow (TIGER_STYLE): hitting one throws LimitExceeded naming it,
// and the harness reports it (model-sanity in explore; exit status 2 from `electsim run`). The
// defaults sit far above any real scenario and well below what would exhaust a machine.
struct SimulationLimits {
  std::uint64_t max_events = 2'000'000'000;  // events processed in one run
  std::uint32_t max_nodes = 10'000;          // a scenario has at most 15 + 100 + 100 + 25; the token storm 10000
  std::uint32_t max_pending_events = 10'000'000;  // events in the queue at once (24 bytes each)
  // Heap memory the run may grow by, measured as frame_pool.h's memory_in_use_bytes() against its
  // figure when the simulation was made, every memory_check_interval events. 0: no budget.
  std::uint64_t max_memory_bytes = std::uint64_t{2048} << 20;
};
inline constexpr std::uint32_t memory_check_interval = 1024;

// Raised when a run hits one of its limits; the harness reports it with the limit's name.
class LimitExceeded : public std::runtime_error {
 public:
  LimitExceeded(std::string limit, const std::string& message) : std::runtime_error(message), limit_(std::move(limit)) {}
  const std::string& limit() const { return limit_; }

 private:
  std::string limit_;
};

// Told when a node is paused or resumed (live mode silences the real connections of a paused node).
class PauseObserver {
 public:
  virtual void node_paused(NodeId node, bool paused) = 0;

 protected:
  ~PauseObserver() = default;
};

class Simulation {
 public:
  explicit Simulation(std::uint64_t seed, SimulationLimits limits = {});
  ~Simulation();
  Simulation(const Simulation&) = delete;
  Simulation& operator=(const Simulation&) = delete;

  Instant now() const { return now_; }
  std::uint64_t seed() const { return random_.root_seed(); }
  const RandomStreams& random() const { return random_; }
  Trace& trace() { return trace_; }
  Network& network() { return *network_; }
  const SimulationLimits& limits() const { return limits_; }

  // ---- nodes ----
  template <class N, class... Args>
  N& add_node(Args&&... args) {
    auto node = std::make_unique<N>(*this, std::forward<Args>(args)...);
    N& reference = *node;
    adopt_node(std::move(node));
    return reference;
  }
  Node& node(NodeId id);
  const Node& node(NodeId id) const;
  std::uint32_t node_count() const { return static_cast<std::uint32_t>(nodes_.size()); }
  // The node whose coroutine is running (no_node for harness callbacks and network handlers).
  NodeId current_node() const { return current_node_; }
  bool node_paused(NodeId id) const { return id != no_node && runtime_[id].paused; }
  std::uint32_t node_incarnation(NodeId id) const { return runtime_[id].incarnation; }

  // ---- scheduling ----
  [[nodiscard]] EventToken schedule_resume(Instant at, std::coroutine_handle<> handle, NodeId node);
  void cancel(EventToken& token) {
    if (token.valid()) cancel_slow(token);
  }
  // A harness-level action (a fault, a workload step). With a node, it is deferred while the node is
  // paused and dropped if the node has crashed or restarted since.
  EventToken schedule_callback(Instant at, NodeId node, std::function<void()> callback);
  // Urgent events run before anything else due now, in the order they were made: a fault that a
  // trigger aims at a protocol step (harness/triggers.h) lands there, and the coroutine held at that
  // step (sim/site.h) goes on right after it, before any other event of the instant. Tokens cancel
  // them as they cancel ordinary events (a crash destroys the held frame, whose awaiter cancels).
  EventToken schedule_urgent_callback(std::function<void()> callback);
  [[nodiscard]] EventToken schedule_urgent_resume(std::coroutine_handle<> handle, NodeId node);
  std::uint8_t register_handler(EventHandler* handler);
  [[gnu::always_inline]] void schedule_handler(Instant at, std::uint8_t kind, std::uint32_t target, std::uint32_t generation) {
    ELECTSIM_ASSERT(at >= now_);
    ELECTSIM_ASSERT(kind >= static_cast<std::uint8_t>(EventKind::first_handler));
    push(Event{nanos(at), next_key(kind), target, generation});
  }
  // Resumes a coroutine now, from a top-level event handler (never from inside a coroutine).
  void resume_from_handler(std::coroutine_handle<> handle, NodeId node) {
    ELECTSIM_ASSERT(!node_paused(node));
    NodeId outer = current_node_;
    current_node_ = node;
    handle.resume();
    current_node_ = outer;
  }

  // co_await sim.sleep(200ms)
  class SleepAwaiter;
  SleepAwaiter sleep(Duration duration);
  SleepAwaiter sleep_until(Instant deadline);

  // ---- running ----
  // Runs every event up to and including `end`, then sets the clock to `end` (unless stopped early).
  void run_until(Instant end);
  void run_for(Duration duration) { run_until(now_ + duration); }
  // Runs one event; false when the queue is empty.
  bool step();
  // When the next queued event is due (live mode's real-time loop sleeps until then).
  std::optional<Instant> next_event_time() const {
    if (queue_.empty()) return std::nullopt;
    return Instant{Duration{queue_.top_time()}};
  }
  // At most one observer; null removes it. Not owned.
  void set_pause_observer(PauseObserver* observer) { pause_observer_ = observer; }
  void request_stop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }
  std::uint64_t events_processed() const { return events_processed_; }
  std::size_t pending_events() const { return queue_.size(); }

  // A coroutine of `node` failed (an assertion, an unexpected exception): the run stops and
  // run_until rethrows it. The first failure wins.
  void report_failure(std::exception_ptr error, NodeId node);
  std::exception_ptr failure() const { return failure_; }
  NodeId failure_node() const { return failure_node_; }

  // ---- used by Node ----
  void set_paused(NodeId id, bool paused);
  void node_stopped(NodeId id);  // a crash or power-off: deferred events dropped, incarnation bumped
  bool tearing_down() const { return tearing_down_; }

 private:
  enum class EventKind : std::uint8_t { resume = 0, callback = 1, first_handler = 2 };
  // 24 bytes. The kind rides in the low byte of the ordering key: sequences are unique, so
  // (sequence << 8 | kind) orders exactly as the sequence does.
  struct Event {
    std::int64_t at;
    std::uint64_t key;  // sequence << 8 | kind
    std::uint32_t target;
    std::uint32_t generation;
    std::uint8_t kind() const { return static_cast<std::uint8_t>(key & 0xff); }
  };
  static_assert(sizeof(Event) == 24);
  // A slot knows where its event sits in the queue (`queued`), so cancelling removes it at once;
  // no_queue while the event is deferred by a pause or already popped.
  static constexpr std::uint32_t no_queue = UINT32_MAX;
  struct ResumeSlot {
    std::coroutine_handle<> handle;
    NodeId node = no_node;
    std::uint32_t generation = 0;
    std::uint32_t next_free = UINT32_MAX;
    std::uint32_t queued = no_queue;
  };
  struct CallbackSlot {
    std::function<void()> callback;
    NodeId node = no_node;
    std::uint32_t incarnation = 0;
    std::uint32_t generation = 0;
    std::uint32_t next_free = UINT32_MAX;
    std::uint32_t queued = no_queue;
  };
  struct NodeRuntime {
    bool paused = false;
    std::uint32_t incarnation = 0;
    std::vector<Event> deferred;  // events that came due while paused, in firing order
  };

  void adopt_node(std::unique_ptr<Node> node);
  std::uint64_t next_key(std::uint8_t kind) { return (next_sequence_++ << 8) | kind; }
  std::uint32_t push(Event event) {
    if (queue_.size() >= limits_.max_pending_events) [[unlikely]] queue_full();
    return queue_.push(event);
  }
  void release_callback_slot(std::uint32_t slot);
  void queue_full();
  void check_memory();
  void cancel_slow(EventToken& token);
  void dispatch(const Event& event);
  // Runs every urgent event, oldest first (those they make included).
  void run_urgent();
  void dispatch_resume(const Event& event);
  void dispatch_callback(const Event& event);
  std::uint32_t allocate_resume_slot();
  std::uint32_t allocate_callback_slot();

  RandomStreams random_;
  SimulationLimits limits_;
  Instant now_ = epoch;
  std::uint64_t next_sequence_ = 0;
  std::uint64_t events_processed_ = 0;
  std::int64_t memory_baseline_ = 0;  // memory_in_use_bytes() when the simulation was made
  std::uint32_t memory_check_countdown_ = memory_check_interval;
  EventQueue<Event> queue_;  // ordered by (time, insertion sequence)
  std::vector<Event> urgent_;  // due now, before queue_'s events (schedule_urgent_*); rare
  std::vector<ResumeSlot> resume_slots_;
  std::uint32_t free_resume_slot_ = UINT32_MAX;
  std::vector<CallbackSlot> callback_slots_;
  std::uint32_t free_callback_slot_ = UINT32_MAX;
  std::vector<EventHandler*> handlers_;
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<NodeRuntime> runtime_;
  NodeId current_node_ = no_node;
  bool stop_requested_ = false;
  PauseObserver* pause_observer_ = nullptr;
  bool tearing_down_ = false;
  std::exception_ptr failure_;
  NodeId failure_node_ = no_node;
  Trace trace_;
  std::unique_ptr<Network> network_;
};

class Simulation::SleepAwaiter {
 public:
  SleepAwaiter(Simulation& sim, Instant deadline) : sim_(sim), deadline_(deadline) {}
  SleepAwaiter(const SleepAwaiter&) = delete;
  ~SleepAwaiter() { sim_.cancel(token_); }
  bool await_ready() const noexcept { return deadline_ <= sim_.now(); }
  void await_suspend(std::coroutine_handle<> handle) {
    token_ = sim_.schedule_resume(deadline_, handle, sim_.current_node());
  }
  void await_resume() noexcept { token_ = {}; }

 private:
  Simulation& sim_;
  Instant deadline_;
  EventToken token_;
};

inline Simulation::SleepAwaiter Simulation::sleep(Duration duration) {
  ELECTSIM_ASSERT(duration >= Duration::zero());
  return SleepAwaiter(*this, now_ + duration);
}
inline Simulation::SleepAwaiter Simulation::sleep_until(Instant deadline) { return SleepAwaiter(*this, deadline); }

}  // namespace sim
