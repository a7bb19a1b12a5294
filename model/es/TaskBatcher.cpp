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
  auto [waiting, fresh] = tasksPerBatchingKey_.try_emplace(firstTask->batchingKey.get());
  if (fresh) waiting->second.batchingKeyId = ++lastBatchingKeyId_;
  std::vector<BatchedTaskPtr>& existingTasks = waiting->second.tasks;
  for (const BatchedTaskPtr& existing : existingTasks) {
    for (const BatchedTaskPtr& task : tasks) {
      if (existing->task == task->task) {
        throw EsException(ErrorKind::illegal_state, "task [" + task->source + "] with source [" + existing->source +
                                                        "] is already queued");
      }
    }
  }

  // Only the first task goes to the executor; the rest ride along in tasksPerBatchingKey.
  auto runnable = [this, firstTask] { return runIfNotProcessed(firstTask); };
  std::uint64_t insertOrder;
  if (timeout) {
    std::vector<BatchedTaskPtr> submitted = tasks;
    sim::Duration after = *timeout;
    insertOrder = threadExecutor_.execute(firstTask->priority, firstTask->source, runnable, after,
                                          [this, submitted, after] { onTimeoutInternal(submitted, after); });
  } else {
    insertOrder = threadExecutor_.execute(firstTask->priority, firstTask->source, runnable);
  }
  sim::Instant now = threadExecutor_.node().sim().now();
  for (const BatchedTaskPtr& task : tasks) {
    task->insertOrder = insertOrder;
    task->batchingKeyId = waiting->second.batchingKeyId;
    task->submitted = now;
  }
  existingTasks.insert(existingTasks.end(), tasks.begin(), tasks.end());
  trace("es.task.submit", {{"insert_order", insertOrder},
                           {"priority", priorityName(firstTask->priority)},
                           {"batching_key", waiting->second.batchingKeyId},
                           {"tasks", static_cast<std::uint64_t>(tasks.size())},
                           {"source", firstTask->source}});
}

void TaskBatcher::trace(std::string_view kind, std::initializer_list<sim::TraceField> fields) const {
  sim::Node& node = threadExecutor_.node();
  node.sim().trace().emit(node.id(), kind, fields);
}

std::size_t TaskBatcher::pendingTasksOf(const ClusterStateTaskExecutor* batchingKey) const {
  auto it = tasksPerBatchingKey_.find(batchingKey);
  return it == tasksPerBatchingKey_.end() ? 0 : it->second.tasks.size();
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
  trace("es.task.timeout", {{"insert_order", toRemove.front()->insertOrder},
                            {"batching_key", toRemove.front()->batchingKeyId},
                            {"tasks", static_cast<std::uint64_t>(toRemove.size())}});
  const ClusterStateTaskExecutor* key = toRemove.front()->batchingKey.get();
  auto it = tasksPerBatchingKey_.find(key);
  if (it != tasksPerBatchingKey_.end()) {
    std::vector<BatchedTaskPtr>& existing = it->second.tasks;
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
    std::vector<BatchedTaskPtr> tasks = std::move(pending->second.tasks);
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
  // The batch runs at the priority of the entry that started it; the others ride along.
  trace("es.task", {{"source", tasksSummary},
                    {"priority", priorityName(updateTask->priority)},
                    {"insert_order", updateTask->insertOrder},
                    {"batching_key", updateTask->batchingKeyId},
                    {"batch", static_cast<std::uint64_t>(toExecute.size())}});
  co_await run(updateTask->batchingKey, std::move(toExecute), std::move(tasksSummary));
}

}  // namespace es
