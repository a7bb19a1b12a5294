// TaskBatcher: batches tasks that share a batching key (the ClusterStateTaskExecutor object, by
// identity). submitTasks records every task under its key in tasksPerBatchingKey and hands only the
// first task of the call to the executor's queue; when any queued task of a key runs, it takes all
// tasks of that key not yet processed and runs them as one batch (runIfNotProcessed), so the whole
// batch gets one execution and one result. A task object submitted twice under a key is rejected
// with IllegalStateException, and a task whose timeout expires while still queued fails with
// ProcessClusterEventTimeoutException.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/es/ClusterStateTask.h"
#include "model/es/PrioritizedEsThreadPoolExecutor.h"

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
  virtual sim::Task<void> run(std::shared_ptr<ClusterStateTaskExecutor> batchingKey, std::vector<BatchedTaskPtr> tasks,
                              std::string tasksSummary) = 0;

 private:
  sim::Task<void> runIfNotProcessed(BatchedTaskPtr updateTask);
  void onTimeoutInternal(const std::vector<BatchedTaskPtr>& tasks, sim::Duration timeout);

  PrioritizedEsThreadPoolExecutor& threadExecutor_;
  // Keyed by the executor's address: only looked up, never iterated, so the order of addresses
  // cannot leak into a run.
  std::map<const ClusterStateTaskExecutor*, std::vector<BatchedTaskPtr>> tasksPerBatchingKey_;
};

}  // namespace es
