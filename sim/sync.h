// Blocking primitives for model code, each named after what the Java code it mirrors uses:
//
//   Condition    Object.wait()/notifyAll(): a pulse, waiters re-check their predicate.
//   Signal       a sticky flag (a CountDownLatch of one): once set, waits return at once.
//   Queue<T>     a bounded BlockingQueue: push, pop(), poll(timeout).
//   Promise<T>   a one-shot result; Future<T> is awaited (CompletableFuture / a background callback).
//   first_of     waits for the first of several sources and an optional timeout; returns which fired.
//
// Every wait may carry a timeout, and every wake-up is scheduled (never run inline by the notifier).
#pragma once

#include <array>
#include <exception>
#include <optional>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "sim/frame_pool.h"
#include "sim/ring.h"
#include "sim/task.h"
#include "sim/wait.h"

namespace sim {

class Condition {
 public:
  explicit Condition(Simulation& sim) : sim_(sim) {}
  bool ready() const { return false; }
  WaitList& wait_list() { return waiters_; }

  // co_await: resumes with true when notified, false when the timeout expired first.
  WaitAwaiter<Condition> wait() { return {sim_, *this, std::nullopt}; }
  WaitAwaiter<Condition> wait_for(Duration timeout) { return {sim_, *this, sim_.now() + timeout}; }
  WaitAwaiter<Condition> wait_until(Instant deadline) { return {sim_, *this, deadline}; }
  void notify_all() { waiters_.wake_all(); }
  void notify_one() { waiters_.wake_one(); }

 private:
  Simulation& sim_;
  WaitList waiters_;
};

class Signal {
 public:
  explicit Signal(Simulation& sim) : sim_(sim) {}
  bool ready() const { return set_; }
  WaitList& wait_list() { return waiters_; }

  void set() {
    if (set_) return;
    set_ = true;
    waiters_.wake_all();
  }
  void reset() { set_ = false; }
  bool is_set() const { return set_; }
  WaitAwaiter<Signal> wait() { return {sim_, *this, std::nullopt}; }
  WaitAwaiter<Signal> wait_for(Duration timeout) { return {sim_, *this, sim_.now() + timeout}; }

 private:
  Simulation& sim_;
  WaitList waiters_;
  bool set_ = false;
};

// A bounded FIFO queue between coroutines. A push hands the item straight to the first waiting
// consumer (so a woken consumer always has its item, even if another coroutine runs first).
template <class T>
class Queue {
 public:
  Queue(Simulation& sim, std::size_t capacity) : sim_(sim), capacity_(capacity) { ELECTSIM_ASSERT(capacity > 0); }

  bool ready() const { return !items_.empty(); }
  WaitList& wait_list() { return waiters_; }
  std::size_t size() const { return items_.size(); }
  bool empty() const { return items_.empty(); }
  std::size_t capacity() const { return capacity_; }

  // False when full (the caller decides: drop, or Java's offer() semantics). An rvalue is moved
  // once, into the waiter's slot or the queue.
  bool push(const T& item) { return push(T(item)); }
  bool push(T&& item) {
    WaitEntry* entry = waiters_.front();
    while (entry != nullptr) {
      WaitEntry* next = entry->next;
      entry->unlink();
      if (!entry->group->fired()) {
        if (entry->slot != nullptr) {
          *static_cast<std::optional<T>*>(entry->slot) = std::move(item);
          entry->group->wake(entry->index);
          return true;
        }
        entry->group->wake(entry->index);  // a first_of that only wants to know
      }
      entry = next;
    }
    if (items_.size() >= capacity_) return false;
    items_.push_back(std::move(item));
    return true;
  }

  // The item pushed last, still queued (null when none is: an item handed straight to a waiting
  // consumer is no longer here). A producer may change it in place.
  T* last() { return items_.empty() ? nullptr : &items_[items_.size() - 1]; }

  std::optional<T> try_pop() {
    if (items_.empty()) return std::nullopt;
    return items_.pop_front();
  }

  void clear() { items_.clear(); }

  class PopAwaiter {
   public:
    PopAwaiter(Queue& queue, std::optional<Instant> deadline) : queue_(queue), group_(queue.sim_), deadline_(deadline) {}
    PopAwaiter(const PopAwaiter&) = delete;
    bool await_ready() { return !queue_.items_.empty(); }
    void await_suspend(std::coroutine_handle<> handle) {
      group_.suspend(handle);
      entry_.group = &group_;
      entry_.slot = &item_;
      queue_.waiters_.push_back(entry_);
      if (deadline_) group_.arm_deadline(*deadline_);
    }
    std::optional<T> await_resume() {
      entry_.unlink();
      if (item_) return std::move(item_);
      return queue_.try_pop();
    }

