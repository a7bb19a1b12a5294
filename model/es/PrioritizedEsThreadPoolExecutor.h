// PrioritizedEsThreadPoolExecutor (EsExecutors.newSinglePrioritizing): one worker "thread" — a
// coroutine of the node — taking runnables from a priority queue ordered by (priority, insertion
// order). A runnable runs to completion (it may await the network) before the next starts. A
// runnable may carry a timeout: if it is still queued when the timeout expires, it is removed and
// its timeout callback runs instead (Java's TieBreakingPrioritizedRunnable with a timer).
// QueueOrder::fifo is the es-master-service-fifo bug switch: insertion order only.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/es/Priority.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace es {

class PrioritizedEsThreadPoolExecutor {
 public:
  using Runnable = std::function<sim::Task<void>()>;

  // PrioritizedEsThreadPoolExecutor.Pending, as the pending-tasks APIs show it.
  struct Pending {
    std::uint64_t insertionOrder = 0;
    Priority priority = Priority::NORMAL;
    std::string source;
    sim::Instant submitted;
    bool executing = false;
  };

  static constexpr std::size_t queue_max = 100'000;  // a bound, not an Elasticsearch setting

  enum class QueueOrder : std::uint8_t { by_priority, fifo };

  PrioritizedEsThreadPoolExecutor(sim::Node& node, std::string name, QueueOrder order = QueueOrder::by_priority);
  PrioritizedEsThreadPoolExecutor(const PrioritizedEsThreadPoolExecutor&) = delete;
  PrioritizedEsThreadPoolExecutor& operator=(const PrioritizedEsThreadPoolExecutor&) = delete;

  // Spawns the worker into the node's processes.
  void start();
  // Queues a runnable; returns its insertion order.
  std::uint64_t execute(Priority priority, std::string source, Runnable runnable);
  std::uint64_t execute(Priority priority, std::string source, Runnable runnable, sim::Duration timeout,
                        std::function<void()> timeoutCallback);

  // The running task first (executing), then the queue in the order it will run.
  std::vector<Pending> getPending() const;
  std::size_t getNumberOfPendingTasks() const { return queue_.size() + (current_ ? 1 : 0); }
  bool idle() const { return queue_.empty() && !current_; }
  const std::string& name() const { return name_; }
  sim::Node& node() const { return node_; }

 private:
  using Key = std::pair<std::uint8_t, std::uint64_t>;  // (priority, insertion order); (0, order) when fifo
  struct Entry {
    Priority priority;
    std::string source;
    sim::Instant submitted;
    Runnable runnable;
    std::function<void()> timeoutCallback;
  };

  sim::Task<void> worker();
  sim::Task<void> timeoutWatcher(Key key, sim::Duration timeout);

  sim::Node& node_;
  std::string name_;
  QueueOrder order_;
  std::map<Key, Entry> queue_;
  std::optional<Pending> current_;
  std::uint64_t insertionOrder_ = 0;
  sim::Condition workAvailable_;
  bool started_ = false;
};

}  // namespace es
