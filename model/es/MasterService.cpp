#include "model/es/MasterService.h"

#include <algorithm>
#include <numeric>

#include "sim/trace.h"

namespace es {

class MasterService::Batcher final : public TaskBatcher {
 public:
  Batcher(MasterService& service, PrioritizedEsThreadPoolExecutor& executor) : TaskBatcher(executor), service_(service) {}

 protected:
  void onTimeout(const std::vector<BatchedTaskPtr>& tasks, sim::Duration timeout) override {
    for (const BatchedTaskPtr& task : tasks) {
      task->listener->onFailure(task->source, EsException(ErrorKind::process_cluster_event_timeout,
                                                          "failed to process cluster event (" + task->source +
                                                              ") within " + sim::format_duration(timeout)));
    }
  }
  sim::Task<void> run(std::shared_ptr<ClusterStateTaskExecutor> batchingKey, std::vector<BatchedTaskPtr> tasks,
                      std::string tasksSummary) override {
    return service_.runTasks(TaskInputs{std::move(batchingKey), std::move(tasks), std::move(tasksSummary)});
  }

 private:
  MasterService& service_;
};

MasterServiceStats& MasterServiceStats::operator+=(const MasterServiceStats& other) {
  batches += other.batches;
  largestBatch = std::max(largestBatch, other.largestBatch);
  publications += other.publications;
  failedPublications += other.failedPublications;
  for (std::size_t i = 0; i < longestWait.size(); i++) {
    longestWait[i] = std::max(longestWait[i], other.longestWait[i]);
    tasksSubmittedByPriority[i] += other.tasksSubmittedByPriority[i];
    tasksRunByPriority[i] += other.tasksRunByPriority[i];
  }
  return *this;
}

std::uint64_t MasterServiceStats::tasksSubmitted() const {
  return std::accumulate(tasksSubmittedByPriority.begin(), tasksSubmittedByPriority.end(), std::uint64_t{0});
}

std::uint64_t MasterServiceStats::tasksRun() const { return std::accumulate(tasksRunByPriority.begin(), tasksRunByPriority.end(), std::uint64_t{0}); }

MasterService::MasterService(sim::Node& node, QueueOrder order)
    : node_(node), threadExecutor_(node, "masterService#updateTask", order), batcher_(std::make_unique<Batcher>(*this, threadExecutor_)) {}

MasterService::~MasterService() = default;

const TaskBatcher& MasterService::batcher() const { return *batcher_; }

void MasterService::start() {
  ELECTSIM_ASSERT_MSG(publisher_ && supplier_ && uuids_, "MasterService needs a publisher, a state supplier and UUIDs");
  threadExecutor_.start();
}

void MasterService::submitStateUpdateTask(std::string source, std::shared_ptr<ClusterStateUpdateTask> task) {
  ClusterStateTaskConfig config = task->config();
  submitStateUpdateTask(std::move(source), task, config, task, task);
}

void MasterService::submitStateUpdateTask(std::string source, std::shared_ptr<ClusterStateTask> task, ClusterStateTaskConfig config,
                                          std::shared_ptr<ClusterStateTaskExecutor> executor,
                                          std::shared_ptr<ClusterStateTaskListener> listener) {
  std::vector<TaskAndListener> tasks;
  tasks.emplace_back(std::move(task), std::move(listener));
  submitStateUpdateTasks(std::move(source), std::move(tasks), config, std::move(executor));
}

void MasterService::submitStateUpdateTasks(std::string source, std::vector<TaskAndListener> tasks, ClusterStateTaskConfig config,
                                           std::shared_ptr<ClusterStateTaskExecutor> executor) {
  ELECTSIM_ASSERT(executor != nullptr);
  std::vector<TaskBatcher::BatchedTaskPtr> batched;
  batched.reserve(tasks.size());
  for (auto& [task, listener] : tasks) {
    ELECTSIM_ASSERT(task != nullptr && listener != nullptr);
    auto entry = std::make_shared<TaskBatcher::BatchedTask>();
    entry->priority = config.priority;
    entry->source = source;
    entry->task = std::move(task);
    entry->batchingKey = executor;
    entry->listener = std::move(listener);
    batched.push_back(std::move(entry));
  }
  std::size_t count = batched.size();
  batcher_->submitTasks(std::move(batched), config.timeout);
  stats_.tasksSubmittedByPriority[static_cast<std::size_t>(config.priority)] += count;
}

std::vector<PendingClusterTask> MasterService::pendingTasks() const {
  std::vector<PendingClusterTask> tasks;
  sim::Instant now = node_.sim().now();
  for (const PrioritizedEsThreadPoolExecutor::Pending& pending : threadExecutor_.getPending()) {
    tasks.push_back(PendingClusterTask{pending.insertionOrder, pending.priority, pending.source, pending.executing, now - pending.submitted});
  }
  return tasks;
}

ClusterTasksResult MasterService::executeTasks(const TaskInputs& taskInputs, const ClusterStatePtr& previousClusterState) {
  std::vector<ClusterStateTask*> inputs;
  inputs.reserve(taskInputs.updateTasks.size());
  for (const auto& task : taskInputs.updateTasks) inputs.push_back(task->task.get());
  try {
    ClusterTasksResult result = taskInputs.executor->execute(previousClusterState, inputs);
    ELECTSIM_ASSERT(result.resultingState != nullptr);
    return result;
  } catch (const EsException& error) {
    // The executor failed as a whole: every task of the batch fails with the same exception.
    ClusterTasksResult result;
    result.resultingState = previousClusterState;
    for (ClusterStateTask* task : inputs) result.failures.emplace_back(task, error);
    return result;
  }
}

ClusterStatePtr MasterService::patchVersions(const ClusterStatePtr& previousClusterState, ClusterStatePtr newClusterState) {
  if (newClusterState == previousClusterState) return newClusterState;
  auto patched = builder(*newClusterState);
  patched->version = newClusterState->version + 1;  // Builder.incrementVersion()
  patched->stateUUID = uuids_();
  patched->origin = ClusterState::Origin::master_service;
  return patched;
}

sim::Task<void> MasterService::runTasks(TaskInputs taskInputs) {
  ClusterStatePtr previousClusterState = state();
  const std::string& summary = taskInputs.summary;
  // (TaskBatcher traced the batch's start, es.task.)
  sim::Instant now = node_.sim().now();
  stats_.batches++;
  stats_.largestBatch = std::max<std::uint64_t>(stats_.largestBatch, taskInputs.updateTasks.size());
  for (const auto& task : taskInputs.updateTasks) {
    auto priority = static_cast<std::size_t>(task->priority);
    stats_.longestWait[priority] = std::max(stats_.longestWait[priority], now - task->submitted);
    stats_.tasksRunByPriority[priority]++;
  }
  if (!previousClusterState->isLocalNodeElectedMaster(node_.id()) && taskInputs.executor->runOnlyOnMaster()) {
    for (const auto& task : taskInputs.updateTasks) task->listener->onNoLongerMaster(task->source);
    co_return;
  }

  ClusterTasksResult result = executeTasks(taskInputs, previousClusterState);
  ClusterStatePtr newClusterState = patchVersions(previousClusterState, result.resultingState);
  std::vector<TaskBatcher::BatchedTaskPtr> succeeded;
  for (const auto& task : taskInputs.updateTasks) {
    if (const EsException* error = result.failureOf(task->task.get())) {
      task->listener->onFailure(task->source, *error);
    } else {
      succeeded.push_back(task);
    }
  }
  if (newClusterState == previousClusterState) {
    for (const auto& task : succeeded) task->listener->clusterStateProcessed(task->source, previousClusterState, previousClusterState);
    co_return;
  }

  ClusterChangedEvent event{summary, newClusterState, previousClusterState};
  std::optional<EsException> publishFailure;
  try {
    co_await publisher_(event);
  } catch (const EsException& error) {
    if (error.kind() != ErrorKind::failed_to_commit) throw;
    publishFailure = error;
  }
  if (publishFailure) {
    stats_.failedPublications++;
    for (const auto& task : succeeded) task->listener->onFailure(task->source, *publishFailure);
    co_return;
  }
  stats_.publications++;
  for (const auto& task : succeeded) task->listener->clusterStateProcessed(task->source, previousClusterState, newClusterState);
  taskInputs.executor->clusterStatePublished(event);
}

}  // namespace es