   private:
    Queue& queue_;
    WaitGroup group_;
    WaitEntry entry_;
    std::optional<T> item_;
    std::optional<Instant> deadline_;
  };

  struct TakeAwaiter : PopAwaiter {
    explicit TakeAwaiter(Queue& queue) : PopAwaiter(queue, std::nullopt) {}
    T await_resume() {
      std::optional<T> item = PopAwaiter::await_resume();
      ELECTSIM_ASSERT(item.has_value());
      return std::move(*item);
    }
  };

  // co_await queue.pop() -> T, waiting as long as it takes.
  TakeAwaiter pop() { return TakeAwaiter(*this); }
  // co_await queue.poll(timeout) -> std::optional<T>, empty on timeout (BlockingQueue.poll).
  PopAwaiter poll(Duration timeout) { return PopAwaiter(*this, sim_.now() + timeout); }

 private:
  Simulation& sim_;
  std::size_t capacity_;
  Ring<T> items_;
  WaitList waiters_;
};

class BrokenPromise : public std::runtime_error {
 public:
  BrokenPromise() : std::runtime_error("broken promise: the producer went away") {}
};

template <class T>
class Future;

namespace detail {
template <class T>
struct FutureState {
  std::optional<T> value;
  std::exception_ptr error;
  WaitList waiters;
  int references = 0;
  bool ready() const { return value.has_value() || error != nullptr; }

