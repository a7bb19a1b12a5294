// The vocabulary of cluster-state update tasks (org.elasticsearch.cluster): a task object whose
// identity matters (ClusterStateTask), its configuration (priority, timeout), the executor that
// turns the current state and a batch of tasks into a new state (ClusterStateTaskExecutor, the
// batching key), the listener told of the outcome, and ClusterStateUpdateTask, the usual task that
// is all three at once.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/es/ClusterState.h"
#include "model/es/EsException.h"
#include "model/es/Priority.h"
#include "sim/time.h"

namespace es {

struct ClusterChangedEvent {
  std::string source;
  ClusterStatePtr state;
  ClusterStatePtr previousState;
  bool nodesChanged() const { return previousState == nullptr || previousState->nodes != state->nodes; }
};

struct ClusterStateTaskConfig {
  Priority priority = Priority::NORMAL;
  std::optional<sim::Duration> timeout;  // how long it may wait in the queue before failing
};

// A task: what the executor receives. Only its identity (the object) matters to the batcher.
class ClusterStateTask {
 public:
  virtual ~ClusterStateTask() = default;
  // One word for the pending-tasks view and the batch summary (describeTasks).
  virtual std::string describeTask() const { return {}; }
};

class ClusterStateTaskListener {
 public:
  virtual ~ClusterStateTaskListener() = default;
  virtual void onFailure(const std::string& source, const EsException& error) = 0;
  // The task needed the local node to be master and it is not: by default a failure.
  virtual void onNoLongerMaster(const std::string& source);
  // The resulting state was published and applied (or did not change).
  virtual void clusterStateProcessed(const std::string& source, const ClusterStatePtr& oldState,
                                     const ClusterStatePtr& newState) {
    (void)source, (void)oldState, (void)newState;
  }
};

struct ClusterTasksResult {
  ClusterStatePtr resultingState;
  // Tasks that failed, with why; every other task of the batch succeeded.
  std::vector<std::pair<const ClusterStateTask*, EsException>> failures;
  const EsException* failureOf(const ClusterStateTask* task) const;
};

class ClusterStateTaskExecutor {
 public:
  virtual ~ClusterStateTaskExecutor() = default;
  // Returns the same state object when nothing changed; throwing fails every task of the batch.
  virtual ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) = 0;
  virtual bool runOnlyOnMaster() const { return true; }
  virtual void clusterStatePublished(const ClusterChangedEvent& event) { (void)event; }
  virtual std::string describeTasks(const std::vector<ClusterStateTask*>& tasks) const;
};

// The common case: one task that is its own task, executor (so it never batches with another) and
// listener. Subclasses implement executeTask, Java's execute(ClusterState).
class ClusterStateUpdateTask : public ClusterStateTask, public ClusterStateTaskExecutor, public ClusterStateTaskListener {
 public:
  explicit ClusterStateUpdateTask(Priority priority = Priority::NORMAL, std::optional<sim::Duration> timeout = std::nullopt)
      : config_{priority, timeout} {}
  // Returns currentState itself when nothing changes.
  virtual ClusterStatePtr executeTask(const ClusterStatePtr& currentState) = 0;
  ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) final;
  const ClusterStateTaskConfig& config() const { return config_; }

 private:
  ClusterStateTaskConfig config_;
};

using TaskAndListener = std::pair<std::shared_ptr<ClusterStateTask>, std::shared_ptr<ClusterStateTaskListener>>;

}  // namespace es
