// Eager<T>: the result of an operation that usually answers at once and only sometimes has to wait.
//
// A cache hit (ZookeeperRegistryCenter.get), a connection that is up (RetryLoop's check before an
// attempt): the answer is known when the call is made, and a Task would still allocate, start and
// destroy a coroutine frame for it. An Eager either holds that answer (awaiting it costs a move) or
// holds the Task that works it out. Awaited at once, as `co_await client.get(key)`, it behaves
// exactly as the Task would: the caller goes on at the same simulated instant either way, and the
// ready answer was decided when the call was made, which is when a Task awaited at once would have
// decided it too.
//
// Only for operations whose callers await them at once: an Eager kept for later would hold an answer
// decided too early.
#pragma once

#include <coroutine>
#include <optional>
#include <utility>

#include "sim/assert.h"
#include "sim/task.h"

namespace sim {

namespace detail {

// The awaiter of both Eager<T> and Eager<void>: the ready answer, or the Task's own awaiter.
template <class E, class T>
struct EagerAwaiter {
  using TaskAwaiter = decltype(std::declval<Task<T>>().operator co_await());
  E& self;
  std::optional<TaskAwaiter> inner;

  bool await_ready() noexcept {
    if (self.ready()) return true;
    inner.emplace(std::move(self.task_).operator co_await());
    return false;
  }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept { return inner->await_suspend(caller); }
  T await_resume() {
    if (!inner) return self.take();
    return inner->await_resume();
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Eager {
 public:
  Eager(T value) : ready_(std::in_place, std::move(value)) {}  // NOLINT: a ready answer converts
  Eager(Task<T> task) : task_(std::move(task)) { ELECTSIM_ASSERT(task_.valid()); }  // NOLINT: so does a Task

  Eager(Eager&&) noexcept = default;
  Eager& operator=(Eager&&) = delete;
  Eager(const Eager&) = delete;
  Eager& operator=(const Eager&) = delete;

  bool ready() const { return ready_.has_value(); }
  // The ready answer, moved out (check ready() first).
  T take() {
    ELECTSIM_ASSERT(ready_.has_value());
    return std::move(*ready_);
  }

  auto operator co_await() && noexcept { return detail::EagerAwaiter<Eager, T>{*this, std::nullopt}; }

 private:
  friend struct detail::EagerAwaiter<Eager, T>;
  std::optional<T> ready_;
  Task<T> task_;
};

// Eager<void>: done already, or a Task to run. `return sim::Eager<void>::done();` ends at once.
template <>
class [[nodiscard]] Eager<void> {
 public:
  static Eager done() { return Eager(); }
  Eager(Task<void> task) : task_(std::move(task)) { ELECTSIM_ASSERT(task_.valid()); }  // NOLINT: a Task converts

  Eager(Eager&&) noexcept = default;
  Eager& operator=(Eager&&) = delete;
  Eager(const Eager&) = delete;
  Eager& operator=(const Eager&) = delete;

  bool ready() const { return !task_.valid(); }
  void take() { ELECTSIM_ASSERT(ready()); }

  auto operator co_await() && noexcept { return detail::EagerAwaiter<Eager, void>{*this, std::nullopt}; }

 private:
  friend struct detail::EagerAwaiter<Eager, void>;
  Eager() = default;
  Task<void> task_;
};

}  // namespace sim