  static void* operator new(std::size_t size) { return frame_allocate(size); }
  static void operator delete(void* pointer, std::size_t size) noexcept { frame_free(pointer, size); }
};
}  // namespace detail

// The producing side. Destroying an unfulfilled Promise breaks it: the Future throws BrokenPromise.
template <class T>
class Promise {
 public:
  Promise() : state_(new detail::FutureState<T>()) { state_->references = 1; }
  Promise(Promise&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  Promise& operator=(Promise&& other) noexcept {
    if (this != &other) {
      release();
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  Promise(const Promise&) = delete;
  ~Promise() { release(); }

  Future<T> get_future();
  bool fulfilled() const { return state_ == nullptr || state_->ready(); }
  void set_value(const T& value) { set_value(T(value)); }
  void set_value(T&& value) {
    ELECTSIM_ASSERT(state_ != nullptr && !state_->ready());
    state_->value.emplace(std::move(value));
    state_->waiters.wake_all();
  }
  void set_exception(std::exception_ptr error) {
    ELECTSIM_ASSERT(state_ != nullptr && !state_->ready());
    state_->error = error;
    state_->waiters.wake_all();
  }

 private:
  void release() {
    if (state_ == nullptr) return;
    if (!state_->ready()) set_exception(std::make_exception_ptr(BrokenPromise()));
    if (--state_->references == 0) delete state_;
    state_ = nullptr;
  }
  detail::FutureState<T>* state_;
};

template <class T>
class Future {
 public:
  Future() = default;
  Future(Future&& other) noexcept : state_(std::exchange(other.state_, nullptr)) {}
  Future& operator=(Future&& other) noexcept {
    if (this != &other) {
      release();
      state_ = std::exchange(other.state_, nullptr);
    }
    return *this;
  }
  Future(const Future&) = delete;
  ~Future() { release(); }

  bool valid() const { return state_ != nullptr; }
  bool ready() const { return state_ != nullptr && state_->ready(); }
  WaitList& wait_list() { return state_->waiters; }

  // The value (or the exception) once ready.
  T get() {
    ELECTSIM_ASSERT(ready());
    if (state_->error) std::rethrow_exception(state_->error);
    return std::move(*state_->value);
  }

  class Awaiter {
   public:
    Awaiter(Simulation& sim, Future& future, std::optional<Instant> deadline) : wait_(sim, future, deadline), future_(future) {}
    bool await_ready() { return wait_.await_ready(); }
    void await_suspend(std::coroutine_handle<> handle) { wait_.await_suspend(handle); }
    std::optional<T> await_resume() {
      if (!wait_.await_resume()) return std::nullopt;
      return future_.get();
    }

   protected:
    WaitAwaiter<Future> wait_;
    Future& future_;
  };

  // co_await future.wait(sim) -> T (rethrows the producer's exception). The value moves once, out
  // of the shared state, not through an optional.
  struct ValueAwaiter : Awaiter {
    ValueAwaiter(Simulation& sim, Future& future) : Awaiter(sim, future, std::nullopt) {}
    T await_resume() {
      [[maybe_unused]] bool woken = this->wait_.await_resume();
      ELECTSIM_ASSERT(woken);  // no deadline: only the value (or the exception) wakes it
      return this->future_.get();
    }
  };
  ValueAwaiter wait(Simulation& sim) { return ValueAwaiter(sim, *this); }
  // co_await future.wait_for(sim, timeout) -> std::optional<T>, empty on timeout.
  Awaiter wait_for(Simulation& sim, Duration timeout) { return Awaiter(sim, *this, sim.now() + timeout); }

 private:
  friend class Promise<T>;
  explicit Future(detail::FutureState<T>* state) : state_(state) { state_->references++; }
  void release() {
    if (state_ != nullptr && --state_->references == 0) delete state_;
    state_ = nullptr;
  }
  detail::FutureState<T>* state_ = nullptr;
};

template <class T>
Future<T> Promise<T>::get_future() {
  ELECTSIM_ASSERT(state_ != nullptr);
  return Future<T>(state_);
}

// ---- first_of ----

// A deadline among first_of's alternatives.
struct Timeout {
  Duration after;
};

// co_await first_of(sim, a, b, Timeout{2s}) -> the index of the first alternative that fired (the
// Timeout's own index when time ran out). Sources are watched, not consumed: after waking, pop the
// queue or read the future yourself, and re-check, since other coroutines may have run first.
template <class... Alternatives>
class FirstOf {
  static constexpr std::size_t count = sizeof...(Alternatives);

 public:
  FirstOf(Simulation& sim, Alternatives&... alternatives) : group_(sim), alternatives_(alternatives...) {}
  FirstOf(const FirstOf&) = delete;

  bool await_ready() {
    ready_index_ = find_ready(std::make_index_sequence<count>{});
    return ready_index_ >= 0;
  }
  void await_suspend(std::coroutine_handle<> handle) {
    group_.suspend(handle);
    link(std::make_index_sequence<count>{});
  }
  int await_resume() {
    for (WaitEntry& entry : entries_) entry.unlink();
    if (ready_index_ >= 0) return ready_index_;
    if (group_.fired()) return group_.fired_index();
    ELECTSIM_ASSERT_MSG(timeout_index_ >= 0, "first_of resumed without a source or a timeout");
    return timeout_index_;
  }

 private:
  template <std::size_t... I>
  int find_ready(std::index_sequence<I...>) {
    int found = -1;
    ((found < 0 && is_ready(std::get<I>(alternatives_)) ? (found = static_cast<int>(I), 0) : 0), ...);
    return found;
  }
  template <std::size_t... I>
  void link(std::index_sequence<I...>) {
    (link_one(std::get<I>(alternatives_), static_cast<int>(I)), ...);
  }
  static bool is_ready(Timeout& timeout) { return timeout.after <= Duration::zero(); }
  template <Waitable Source>
  static bool is_ready(Source& source) {
    return source.ready();
  }
  void link_one(Timeout& timeout, int index) {
    ELECTSIM_ASSERT_MSG(timeout_index_ < 0, "first_of takes at most one Timeout");
    timeout_index_ = index;
    group_.arm_deadline(group_.sim().now() + timeout.after);
  }
  template <Waitable Source>
  void link_one(Source& source, int index) {
    WaitEntry& entry = entries_[static_cast<std::size_t>(index)];
    entry.group = &group_;
    entry.index = index;
    source.wait_list().push_back(entry);
  }

  WaitGroup group_;
  std::array<WaitEntry, count> entries_;
  std::tuple<Alternatives&...> alternatives_;
  int ready_index_ = -1;
  int timeout_index_ = -1;
};

// Temporaries such as Timeout{2s} live until the end of the full co_await expression, which spans
// the suspension, so holding references to them is safe.
template <class... Alternatives>
FirstOf<std::remove_reference_t<Alternatives>...> first_of(Simulation& sim, Alternatives&&... alternatives) {
  return FirstOf<std::remove_reference_t<Alternatives>...>(sim, alternatives...);
}

}  // namespace sim
