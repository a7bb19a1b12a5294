// PendingClusterStatesQueue: the states a follower received from masters and not yet applied.
// A state enters uncommitted (the send phase), becomes committed when its master's commit arrives,
// and leaves when applied (processed) or failed. Only committed states are processed, and of the
// committed states from one master the highest version is taken (getNextClusterStateToProcess).
// The queue holds at most max_pending_cluster_states (25): adding one more drops the oldest (failing
// it if it was committed).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <vector>

#include "model/es/ClusterState.h"
#include "model/es/EsException.h"

namespace es {

class PendingClusterStatesQueue {
 public:
  struct StateProcessedListener {
    std::function<void()> onNewClusterStateProcessed;
    std::function<void(const EsException&)> onNewClusterStateFailed;
  };
  // Told when a state is dropped because the queue is full (for the trace).
  using DropListener = std::function<void(const ClusterState&)>;

  explicit PendingClusterStatesQueue(std::size_t maxQueueSize, DropListener onDrop = {})
      : maxQueueSize_(maxQueueSize), onDrop_(std::move(onDrop)) {}

  void addPending(ClusterStatePtr state);
  // Marks the state committed; null if unknown (dropped, or never received). Throws on a duplicate commit.
  ClusterStatePtr markAsCommitted(std::uint64_t stateUUID, StateProcessedListener listener);
  // Fails the committed state and every committed state from the same master it batched with.
  void markAsFailed(const ClusterState& state, const EsException& reason);
  // Acknowledges the applied state, and the older committed states from its master it superseded;
  // drops every state from another master.
  void markAsProcessed(const ClusterState& state);
  ClusterStatePtr getNextClusterStateToProcess() const;
  void failAllStatesAndClear(const EsException& reason);

  std::vector<ClusterStatePtr> pendingClusterStates() const;
  std::size_t size() const { return pendingStates_.size(); }
  std::size_t maxQueueSize() const { return maxQueueSize_; }

 private:
  struct ClusterStateContext {
    ClusterStatePtr state;
    std::optional<StateProcessedListener> listener;  // set when committed
    bool committed() const { return listener.has_value(); }
  };
  ClusterStateContext* findState(std::uint64_t stateUUID);

  std::size_t maxQueueSize_;
  DropListener onDrop_;
  std::deque<ClusterStateContext> pendingStates_;
};

}  // namespace es
