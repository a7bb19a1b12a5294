#include "model/es/PublishClusterStateAction.h"

#include <algorithm>

#include "sim/trace.h"

namespace es {

// PublishClusterStateAction.SendingController, with the BlockingClusterStatePublishResponseHandler
// it owns: coordinates the acks of the send phase, decides commit or failure once, and counts the
// nodes that have answered the publication as a whole.
class PublishClusterStateAction::SendingController : public std::enable_shared_from_this<SendingController> {
 public:
  SendingController(PublishClusterStateAction& action, ClusterStatePtr clusterState, int minMasterNodes, int totalMasterNodes,
                    std::vector<NodeId> nodesToPublishTo, bool singlePhase)
      : action_(action),
        clusterState_(std::move(clusterState)),
        singlePhase_(singlePhase),
        neededMastersToCommit_(singlePhase ? 0 : std::max(0, minMasterNodes - 1)),  // we are one of the master nodes
        pendingMasterNodes_(totalMasterNodes - 1),
        committedOrFailed_(action.node_.sim()),
        pendingNodes_(std::move(nodesToPublishTo)),
        allNodesResponded_(action.node_.sim()) {
    if (neededMastersToCommit_ > pendingMasterNodes_) {
      throw EsException(ErrorKind::failed_to_commit, "not enough masters to ack sent cluster state. [" +
                                                         std::to_string(neededMastersToCommit_) + "] needed , have [" +
                                                         std::to_string(pendingMasterNodes_) + "]");
    }
    committed_ = neededMastersToCommit_ == 0;
    if (committed_) committedOrFailed_.set();
    if (pendingNodes_.empty()) allNodesResponded_.set();
  }

  const ClusterStatePtr& clusterState() const { return clusterState_; }
  bool isCommitted() const { return committed_; }
  bool publishingTimedOut() const { return publishingTimedOut_; }
  void setPublishingTimedOut(bool timedOut) { publishingTimedOut_ = timedOut; }
  const std::vector<NodeId>& pendingNodes() const { return pendingNodes_; }
  const std::vector<NodeId>& failedNodes() const { return failedNodes_; }

  // Throws FailedToCommitClusterStateException unless committed within the timeout.
  sim::Task<void> waitForCommit(sim::Duration commitTimeout) {
    bool decided = co_await committedOrFailed_.wait_for(commitTimeout);
    bool timedOut = !decided;
    if (timedOut) markAsFailed("timed out waiting for commit (commit timeout [" + sim::format_duration(commitTimeout) + "])");
    if (!committed_) {
      throw EsException(ErrorKind::failed_to_commit, std::string(timedOut ? "timed out while waiting for" : "failed to get") +
                                                         " enough masters to ack sent cluster state. [" +
                                                         std::to_string(neededMastersToCommit_) + "] left");
    }
  }

  sim::Task<bool> awaitAllNodes(sim::Duration timeout) { co_return co_await allNodesResponded_.wait_for(timeout); }

  void onNodeSendAck(NodeId node) {
    if (singlePhase_) {
      onResponse(node);  // 1.x: the node has applied it; there is no second phase
    } else if (committed_) {
      action_.node_.spawn(action_.sendCommitToNode(shared_from_this(), node));
    } else if (committedOrFailed_.is_set()) {
      // "ignoring ack from [...] for cluster state version [...]. already failed"
    } else {
      sendAckedBeforeCommit_.push_back(node);
      checkForCommitOrFailIfNoPending(node);  // every node of the model is master-eligible
    }
  }

  void onNodeSendFailed(NodeId node) {
    decrementPendingMasterAcksAndChangeForFailure();
    onFailure(node);
  }

  // BlockingClusterStatePublishResponseHandler.onResponse / onFailure
  void onResponse(NodeId node) { countDown(node); }
  void onFailure(NodeId node) {
    failedNodes_.push_back(node);
    countDown(node);
  }

 private:
  void checkForCommitOrFailIfNoPending(NodeId masterNode) {
    (void)masterNode;
    neededMastersToCommit_--;
    if (neededMastersToCommit_ == 0 && markAsCommitted()) {
      for (NodeId nodeToCommit : sendAckedBeforeCommit_) {
        action_.node_.spawn(action_.sendCommitToNode(shared_from_this(), nodeToCommit));
      }
      sendAckedBeforeCommit_.clear();
    }
    decrementPendingMasterAcksAndChangeForFailure();
  }

