// MasterService: where the elected master runs cluster-state update tasks, one batch at a time on
// its single prioritized thread (masterService#updateTask). runTasks takes the current state, runs
// the batch's executor, and
//  - if the local node is not master and the executor runs only on the master: onNoLongerMaster;
//  - if the state did not change (the same object came back): no publication;
//  - otherwise: version + 1 and a new state UUID (patchVersions), then the publisher (ZenDiscovery
//    .publish) publishes it and waits until it is committed and applied locally; a
//    FailedToCommitClusterStateException fails the batch.
// pendingTasks() is the _cluster/pending_tasks view: insert_order, priority, source, executing,
// time_in_queue.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "model/es/ClusterStateTask.h"
#include "model/es/PrioritizedEsThreadPoolExecutor.h"
#include "model/es/TaskBatcher.h"

namespace es {

// What a MasterService did, for the run's report (final.elasticsearch.master_service). The node
// adds each incarnation's figures to its persistent totals when it stops.
struct MasterServiceStats {
  std::uint64_t batches = 0;          // executions of runTasks
  std::uint64_t largestBatch = 0;
  std::uint64_t publications = 0;     // batches whose new state was committed and applied
  std::uint64_t failedPublications = 0;
  // Per priority (indexed by Priority), the longest time a task waited in the queue before its
  // batch started: under a backlog, URGENT tasks wait little and LANGUID ones long.
  std::array<sim::Duration, priority_count> longestWait{};
  std::array<std::uint64_t, priority_count> tasksSubmittedByPriority{};
  std::array<std::uint64_t, priority_count> tasksRunByPriority{};  // tasks in those batches

  std::uint64_t tasksSubmitted() const;  // over every priority
  std::uint64_t tasksRun() const;

  MasterServiceStats& operator+=(const MasterServiceStats& other);
};

struct PendingClusterTask {
  std::uint64_t insertOrder = 0;
  Priority priority = Priority::NORMAL;
  std::string source;
  bool executing = false;
  sim::Duration timeInQueue{};
};

class MasterService {
 public:
  // Publishes and returns once committed and applied locally; throws EsException(failed_to_commit).
  using ClusterStatePublisher = std::function<sim::Task<void>(ClusterChangedEvent)>;
  using ClusterStateSupplier = std::function<ClusterStatePtr()>;
  using StateUuidSupplier = std::function<std::uint64_t()>;

  using QueueOrder = PrioritizedEsThreadPoolExecutor::QueueOrder;
  // QueueOrder::fifo: the es-master-service-fifo bug switch.
  explicit MasterService(sim::Node& node, QueueOrder order = QueueOrder::by_priority);
  ~MasterService();
  MasterService(const MasterService&) = delete;
  MasterService& operator=(const MasterService&) = delete;

  void setClusterStatePublisher(ClusterStatePublisher publisher) { publisher_ = std::move(publisher); }
  void setClusterStateSupplier(ClusterStateSupplier supplier) { supplier_ = std::move(supplier); }
  void setStateUuidSupplier(StateUuidSupplier supplier) { uuids_ = std::move(supplier); }
  void start();

  // The task is its own executor and listener; priority and timeout come from its config().
  void submitStateUpdateTask(std::string source, std::shared_ptr<ClusterStateUpdateTask> task);
  void submitStateUpdateTask(std::string source, std::shared_ptr<ClusterStateTask> task, ClusterStateTaskConfig config,
                             std::shared_ptr<ClusterStateTaskExecutor> executor,
                             std::shared_ptr<ClusterStateTaskListener> listener);
  // Throws EsException(illegal_state) when a task object is already queued under the executor.
  void submitStateUpdateTasks(std::string source, std::vector<TaskAndListener> tasks, ClusterStateTaskConfig config,
                              std::shared_ptr<ClusterStateTaskExecutor> executor);

  std::vector<PendingClusterTask> pendingTasks() const;
  std::size_t numberOfPendingTasks() const { return threadExecutor_.getNumberOfPendingTasks(); }
  ClusterStatePtr state() const { return supplier_(); }
  const TaskBatcher& batcher() const;
  const MasterServiceStats& stats() const { return stats_; }

 private:
  class Batcher;
  struct TaskInputs {
    std::shared_ptr<ClusterStateTaskExecutor> executor;
    std::vector<TaskBatcher::BatchedTaskPtr> updateTasks;
    std::string summary;
  };

  sim::Task<void> runTasks(TaskInputs taskInputs);
  ClusterTasksResult executeTasks(const TaskInputs& taskInputs, const ClusterStatePtr& previousClusterState);
  ClusterStatePtr patchVersions(const ClusterStatePtr& previousClusterState, ClusterStatePtr newClusterState);

  sim::Node& node_;
  PrioritizedEsThreadPoolExecutor threadExecutor_;
  std::unique_ptr<Batcher> batcher_;
  ClusterStatePublisher publisher_;
  ClusterStateSupplier supplier_;
  StateUuidSupplier uuids_;
  MasterServiceStats stats_;
};

}  // namespace es
