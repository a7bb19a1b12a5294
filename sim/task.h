// Task<T>: the coroutine type every model process is written in.
//
// As in cppcoro's task: lazy (starts suspended, runs when awaited or spawned), move-only, and
// [[nodiscard]]; the result is stored as empty/value/exception and rethrown to the awaiter;
// symmetric transfer on both await and completion so deep await chains never grow the stack.
// Destroying a Task destroys its frame, and with it the frames of everything it was awaiting: that
// is how a crash tears a node down (see Scope).
#pragma once

#include <coroutine>
#include <exception>
#include <utility>
#include <variant>

#include "sim/assert.h"
#include "sim/frame_pool.h"

namespace sim {

// Whoever owns a detached (spawned) coroutine: it is told when the coroutine finishes.
class TaskOwner {
 public:
  virtual void task_finished(std::coroutine_handle<> handle, std::exception_ptr error) noexcept = 0;

 protected:
  ~TaskOwner() = default;
};

namespace detail {

struct PromiseBase {
  std::coroutine_handle<> continuation;  // the awaiter, for an awaited task
  TaskOwner* owner = nullptr;             // the scope, for a spawned task

  static void* operator new(std::size_t size) { return frame_allocate(size); }
  static void operator delete(void* pointer, std::size_t size) noexcept { frame_free(pointer, size); }

  std::suspend_always initial_suspend() noexcept { return {}; }
};

template <class Promise>
struct FinalAwaiter {
  bool await_ready() const noexcept { return false; }
  std::coroutine_handle<> await_suspend(std::coroutine_handle<Promise> finished) noexcept {
    PromiseBase& promise = finished.promise();
    if (promise.continuation) return promise.continuation;
    if (promise.owner != nullptr) {
      // A spawned task: its owner destroys the frame (we are suspended, so that is allowed) and we
      // return to the event loop.
      std::exception_ptr error = finished.promise().take_error();
      promise.owner->task_finished(finished, error);
    }
    return std::noop_coroutine();
  }
  void await_resume() const noexcept {}
};

}  // namespace detail

template <class T = void>
class Task;

namespace detail {

// The promise of a Task<T>: the result as empty/value/exception, handed to the awaiter once.
template <class T>
struct TaskPromise : PromiseBase {
  std::variant<std::monostate, T, std::exception_ptr> result;

  Task<T> get_return_object();
  FinalAwaiter<TaskPromise> final_suspend() noexcept { return {}; }
  template <class U>
  void return_value(U&& value) {
    result.template emplace<1>(std::forward<U>(value));
  }
  void unhandled_exception() noexcept { result.template emplace<2>(std::current_exception()); }
  std::exception_ptr take_error() noexcept { return result.index() == 2 ? std::get<2>(result) : std::exception_ptr{}; }
  T take_result() {
    if (result.index() == 2) std::rethrow_exception(std::get<2>(result));
    ELECTSIM_ASSERT(result.index() == 1);
    return std::move(std::get<1>(result));
  }
};

template <>
struct TaskPromise<void> : PromiseBase {
  std::exception_ptr error;
  bool finished = false;

  Task<void> get_return_object();
  FinalAwaiter<TaskPromise> final_suspend() noexcept { return {}; }
  void return_void() noexcept { finished = true; }
  void unhandled_exception() noexcept { error = std::current_exception(); }
  std::exception_ptr take_error() noexcept { return std::exchange(error, {}); }
  void take_result() {
    if (error) std::rethrow_exception(error);
    ELECTSIM_ASSERT(finished);
  }
};

}  // namespace detail

template <class T>
class [[nodiscard]] Task {
 public:
  using promise_type = detail::TaskPromise<T>;

  Task() = default;
  Task(Task&& other) noexcept : handle_(std::exchange(other.handle_, {})) {}
  Task& operator=(Task&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, {});
    }
    return *this;
  }
  Task(const Task&) = delete;
  Task& operator=(const Task&) = delete;
  ~Task() { reset(); }

  bool valid() const { return static_cast<bool>(handle_); }

  auto operator co_await() && noexcept {
    struct Awaiter {
      std::coroutine_handle<promise_type> callee;
      bool await_ready() const noexcept { return false; }
      std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) noexcept {
        callee.promise().continuation = caller;
        return callee;
      }
      T await_resume() { return callee.promise().take_result(); }
    };
    ELECTSIM_ASSERT(handle_);
    return Awaiter{handle_};
  }

  // For Scope::spawn: hands the frame over to an owner.
  std::coroutine_handle<promise_type> release() { return std::exchange(handle_, {}); }

 private:
  friend promise_type;
  explicit Task(std::coroutine_handle<promise_type> handle) : handle_(handle) {}
  void reset() {
    if (handle_) handle_.destroy();
    handle_ = {};
  }
  std::coroutine_handle<promise_type> handle_;
};

namespace detail {

template <class T>
Task<T> TaskPromise<T>::get_return_object() {
  return Task<T>(std::coroutine_handle<TaskPromise>::from_promise(*this));
}
inline Task<void> TaskPromise<void>::get_return_object() {
  return Task<void>(std::coroutine_handle<TaskPromise>::from_promise(*this));
}

}  // namespace detail

}  // namespace sim
