// TaskBatcher: batches tasks that share a batching key (the ClusterStateTaskExecutor object, by
// identity). submitTasks records every task under its key in tasksPerBatchingKey and hands only the
// first task of the call to the executor's queue; when any queued task of a key runs, it takes all
// tasks of that key not yet processed and runs them as one batch (runIfNotProcessed), so the whole
// batch gets one execution and one result. A task object submitted twice under a key is rejected
// with IllegalStateException, and a task whose timeout expires while still queued fails with
// ProcessClusterEventTimeoutException.
//
// Trace (for es-task-order and the reader): es.task.submit when a call queues its tasks, es.task
// when a batch starts, es.task.timeout when queued tasks time out. Each names its queue entry by
// the executor's insertion order and its batching key by a number: the executor object's identity
// is not printable (its address must not leak into a run), so a key gets the next number when its
// first waiting task arrives and keeps it until its batch runs.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/es/ClusterStateTask.h"
#include "model/es/PrioritizedEsThreadPoolExecutor.h"
#include "sim/trace.h"

namespace es {

class TaskBatcher {
 public:
  struct BatchedTask {
    Priority priority = Priority::NORMAL;
    std::string source;
    std::shared_ptr<ClusterStateTask> task;
    std::shared_ptr<ClusterStateTaskExecutor> batchingKey;
    std::shared_ptr<ClusterStateTaskListener> listener;
    bool processed = false;
    std::uint64_t insertOrder = 0;     // of the queue entry the task was submitted with
    std::uint64_t batchingKeyId = 0;   // the key's number while the task waits (see above)
    sim::Instant submitted{};
  };
  using BatchedTaskPtr = std::shared_ptr<BatchedTask>;

  explicit TaskBatcher(PrioritizedEsThreadPoolExecutor& threadExecutor) : threadExecutor_(threadExecutor) {}
  virtual ~TaskBatcher() = default;
  TaskBatcher(const TaskBatcher&) = delete;
  TaskBatcher& operator=(const TaskBatcher&) = delete;

  // All tasks must share one batching key. Throws EsException(illegal_state) on a duplicate task.
  void submitTasks(std::vector<BatchedTaskPtr> tasks, std::optional<sim::Duration> timeout);
  // Tasks waiting under a key (for tests and the pending view).
  std::size_t pendingTasksOf(const ClusterStateTaskExecutor* batchingKey) const;

 protected:
  virtual void onTimeout(const std::vector<BatchedTaskPtr>& tasks, sim::Duration timeout) = 0;
  // `tasks` are every waiting task of the key, in submission order; the batch runs at the priority
  // of the queue entry that started it.
  virtual sim::Task<void> run(std::shared_ptr<ClusterStateTaskExecutor> batchingKey, std::vector<BatchedTaskPtr> tasks,
                              std::string tasksSummary) = 0;

 private:
  sim::Task<void> runIfNotProcessed(BatchedTaskPtr updateTask);
  void onTimeoutInternal(const std::vector<BatchedTaskPtr>& tasks, sim::Duration timeout);

  void trace(std::string_view kind, std::initializer_list<sim::TraceField> fields) const;

  struct WaitingTasks {
    std::uint64_t batchingKeyId = 0;
    std::vector<BatchedTaskPtr> tasks;
  };

  PrioritizedEsThreadPoolExecutor& threadExecutor_;
  // Keyed by the executor's address: only looked up, never iterated, so the order of addresses
  // cannot leak into a run.
  std::map<const ClusterStateTaskExecutor*, WaitingTasks> tasksPerBatchingKey_;
  std::uint64_t lastBatchingKeyId_ = 0;
};

}  // namespace es
