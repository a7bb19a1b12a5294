// The cluster-task workload (EsConfig::cluster_tasks): while the node believes it is the elected
// master, it submits "put-key" cluster-state update tasks at the configured rate. Task n of node esK
// sets metadata key "key-<n mod keys>" to "esK#<n>" — a change every time, and a different one per
// master, so states of two masters never look alike. With ClusterTasks::sharedExecutor the tasks are
// PutKeyRequests under the workload's one PutKeysExecutor instead of PutKeyTasks of their own, and
// batch.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "model/es/EsConfig.h"
#include "model/es/MasterService.h"
#include "sim/random.h"

namespace es {

// One put: metadata[key] = value. The task object of the shared executor, and what a PutKeyTask
// carries.
class PutKeyRequest final : public ClusterStateTask {
 public:
  PutKeyRequest(std::string key, std::string value) : key_(std::move(key)), value_(std::move(value)) {}
  std::string describeTask() const override { return key_ + "=" + value_; }
  const std::string& key() const { return key_; }
  const std::string& value() const { return value_; }

 private:
  std::string key_;
  std::string value_;
};

// Applies the puts in order to one new state (the later of two writes to a key wins); returns
// `state` itself when none changes anything, so nothing is published.
ClusterStatePtr applyPuts(const ClusterStatePtr& state, const std::vector<const PutKeyRequest*>& requests);

// The per-task workload: one put that is its own executor and listener (a batch of one).
class PutKeyTask final : public ClusterStateUpdateTask {
 public:
  PutKeyTask(std::string key, std::string value, Priority priority) : ClusterStateUpdateTask(priority), request_(std::move(key), std::move(value)) {}
  ClusterStatePtr executeTask(const ClusterStatePtr& currentState) override { return applyPuts(currentState, {&request_}); }
  void onFailure(const std::string& source, const EsException& error) override;
  std::string describeTask() const override { return request_.describeTask(); }

 private:
  PutKeyRequest request_;
};

// The batching key of the shared workload: runs a batch's requests as one applyPuts, and listens to
// their outcome.
class PutKeysExecutor final : public ClusterStateTaskExecutor, public ClusterStateTaskListener {
 public:
  ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) override;
  void onFailure(const std::string& source, const EsException& error) override;
};

class ClusterTaskWorkload {
 public:
  // `rng` and `counter` belong to the node and outlive its incarnations: the task numbering and the
  // draws continue across restarts.
  ClusterTaskWorkload(sim::Node& node, MasterService& masterService, const ClusterTasks& config, sim::Rng& rng, std::uint64_t& counter,
                      std::uint64_t& heldBack, std::function<bool()> localNodeMaster);
  void start();
  std::uint64_t submitted() const { return submitted_; }

 private:
  sim::Task<void> run();

  sim::Node& node_;
  MasterService& masterService_;
  const ClusterTasks& config_;
  sim::Rng& rng_;
  std::uint64_t& counter_;
  std::uint64_t& heldBack_;  // tasks not submitted: the master's queue was at ClusterTasks::pending_tasks_max
  std::function<bool()> localNodeMaster_;
  std::shared_ptr<PutKeysExecutor> sharedExecutor_;  // null unless config.sharedExecutor
  std::uint64_t submitted_ = 0;
};

}  // namespace es
