// NodeJoinController.JoinTaskExecutor: adds joining nodes to the cluster state, and makes the local
// node master when the batch carries BECOME_MASTER_TASK and no master is known. It runs whether or
// not the local node is master (runOnlyOnMaster is false) and throws NotMasterException for joins
// that reach a node that is neither master nor becoming one. A join of a node already in the state
// still returns a new state object, so that it is published and the joining node learns its master.
#pragma once

#include <memory>
#include <string>

#include "model/es/ClusterStateTask.h"
#include "model/es/ElectMasterService.h"

namespace es {

struct JoinTask final : ClusterStateTask {
  enum class Kind : std::uint8_t { join, become_master, finish_election };
  JoinTask(Kind kind, NodeId node) : kind(kind), node(node) {}
  Kind kind;
  NodeId node;
};

class JoinTaskExecutor final : public ClusterStateTaskExecutor {
 public:
  JoinTaskExecutor(sim::Simulation& sim, NodeId localNode) : sim_(sim), localNode_(localNode) {}
  ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) override;
  bool runOnlyOnMaster() const override { return false; }
  // The joining nodes' names (the election's own two tasks are not really tasks: not listed).
  std::string describeTasks(const std::vector<ClusterStateTask*>& tasks) const override;

 private:
  std::shared_ptr<ClusterState> becomeMasterAndTrimConflictingNodes(const ClusterState& currentState) const;

  sim::Simulation& sim_;
  NodeId localNode_;
};

}  // namespace es
