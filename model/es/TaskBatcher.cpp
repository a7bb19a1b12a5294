#include "model/es/TaskBatcher.h"

#include <algorithm>

namespace es {

void TaskBatcher::submitTasks(std::vector<BatchedTaskPtr> tasks, std::optional<sim::Duration> timeout) {
  ELECTSIM_ASSERT(!tasks.empty());
  const BatchedTaskPtr firstTask = tasks.front();
  for (const BatchedTaskPtr& task : tasks) {
    ELECTSIM_ASSERT_MSG(task->batchingKey == firstTask->batchingKey, "tasks submitted in a batch should share the same batching key");
  }
  // The identity map of the submitted tasks: a task object listed twice is a duplicate.
  for (std::size_t i = 0; i < tasks.size(); i++) {
    for (std::size_t j = i + 1; j < tasks.size(); j++) {
      if (tasks[i]->task == tasks[j]->task) {
        throw EsException(ErrorKind::illegal_state, "cannot add duplicate task: " + tasks[i]->source);
      }
    }
  }
  std::vector<BatchedTaskPtr>& existingTasks = tasksPerBatchingKey_[firstTask->batchingKey.get()];
  for (const BatchedTaskPtr& existing : existingTasks) {
    for (const BatchedTaskPtr& task : tasks) {
      if (existing->task == task->task) {
        if (existingTasks.empty()) tasksPerBatchingKey_.erase(firstTask->batchingKey.get());
        throw EsException(ErrorKind::illegal_state, "task [" + task->source + "] with source [" + existing->source +
                                                        "] is already queued");
      }
    }
  }
  existingTasks.insert(existingTasks.end(), tasks.begin(), tasks.end());

  // Only the first task goes to the executor; the rest ride along in tasksPerBatchingKey.
  auto runnable = [this, firstTask] { return runIfNotProcessed(firstTask); };
  if (timeout) {
    std::vector<BatchedTaskPtr> submitted = tasks;
    sim::Duration after = *timeout;
    threadExecutor_.execute(firstTask->priority, firstTask->source, runnable, after,
                            [this, submitted, after] { onTimeoutInternal(submitted, after); });
  } else {
    threadExecutor_.execute(firstTask->priority, firstTask->source, runnable);
  }
}

std::size_t TaskBatcher::pendingTasksOf(const ClusterStateTaskExecutor* batchingKey) const {
  auto it = tasksPerBatchingKey_.find(batchingKey);
  return it == tasksPerBatchingKey_.end() ? 0 : it->second.size();
}

void TaskBatcher::onTimeoutInternal(const std::vector<BatchedTaskPtr>& tasks, sim::Duration timeout) {
  std::vector<BatchedTaskPtr> toRemove;
  for (const BatchedTaskPtr& task : tasks) {
    if (!task->processed) {
      task->processed = true;
      toRemove.push_back(task);
    }
  }
  if (toRemove.empty()) return;
  const ClusterStateTaskExecutor* key = toRemove.front()->batchingKey.get();
  auto it = tasksPerBatchingKey_.find(key);
  if (it != tasksPerBatchingKey_.end()) {
    std::vector<BatchedTaskPtr>& existing = it->second;
    existing.erase(std::remove_if(existing.begin(), existing.end(),
                                  [&](const BatchedTaskPtr& task) {
                                    return std::find(toRemove.begin(), toRemove.end(), task) != toRemove.end();
                                  }),
                   existing.end());
    if (existing.empty()) tasksPerBatchingKey_.erase(it);
  }
  onTimeout(toRemove, timeout);
}

sim::Task<void> TaskBatcher::runIfNotProcessed(BatchedTaskPtr updateTask) {
  // A task already processed (run in an earlier batch, or timed out) must not run the tasks of its
  // key that arrived later: they have their own place in the queue.
  if (updateTask->processed) co_return;
  std::vector<BatchedTaskPtr> toExecute;
  std::vector<std::pair<std::string, std::vector<ClusterStateTask*>>> tasksBySource;  // in first-seen order
  auto pending = tasksPerBatchingKey_.find(updateTask->batchingKey.get());
  if (pending != tasksPerBatchingKey_.end()) {
    std::vector<BatchedTaskPtr> tasks = std::move(pending->second);
    tasksPerBatchingKey_.erase(pending);
    for (const BatchedTaskPtr& task : tasks) {
      if (task->processed) continue;
      task->processed = true;
      toExecute.push_back(task);
      auto group = std::find_if(tasksBySource.begin(), tasksBySource.end(), [&](const auto& entry) { return entry.first == task->source; });
      if (group == tasksBySource.end()) {
        tasksBySource.emplace_back(task->source, std::vector<ClusterStateTask*>{});
        group = std::prev(tasksBySource.end());
      }
      group->second.push_back(task->task.get());
    }
  }
  if (toExecute.empty()) co_return;
  std::string tasksSummary;
  for (const auto& [source, tasks] : tasksBySource) {
    std::string described = updateTask->batchingKey->describeTasks(tasks);
    if (!tasksSummary.empty()) tasksSummary += ", ";
    tasksSummary += described.empty() ? source : source + "[" + described + "]";
  }
  co_await run(updateTask->batchingKey, std::move(toExecute), std::move(tasksSummary));
}

}  // namespace es
