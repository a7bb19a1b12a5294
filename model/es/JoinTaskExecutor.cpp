#include "model/es/JoinTaskExecutor.h"

#include <algorithm>

#include "sim/node.h"

namespace es {

std::string JoinTaskExecutor::describeTasks(const std::vector<ClusterStateTask*>& tasks) const {
  std::string text;
  for (const ClusterStateTask* task : tasks) {
    const auto* join = static_cast<const JoinTask*>(task);
    if (join->kind != JoinTask::Kind::join) continue;
    if (!text.empty()) text += ", ";
    text += sim_.node(join->node).name();
  }
  return text;
}

std::shared_ptr<ClusterState> JoinTaskExecutor::becomeMasterAndTrimConflictingNodes(const ClusterState& currentState) const {
  ELECTSIM_ASSERT(currentState.masterNodeId == sim::no_node);
  auto state = builder(currentState);
  state->masterNodeId = localNode_;
  state->noMasterBlock = false;
  // Node ids are stable across restarts in the model, so no joining node conflicts with a known one;
  // nodes left from an earlier master are removed later by fault detection.
  return state;
}

ClusterTasksResult JoinTaskExecutor::execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) {
  ClusterTasksResult result;
  auto kindOf = [](ClusterStateTask* task) { return static_cast<JoinTask*>(task)->kind; };
  if (tasks.size() == 1 && kindOf(tasks.front()) == JoinTask::Kind::finish_election) {
    result.resultingState = currentState;
    return result;
  }
  bool becomeMaster = std::any_of(tasks.begin(), tasks.end(), [&](ClusterStateTask* task) { return kindOf(task) == JoinTask::Kind::become_master; });
  std::shared_ptr<ClusterState> newState;
  if (currentState->masterNodeId == sim::no_node && becomeMaster) {
    // No need to count the joins here: the commit of this state's publication needs enough of them.
    newState = becomeMasterAndTrimConflictingNodes(*currentState);
  } else if (!currentState->isLocalNodeElectedMaster(localNode_)) {
    throw EsException(ErrorKind::not_master, "Node [" + sim_.node(localNode_).name() + "] not master for join request");
  } else {
    newState = builder(*currentState);
  }
  for (ClusterStateTask* task : tasks) {
    const auto* join = static_cast<JoinTask*>(task);
    if (join->kind != JoinTask::Kind::join) continue;
    if (!currentState->nodeExists(join->node)) newState->addNode(join->node);
  }
  // A new object either way: it must be published for the joining nodes to learn their master.
  result.resultingState = std::move(newState);
  return result;
}

}  // namespace es
