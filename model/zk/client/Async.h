// zk::Async<R>: what a ZooKeeper call returns, awaited at once for its result R:
// `DataResult read = co_await zk.getData(path);`.
//
// The simulated handle queues the request when the call is made and hands back the reply to come
// with the function that turns it into R: no coroutine of its own, so a read in flight costs its
// caller no frame (one was 640 B of the 2.2 kB an outstanding CuratorCache read held; in a burst of
// 10,000 notifications to each of 100 instances there are a million of them). The live handle is
// a coroutine that returns an Async, as it would a sim::Task.
//
// A Task awaited at once starts its request at the same instant, with nothing in between, so the
// two forms order requests and resumptions the same way. Like Eager, only for calls their callers
// await at once.
#pragma once

#include <coroutine>
#include <optional>
#include <utility>

#include "model/zk/client/ClientCnxn.h"
#include "sim/task.h"

namespace zk {

template <class R>
class [[nodiscard]] Async {
 public:
  // A coroutine declared to return an Async is a Task's coroutine; its Task becomes the Async.
  using promise_type = sim::detail::TaskPromise<R>;
  using Convert = R (*)(ClientReply&& reply);

  Async(sim::Task<R> task) : task_(std::move(task)) { ELECTSIM_ASSERT(task_.valid()); }  // NOLINT: a Task converts
  Async(ClientCnxn::PendingReply reply, Convert convert) : reply_(std::move(reply)), convert_(convert) {
    ELECTSIM_ASSERT(convert_ != nullptr);
  }
  Async(Async&&) noexcept = default;
  Async& operator=(Async&&) = delete;
  Async(const Async&) = delete;
  Async& operator=(const Async&) = delete;

  auto operator co_await() && noexcept { return Awaiter{*this, std::nullopt, std::nullopt}; }

 private:
  using TaskAwaiter = decltype(std::declval<sim::Task<R>>().operator co_await());

  struct Awaiter {
    Async& self;
    std::optional<TaskAwaiter> task;
    std::optional<ClientCnxn::ReplyAwaiter> reply;

    bool await_ready() {
      if (self.task_.valid()) {
        task.emplace(std::move(self.task_).operator co_await());
        return false;
      }
      return std::move(*self.reply_).awaitIn(reply).await_ready();
    }
    std::coroutine_handle<> await_suspend(std::coroutine_handle<> caller) {
      if (task) return task->await_suspend(caller);
      reply->await_suspend(caller);
      return std::noop_coroutine();
    }
    R await_resume() {
      if (task) return task->await_resume();
      return self.convert_(reply->await_resume());
    }
  };

  sim::Task<R> task_;
  std::optional<ClientCnxn::PendingReply> reply_;
  Convert convert_ = nullptr;
};

}  // namespace zk
