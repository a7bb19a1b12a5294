#include "model/es/PendingClusterStatesQueue.h"

#include "sim/assert.h"

namespace es {

PendingClusterStatesQueue::ClusterStateContext* PendingClusterStatesQueue::findState(std::uint64_t stateUUID) {
  for (ClusterStateContext& context : pendingStates_) {
    if (context.state->stateUUID == stateUUID) return &context;
  }
  return nullptr;
}

void PendingClusterStatesQueue::addPending(ClusterStatePtr state) {
  ELECTSIM_ASSERT(state != nullptr);
  pendingStates_.push_back(ClusterStateContext{std::move(state), std::nullopt});
  if (pendingStates_.size() <= maxQueueSize_) return;
  // "dropping pending state [...]. more than [25] pending states."
  ClusterStateContext dropped = std::move(pendingStates_.front());
  pendingStates_.pop_front();
  if (onDrop_) onDrop_(*dropped.state);
  if (dropped.committed()) {
    dropped.listener->onNewClusterStateFailed(EsException(ErrorKind::elasticsearch, "too many pending states"));
  }
}

ClusterStatePtr PendingClusterStatesQueue::markAsCommitted(std::uint64_t stateUUID, StateProcessedListener listener) {
  ClusterStateContext* context = findState(stateUUID);
  if (context == nullptr) return nullptr;  // "received a cluster state commit for an unknown cluster state"
  if (context->committed()) throw EsException(ErrorKind::illegal_state, "found duplicate commit");
  context->listener = std::move(listener);
  return context->state;
}

void PendingClusterStatesQueue::markAsFailed(const ClusterState& state, const EsException& reason) {
  ClusterStateContext* failed = findState(state.stateUUID);
  if (failed == nullptr) throw EsException(ErrorKind::illegal_state, "can't resolve failed cluster state");
  if (!failed->committed()) throw EsException(ErrorKind::illegal_state, "failed cluster state is not committed");
  std::vector<StateProcessedListener> toFail;
  std::deque<ClusterStateContext> kept;
  for (ClusterStateContext& pending : pendingStates_) {
    bool batchedWithFailed = pending.state->masterNodeId == state.masterNodeId && pending.state->version <= state.version;
    if (batchedWithFailed && pending.committed()) {
      toFail.push_back(*pending.listener);
      continue;
    }
    if (pending.state->stateUUID == state.stateUUID) continue;
    kept.push_back(std::move(pending));
  }
  pendingStates_ = std::move(kept);
  for (const StateProcessedListener& listener : toFail) listener.onNewClusterStateFailed(reason);
}

void PendingClusterStatesQueue::markAsProcessed(const ClusterState& state) {
  if (findState(state.stateUUID) == nullptr) throw EsException(ErrorKind::illegal_state, "can't resolve processed cluster state");
  ELECTSIM_ASSERT_MSG(state.masterNodeId != sim::no_node, "a processed cluster state has a master");
  std::vector<StateProcessedListener> processed;
  std::vector<StateProcessedListener> rejected;
  std::deque<ClusterStateContext> kept;
  for (ClusterStateContext& pending : pendingStates_) {
    if (pending.state->masterNodeId != state.masterNodeId) {
      // A state from another master: committed ones fail, uncommitted ones are just dropped.
      if (pending.committed()) rejected.push_back(*pending.listener);
    } else if (pending.state->stateUUID == state.stateUUID) {
      ELECTSIM_ASSERT(pending.committed());
      processed.push_back(*pending.listener);
    } else if (state.version >= pending.state->version) {
      // Processed together with the newer state.
      if (pending.committed()) processed.push_back(*pending.listener);
    } else {
      kept.push_back(std::move(pending));
    }
  }
  pendingStates_ = std::move(kept);
  for (const StateProcessedListener& listener : rejected) {
    listener.onNewClusterStateFailed(EsException(ErrorKind::illegal_state, "cluster state from a different master than the current one, rejecting"));
  }
  for (const StateProcessedListener& listener : processed) listener.onNewClusterStateProcessed();
}

ClusterStatePtr PendingClusterStatesQueue::getNextClusterStateToProcess() const {
  std::size_t index = 0;
  for (; index < pendingStates_.size(); index++) {
    if (pendingStates_[index].committed()) break;
  }
  if (index == pendingStates_.size()) return nullptr;
  const ClusterStateContext* stateToProcess = &pendingStates_[index];
  // The highest committed state from the same master, up to the first state from another master.
  for (; index < pendingStates_.size(); index++) {
    const ClusterStateContext& potential = pendingStates_[index];
    if (potential.state->masterNodeId != stateToProcess->state->masterNodeId) break;
    if (potential.committed() && potential.state->version > stateToProcess->state->version) stateToProcess = &potential;
  }
  return stateToProcess->state;
}

void PendingClusterStatesQueue::failAllStatesAndClear(const EsException& reason) {
  std::vector<StateProcessedListener> toFail;
  for (ClusterStateContext& pending : pendingStates_) {
    if (pending.committed()) toFail.push_back(*pending.listener);
  }
  pendingStates_.clear();
  for (const StateProcessedListener& listener : toFail) listener.onNewClusterStateFailed(reason);
}

std::vector<ClusterStatePtr> PendingClusterStatesQueue::pendingClusterStates() const {
  std::vector<ClusterStatePtr> states;
  for (const ClusterStateContext& pending : pendingStates_) states.push_back(pending.state);
  return states;
}

}  // namespace es
