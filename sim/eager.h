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

  auto operator co_await() && noexcept {
    using TaskAwaiter = decltype(std::declval<Task<T>>().operator co_await());
    struct Awaiter {
      Eager& self;
      std::optional<TaskAwaiter> inner;
      bool await_ready() noexcept {
        if (self.ready_) return true;
        inner.emplace(std::move(self.task_).operator co_await());
        return false;
      }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept { return inner->await_suspend(caller); }
      T await_resume() {
        if (self.ready_) return std::move(*self.ready_);
        return inner->await_resume();
      }
    };
    return Awaiter{*this, std::nullopt};
  }

 private:
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

  auto operator co_await() && noexcept {
    using TaskAwaiter = decltype(std::declval<Task<void>>().operator co_await());
    struct Awaiter {
      Eager& self;
      std::optional<TaskAwaiter> inner;
      bool await_ready() noexcept {
        if (self.ready()) return true;
        inner.emplace(std::move(self.task_).operator co_await());
        return false;
      }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept { return inner->await_suspend(caller); }
      void await_resume() {
        if (inner) inner->await_resume();
      }
    };
    return Awaiter{*this, std::nullopt};
  }

 private:
  Eager() = default;
  Task<void> task_;
};

}  // namespace sim