  void decrementPendingMasterAcksAndChangeForFailure() {
    pendingMasterNodes_--;
    if (pendingMasterNodes_ == 0 && neededMastersToCommit_ > 0) {
      markAsFailed("no more pending master nodes, but failed to reach needed acks ([" + std::to_string(neededMastersToCommit_) + "] left)");
    }
  }

  bool markAsCommitted() {
    if (committedOrFailed_.is_set()) return committed_;
    committed_ = true;
    committedOrFailed_.set();
    return true;
  }

  bool markAsFailed(const std::string& reason) {
    (void)reason;
    if (committedOrFailed_.is_set()) return !committed_;
    committed_ = false;
    committedOrFailed_.set();
    return true;
  }

  void countDown(NodeId node) {
    auto it = std::find(pendingNodes_.begin(), pendingNodes_.end(), node);
    if (it == pendingNodes_.end()) return;
    pendingNodes_.erase(it);
    if (pendingNodes_.empty()) allNodesResponded_.set();
  }

  PublishClusterStateAction& action_;
  ClusterStatePtr clusterState_;
  bool singlePhase_;
  std::vector<NodeId> sendAckedBeforeCommit_;
  bool committed_ = false;
  int neededMastersToCommit_;
  int pendingMasterNodes_;
  bool publishingTimedOut_ = false;
  sim::Signal committedOrFailed_;
  std::vector<NodeId> pendingNodes_;
  std::vector<NodeId> failedNodes_;
  sim::Signal allNodesResponded_;
};

PublishClusterStateAction::PublishClusterStateAction(sim::Node& node, TransportService& transport, IncomingClusterStateListener& listener,
                                                     const EsConfig& config)
    : node_(node), transport_(transport), listener_(listener), config_(config) {
  transport_.registerRequestHandler(Action::publish_send, [this](TransportChannel channel, TransportMessage message) {
    return handleIncomingClusterStateRequest(channel, std::move(message));
  });
  transport_.registerRequestHandler(Action::publish_commit, [this](TransportChannel channel, TransportMessage message) {
    return handleCommitRequest(channel, std::move(message));
  });
}

PublishClusterStateAction::~PublishClusterStateAction() = default;

std::vector<NodeId> PublishClusterStateAction::nodesToPublishTo(const ClusterState& state) const {
  std::vector<NodeId> nodes;
  for (NodeId node : state.nodes) {
    if (node != node_.id()) nodes.push_back(node);
  }
  return nodes;
}

void PublishClusterStateAction::tracePublish(const ClusterState& state, NodeId to, bool diff) const {
  node_.sim().trace().emit(node_.id(), "es.publish", {{"version", state.version}, {"diff", diff}, {"to", node_.sim().node(to).name()}});
}

sim::Task<void> PublishClusterStateAction::publish(ClusterChangedEvent event, int minMasterNodes) {
  InFlight inFlight(publicationsInFlight_);
  const ClusterState& state = *event.state;
  std::vector<NodeId> nodes = nodesToPublishTo(state);
  int totalMasterNodes = static_cast<int>(state.nodes.size());
  bool sendFullVersion = !config_.publish_diff || event.previousState == nullptr;
  // The controller's constructor throws FailedToCommitClusterStateException when too few masters
  // are left to ever commit.
  auto controller = std::make_shared<SendingController>(*this, event.state, minMasterNodes, totalMasterNodes, nodes, false);
  co_await innerPublish(std::move(event), std::move(nodes), std::move(controller), sendFullVersion);
}

sim::Task<void> PublishClusterStateAction::innerPublish(ClusterChangedEvent event, std::vector<NodeId> nodesToPublishTo,
                                                        Controller controller, bool sendFullVersion) {
  const ClusterState& state = *event.state;
  sim::Instant publishingStart = node_.sim().now();
  std::shared_ptr<const ClusterStateDiff> diff;
  for (NodeId node : nodesToPublishTo) {
    // A node that was not in the previous state gets the full state, everyone else a diff.
    bool full = sendFullVersion || !event.previousState->nodeExists(node);
    if (!full && diff == nullptr) diff = std::make_shared<ClusterStateDiff>(ClusterStateDiff::between(*event.previousState, state));
    node_.spawn(sendClusterStateToNode(controller, node, !full, full ? nullptr : diff));
  }

  co_await controller->waitForCommit(config_.commit_timeout);
  node_.sim().trace().emit(node_.id(), "es.commit", {{"version", state.version}, {"hash", state.contentHash()}});

  sim::Duration commitTime = node_.sim().now() - publishingStart;
  sim::Duration timeLeft = std::max(sim::Duration::zero(), config_.publish_timeout - commitTime);
  bool allResponded = co_await controller->awaitAllNodes(timeLeft);
  controller->setPublishingTimedOut(!allResponded);
  if (!allResponded && !controller->pendingNodes().empty()) {
    // "timed out waiting for all nodes to process published state": a warning, not a failure.
    node_.sim().trace().emit(node_.id(), "es.publish_timeout",
                             {{"version", state.version}, {"pending", static_cast<std::uint64_t>(controller->pendingNodes().size())}});
  }
}

sim::Task<void> PublishClusterStateAction::publishSinglePhase(ClusterChangedEvent event) {
  InFlight inFlight(publicationsInFlight_);
  const ClusterState& state = *event.state;
  std::vector<NodeId> nodes = nodesToPublishTo(state);
  auto controller = std::make_shared<SendingController>(*this, event.state, 0, static_cast<int>(state.nodes.size()), nodes, true);
  for (NodeId node : nodes) node_.spawn(sendClusterStateToNode(controller, node, false, nullptr));
  // One phase: the state is in force as soon as it is sent.
  node_.sim().trace().emit(node_.id(), "es.commit", {{"version", state.version}, {"hash", state.contentHash()}});
  bool allResponded = co_await controller->awaitAllNodes(config_.publish_timeout);
  if (!allResponded && !controller->pendingNodes().empty()) {
    node_.sim().trace().emit(node_.id(), "es.publish_timeout",
                             {{"version", state.version}, {"pending", static_cast<std::uint64_t>(controller->pendingNodes().size())}});
  }
}

sim::Task<void> PublishClusterStateAction::sendClusterStateToNode(Controller controller, NodeId node, bool sendDiffs,
                                                                  std::shared_ptr<const ClusterStateDiff> diff) {
  while (true) {
    const ClusterStatePtr& state = controller->clusterState();
    tracePublish(*state, node, sendDiffs);
    PublishRequest request{sendDiffs, sendDiffs ? nullptr : state, sendDiffs ? diff : nullptr};
    // No timeout: the answer is wanted even after publish_timeout.
    TransportResponse response = co_await transport_.sendRequest(node, Action::publish_send, std::move(request), std::nullopt);
    if (response.ok()) {
      controller->onNodeSendAck(node);
      co_return;
    }
    if (sendDiffs && response.error == ErrorKind::incompatible_cluster_state_version) {
      sendDiffs = false;  // "resending full cluster state to node"
      continue;
    }
    controller->onNodeSendFailed(node);
    co_return;
  }
}

sim::Task<void> PublishClusterStateAction::sendCommitToNode(Controller controller, NodeId node) {
  CommitRequest request{controller->clusterState()->stateUUID};
  TransportResponse response = co_await transport_.sendRequest(node, Action::publish_commit, request, std::nullopt);
  if (response.ok()) {
    controller->onResponse(node);
  } else {
    controller->onFailure(node);
  }
}

sim::Task<void> PublishClusterStateAction::handleIncomingClusterStateRequest(TransportChannel channel, TransportMessage message) {
  const auto& request = std::get<PublishRequest>(message.payload);
  ClusterStatePtr incomingState;
  if (!request.diff) {
    incomingState = request.fullState;
    stats_.fullClusterStateReceivedCount++;
  } else if (lastSeenClusterState_ != nullptr) {
    try {
      incomingState = request.delta->apply(*lastSeenClusterState_);
      stats_.compatibleClusterStateDiffReceivedCount++;
    } catch (const EsException& error) {
      stats_.incompatibleClusterStateDiffReceivedCount++;
      transport_.sendError(channel, error.kind());
      co_return;
    }
  } else {
    // "received diff for but don't have any local cluster state - requesting full state"
    stats_.incompatibleClusterStateDiffReceivedCount++;
    transport_.sendError(channel, ErrorKind::incompatible_cluster_state_version);
    co_return;
  }
  try {
    listener_.onIncomingClusterState(incomingState);
  } catch (const EsException& error) {
    transport_.sendError(channel, error.kind());
    co_return;
  }
  lastSeenClusterState_ = incomingState;
  transport_.sendResponse(channel);
}

sim::Task<void> PublishClusterStateAction::handleCommitRequest(TransportChannel channel, TransportMessage message) {
  const auto& request = std::get<CommitRequest>(message.payload);
  TransportService* transport = &transport_;
  // Answered once the state has been applied (or failed).
  listener_.onClusterStateCommitted(request.stateUUID,
                                    CommitListener{[transport, channel] { transport->sendResponse(channel); },
                                                   [transport, channel](const EsException& error) { transport->sendError(channel, error.kind()); }});
  co_return;
}

}  // namespace es
