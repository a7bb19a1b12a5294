#include "model/es/PrioritizedEsThreadPoolExecutor.h"

namespace es {

PrioritizedEsThreadPoolExecutor::PrioritizedEsThreadPoolExecutor(sim::Node& node, std::string name, QueueOrder order)
    : node_(node), name_(std::move(name)), order_(order), workAvailable_(node.sim()) {}

void PrioritizedEsThreadPoolExecutor::start() {
  ELECTSIM_ASSERT(!started_);
  started_ = true;
  node_.spawn(worker());
}

std::uint64_t PrioritizedEsThreadPoolExecutor::execute(Priority priority, std::string source, Runnable runnable) {
  ELECTSIM_ASSERT(runnable);
  ELECTSIM_ASSERT_MSG(queue_.size() < queue_max, name_ + ": task queue full");
  std::uint64_t order = insertionOrder_++;
  std::uint8_t rank = order_ == QueueOrder::fifo ? 0 : static_cast<std::uint8_t>(priority);
  queue_.emplace(Key{rank, order}, Entry{priority, std::move(source), node_.sim().now(), std::move(runnable), {}});
  workAvailable_.notify_all();
  return order;
}

std::uint64_t PrioritizedEsThreadPoolExecutor::execute(Priority priority, std::string source, Runnable runnable,
                                                       sim::Duration timeout, std::function<void()> timeoutCallback) {
  std::uint64_t order = execute(priority, std::move(source), std::move(runnable));
  Key key{order_ == QueueOrder::fifo ? std::uint8_t{0} : static_cast<std::uint8_t>(priority), order};
  queue_.at(key).timeoutCallback = std::move(timeoutCallback);
  node_.spawn(timeoutWatcher(key, timeout));
  return order;
}

sim::Task<void> PrioritizedEsThreadPoolExecutor::worker() {
  while (true) {
    if (queue_.empty()) {
      co_await workAvailable_.wait();
      continue;
    }
    auto first = queue_.begin();
    Key key = first->first;
    Entry entry = std::move(first->second);
    queue_.erase(first);
    current_ = Pending{key.second, entry.priority, entry.source, entry.submitted, true};
    co_await entry.runnable();
    current_.reset();
  }
}

sim::Task<void> PrioritizedEsThreadPoolExecutor::timeoutWatcher(Key key, sim::Duration timeout) {
  co_await node_.sim().sleep(timeout);
  auto it = queue_.find(key);
  if (it == queue_.end()) co_return;  // it started (or was removed) in time
  std::function<void()> callback = std::move(it->second.timeoutCallback);
  queue_.erase(it);
  if (callback) callback();
}

std::vector<PrioritizedEsThreadPoolExecutor::Pending> PrioritizedEsThreadPoolExecutor::getPending() const {
  std::vector<Pending> pending;
  pending.reserve(queue_.size() + 1);
  if (current_) pending.push_back(*current_);
  for (const auto& [key, entry] : queue_) {
    pending.push_back(Pending{key.second, entry.priority, entry.source, entry.submitted, false});
  }
  return pending;
}

}  // namespace es
