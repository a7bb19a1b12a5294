#include "sim/simulation.h"

#include <algorithm>

#include "sim/frame_pool.h"
#include "sim/network.h"
#include "sim/node.h"

namespace sim {

namespace {

// Whole MiB as such, anything else in tenths of a MiB rounded up ("grew by 1 MiB, more than its
// budget of 1 MiB" would read as a contradiction), and under a tenth in bytes.
std::string memory_text(std::uint64_t bytes) {
  constexpr std::uint64_t mebibyte = std::uint64_t{1} << 20;
  if (bytes % mebibyte == 0) return std::to_string(bytes / mebibyte) + " MiB";
  if (bytes < mebibyte / 10) return std::to_string(bytes) + " bytes";
  std::uint64_t tenths = (bytes * 10 + mebibyte - 1) / mebibyte;
  return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + " MiB";
}

}  // namespace

Simulation::Simulation(std::uint64_t seed, SimulationLimits limits)
    : random_(seed), limits_(limits), memory_baseline_(memory_in_use_bytes()), trace_(*this), network_(std::make_unique<Network>(*this)) {
  resume_slots_.reserve(1024);
}

Simulation::~Simulation() {
  // Tear every node down before the network and the queue go away: destroying a frame may close a
  // socket, which must find the network still there (and schedules nothing while tearing down).
  tearing_down_ = true;
  for (auto& node : nodes_) node->processes_.reset();
  nodes_.clear();
  network_.reset();
}

void Simulation::adopt_node(std::unique_ptr<Node> node) {
  if (nodes_.size() >= limits_.max_nodes) {
    throw LimitExceeded("max-nodes", "the simulation has more than " + std::to_string(limits_.max_nodes) + " nodes");
  }
  ELECTSIM_ASSERT(node->id() == nodes_.size());
  nodes_.push_back(std::move(node));
  runtime_.emplace_back();
  network_->node_added(static_cast<NodeId>(nodes_.size() - 1));
}

Node& Simulation::node(NodeId id) {
  ELECTSIM_ASSERT(id < nodes_.size());
  return *nodes_[id];
}

const Node& Simulation::node(NodeId id) const {
  ELECTSIM_ASSERT(id < nodes_.size());
  return *nodes_[id];
}

void Simulation::queue_full() {
  throw LimitExceeded("max-pending-events", "more than " + std::to_string(limits_.max_pending_events) + " events pending at once");
}

void Simulation::check_memory() {
  memory_check_countdown_ = memory_check_interval;
  if (limits_.max_memory_bytes == 0) return;
  std::int64_t grown = memory_in_use_bytes() - memory_baseline_;
  if (grown <= 0 || static_cast<std::uint64_t>(grown) <= limits_.max_memory_bytes) return;
  throw LimitExceeded("max-memory", "the run grew its heap by " + memory_text(static_cast<std::uint64_t>(grown)) +
                                        ", more than its budget of " + memory_text(limits_.max_memory_bytes));
}

std::uint32_t Simulation::allocate_resume_slot() {
  if (free_resume_slot_ != UINT32_MAX) {
    std::uint32_t slot = free_resume_slot_;
    free_resume_slot_ = resume_slots_[slot].next_free;
    return slot;
  }
  resume_slots_.emplace_back();
  return static_cast<std::uint32_t>(resume_slots_.size() - 1);
}

std::uint32_t Simulation::allocate_callback_slot() {
  if (free_callback_slot_ != UINT32_MAX) {
    std::uint32_t slot = free_callback_slot_;
    free_callback_slot_ = callback_slots_[slot].next_free;
    return slot;
  }
  callback_slots_.emplace_back();
  return static_cast<std::uint32_t>(callback_slots_.size() - 1);
}

EventToken Simulation::schedule_resume(Instant at, std::coroutine_handle<> handle, NodeId node) {
  ELECTSIM_ASSERT(handle);
  ELECTSIM_ASSERT(at >= now_);
  std::uint32_t slot = allocate_resume_slot();
  ResumeSlot& entry = resume_slots_[slot];
  entry.handle = handle;
  entry.node = node;
  entry.queued = push(Event{nanos(at), next_key(static_cast<std::uint8_t>(EventKind::resume)), slot, entry.generation});
  return EventToken{slot, entry.generation};
}

void Simulation::release_callback_slot(std::uint32_t slot) {
  CallbackSlot& entry = callback_slots_[slot];
  entry.generation++;
  entry.callback = nullptr;
  entry.next_free = free_callback_slot_;
  free_callback_slot_ = slot;
}

void Simulation::cancel_slow(EventToken& token) {
  // Callback tokens carry the top bit; the rest are resume slots.
  if (token.slot & 0x80000000u) {
    std::uint32_t slot = token.slot & 0x7fffffffu;
    CallbackSlot& entry = callback_slots_[slot];
    if (entry.generation == token.generation) {
      if (entry.queued != no_queue) queue_.erase(entry.queued);
      entry.queued = no_queue;
      entry.generation++;
      entry.callback = nullptr;
      entry.next_free = free_callback_slot_;
      free_callback_slot_ = slot;
    }
  } else {
    ResumeSlot& entry = resume_slots_[token.slot];
    if (entry.generation == token.generation) {
      if (entry.queued != no_queue) queue_.erase(entry.queued);
      entry.queued = no_queue;
      entry.generation++;
      entry.handle = {};
      entry.next_free = free_resume_slot_;
      free_resume_slot_ = token.slot;
    }
  }
  token = {};
}

EventToken Simulation::schedule_callback(Instant at, NodeId node, std::function<void()> callback) {
  ELECTSIM_ASSERT(at >= now_);
  ELECTSIM_ASSERT(callback);
  std::uint32_t slot = allocate_callback_slot();
  ELECTSIM_ASSERT(slot < 0x80000000u);
  CallbackSlot& entry = callback_slots_[slot];
  entry.callback = std::move(callback);
  entry.node = node;
  entry.incarnation = node == no_node ? 0 : runtime_[node].incarnation;
  entry.queued = push(Event{nanos(at), next_key(static_cast<std::uint8_t>(EventKind::callback)), slot, entry.generation});
  return EventToken{slot | 0x80000000u, entry.generation};
}

EventToken Simulation::schedule_urgent_callback(std::function<void()> callback) {
  ELECTSIM_ASSERT(callback);
  std::uint32_t slot = allocate_callback_slot();
  ELECTSIM_ASSERT(slot < 0x80000000u);
  CallbackSlot& entry = callback_slots_[slot];
  entry.callback = std::move(callback);
  entry.node = no_node;
  entry.incarnation = 0;
  entry.queued = no_queue;  // not in queue_: cancelling only moves the slot's generation on
  urgent_.push_back(Event{nanos(now_), next_key(static_cast<std::uint8_t>(EventKind::callback)), slot, entry.generation});
  return EventToken{slot | 0x80000000u, entry.generation};
}

EventToken Simulation::schedule_urgent_resume(std::coroutine_handle<> handle, NodeId node) {
  ELECTSIM_ASSERT(handle);
  ELECTSIM_ASSERT(node != no_node);
  std::uint32_t slot = allocate_resume_slot();
  ResumeSlot& entry = resume_slots_[slot];
  entry.handle = handle;
  entry.node = node;
  entry.queued = no_queue;
  urgent_.push_back(Event{nanos(now_), next_key(static_cast<std::uint8_t>(EventKind::resume)), slot, entry.generation});
  return EventToken{slot, entry.generation};
}

void Simulation::run_urgent() {
  // FIFO, and what an urgent event schedules urgently runs in this same drain, after it.
  // A stop leaves the rest queued for the next run_until.
  std::size_t next = 0;
  while (next < urgent_.size() && !stop_requested_) {
    Event event = urgent_[next++];
    ELECTSIM_ASSERT(event.at == nanos(now_));
    bool resume = event.kind() == static_cast<std::uint8_t>(EventKind::resume);
    std::uint32_t generation = resume ? resume_slots_[event.target].generation : callback_slots_[event.target].generation;
    if (generation != event.generation) continue;  // cancelled (a held frame destroyed by its crash)
    dispatch(event);
  }
  urgent_.erase(urgent_.begin(), urgent_.begin() + static_cast<std::ptrdiff_t>(next));
}

std::uint8_t Simulation::register_handler(EventHandler* handler) {
  ELECTSIM_ASSERT(handler != nullptr);
  ELECTSIM_ASSERT(handlers_.size() < 200);
  handlers_.push_back(handler);
  return static_cast<std::uint8_t>(static_cast<std::size_t>(EventKind::first_handler) + handlers_.size() - 1);
}

bool Simulation::step() {
  if (!urgent_.empty()) {
    run_urgent();
    return true;
  }
  while (!queue_.empty()) {
    Event event = queue_.pop();
    ELECTSIM_ASSERT(event.at >= nanos(now_));
    now_ = Instant{Duration{event.at}};
    dispatch(event);
    return true;
  }
  return false;
}

void Simulation::run_until(Instant end) {
  stop_requested_ = false;
  Event event;
  while (!stop_requested_) {
    if (!urgent_.empty()) [[unlikely]] {
      run_urgent();
      continue;
    }
    // The limits are checked before an event leaves the queue, and only when one is due: a limit
    // that stops the run leaves the queue whole for the teardown that cancels what is pending.
    bool check = events_processed_ >= limits_.max_events || memory_check_countdown_ == 1;
    if (check) [[unlikely]] {
      if (queue_.empty() || queue_.top_time() > nanos(end)) break;
      if (events_processed_ >= limits_.max_events) {
        throw LimitExceeded("max-events", "the run reached its limit of " + std::to_string(limits_.max_events) + " events");
      }
      check_memory();  // every memory_check_interval events
    }
    if (!queue_.pop_if_not_after(nanos(end), event)) break;
    if (!check) memory_check_countdown_--;
    now_ = Instant{Duration{event.at}};
    dispatch(event);
  }
  if (failure_) std::rethrow_exception(failure_);
  if (!stop_requested_ && end > now_) now_ = end;
}

void Simulation::dispatch(const Event& event) {
  switch (event.kind()) {
    case static_cast<std::uint8_t>(EventKind::resume): dispatch_resume(event); return;
    case static_cast<std::uint8_t>(EventKind::callback): dispatch_callback(event); return;
    default: {
      events_processed_++;
      std::size_t index = event.kind() - static_cast<std::size_t>(EventKind::first_handler);
      ELECTSIM_ASSERT(index < handlers_.size());
      current_node_ = no_node;
      handlers_[index]->handle_event(event.target, event.generation);
      return;
    }
  }
}

void Simulation::dispatch_resume(const Event& event) {
  ResumeSlot& entry = resume_slots_[event.target];
  ELECTSIM_ASSERT_MSG(entry.generation == event.generation, "a cancelled event stayed queued");
  entry.queued = no_queue;
  if (runtime_[entry.node].paused) {
    runtime_[entry.node].deferred.push_back(event);
    return;
  }
  events_processed_++;
  std::coroutine_handle<> handle = entry.handle;
  NodeId node = entry.node;
  entry.generation++;
  entry.handle = {};
  entry.next_free = free_resume_slot_;
  free_resume_slot_ = event.target;
  current_node_ = node;
  handle.resume();
  current_node_ = no_node;
}

void Simulation::dispatch_callback(const Event& event) {
  CallbackSlot& entry = callback_slots_[event.target];
  ELECTSIM_ASSERT_MSG(entry.generation == event.generation, "a cancelled event stayed queued");
  entry.queued = no_queue;
  if (entry.node != no_node) {
    if (runtime_[entry.node].incarnation != entry.incarnation) {
      // The node crashed or restarted since: the action belonged to a process that is gone.
      release_callback_slot(event.target);
      return;
    }
    if (runtime_[entry.node].paused) {
      runtime_[entry.node].deferred.push_back(event);
      return;
    }
  }
  events_processed_++;
  std::function<void()> callback = std::move(entry.callback);
  NodeId node = entry.node;
  release_callback_slot(event.target);
  current_node_ = node;
  callback();
  current_node_ = no_node;
}

void Simulation::set_paused(NodeId id, bool paused) {
  NodeRuntime& runtime = runtime_[id];
  if (runtime.paused == paused) return;
  runtime.paused = paused;
  if (pause_observer_ != nullptr) pause_observer_->node_paused(id, paused);
  if (paused) return;
  // Everything that came due during the pause fires now, in its original order.
  std::vector<Event> deferred = std::move(runtime.deferred);
  runtime.deferred.clear();
  for (Event event : deferred) {
    // A deferred event may have been cancelled during the pause (its slot moved on): drop it.
    bool resume = event.kind() == static_cast<std::uint8_t>(EventKind::resume);
    std::uint32_t generation = resume ? resume_slots_[event.target].generation : callback_slots_[event.target].generation;
    if (generation != event.generation) continue;
    event.at = nanos(now_);
    event.key = next_key(event.kind());
    std::uint32_t queued = push(event);
    if (resume) {
      resume_slots_[event.target].queued = queued;
    } else {
      callback_slots_[event.target].queued = queued;
    }
  }
}

void Simulation::node_stopped(NodeId id) {
  NodeRuntime& runtime = runtime_[id];
  std::vector<Event> deferred = std::move(runtime.deferred);
  runtime.deferred.clear();
  for (const Event& event : deferred) {
    // Free the slots of what the stopped process was about to do (not in the queue: released, not
    // cancelled). Resume slots were already cancelled by the destroyed frames' awaiters.
    if (event.kind() == static_cast<std::uint8_t>(EventKind::callback) && callback_slots_[event.target].generation == event.generation) {
      release_callback_slot(event.target);
    }
  }
  runtime.paused = false;
  runtime.incarnation++;
}

void Simulation::report_failure(std::exception_ptr error, NodeId node) {
  if (!failure_) {
    failure_ = error;
    failure_node_ = node;
  }
  stop_requested_ = true;
}

}  // namespace sim
