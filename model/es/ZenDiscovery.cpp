#include "model/es/ZenDiscovery.h"

#include "sim/trace.h"

namespace es {

namespace {

struct NodeRemovalTask final : ClusterStateTask {
  NodeRemovalTask(NodeId node, std::string reason) : node(node), reason(std::move(reason)) {}
  NodeId node;
  std::string reason;
};

// ZenDiscovery.ZenNodeRemovalClusterStateTaskExecutor: removes failed nodes; a master left with
// too few master-eligible nodes rejoins instead (and the state stays as it was).
class NodeRemovalExecutor final : public ClusterStateTaskExecutor {
 public:
  NodeRemovalExecutor(sim::Simulation& sim, const ElectMasterService& electMaster, std::function<void(const std::string&)> rejoin)
      : sim_(sim), electMaster_(electMaster), rejoin_(std::move(rejoin)) {}

  ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) override {
    ClusterTasksResult result;
    result.resultingState = currentState;
    auto remaining = builder(*currentState);
    bool removed = false;
    for (ClusterStateTask* task : tasks) {
      NodeId node = static_cast<NodeRemovalTask*>(task)->node;
      if (currentState->nodeExists(node)) {
        remaining->removeNode(node);
        removed = true;
      }
    }
    if (!removed) return result;
    if (!electMaster_.hasEnoughMasterNodes(remaining->nodes)) {
      rejoin_("not enough master nodes (has [" + std::to_string(electMaster_.countMasterNodes(remaining->nodes)) + "], but needed [" +
              std::to_string(electMaster_.minimumMasterNodes()) + "])");
      return result;
    }
    result.resultingState = std::move(remaining);
    return result;
  }
  std::string describeTasks(const std::vector<ClusterStateTask*>& tasks) const override {
    std::string text;
    for (const ClusterStateTask* task : tasks) {
      if (!text.empty()) text += ", ";
      text += sim_.node(static_cast<const NodeRemovalTask*>(task)->node).name();
    }
    return text;
  }

 private:
  sim::Simulation& sim_;
  const ElectMasterService& electMaster_;
  std::function<void(const std::string&)> rejoin_;
};

struct IgnoringListener final : ClusterStateTaskListener {
  void onFailure(const std::string&, const EsException&) override {}
  void onNoLongerMaster(const std::string&) override {}
};

}  // namespace

ZenDiscovery::ZenDiscovery(sim::Node& node, TransportService& transport, MasterService& masterService, ClusterApplierService& clusterApplier,
                           const EsConfig& config, std::vector<NodeId> seedNodes, std::uint64_t initialStateUuid)
    : node_(node),
      transport_(transport),
      masterService_(masterService),
      clusterApplier_(clusterApplier),
      config_(config),
      electMaster_(config.minimum_master_nodes),
      zenPing_(node, transport, std::move(seedNodes),
               [this] { return std::make_pair(committedState_->masterNodeId, committedState_->pingVersion()); }),
      masterFD_(node, transport, masterService, config, [this] { return clusterState(); }),
      nodesFD_(node, transport, config, [this] { return clusterState(); }),
      pendingStatesQueue_(config.max_pending_cluster_states,
                          [this](const ClusterState& dropped) {
                            node_.sim().trace().emit(node_.id(), "es.pending_dropped", {{"version", dropped.version}, {"master", nameOf(dropped.masterNodeId)}});
                          }),
      publishClusterState_(node, transport, *this, config),
      membership_(node, transport),
      nodeJoinController_(node, masterService),
      nodeRemovalExecutor_(std::make_shared<NodeRemovalExecutor>(node.sim(), electMaster_, [this](const std::string& reason) { rejoin(reason); })),
      initialStateUuid_(initialStateUuid) {
  masterFD_.setListener([this](NodeId masterNode, const std::string& reason) {
    if (legacy()) {
      handleMasterGoneLegacy(masterNode, reason);
    } else {
      handleMasterGone(masterNode, reason);
    }
  });
  nodesFD_.setListeners([this](NodeId failed, const std::string& reason) { handleNodeFailure(failed, reason); },
                        [this](const NodesPingRequest& request) { onPingReceived(request); });
  membership_.setJoinHandler([this](NodeId joining, NodeJoinController::JoinCallback callback) { return handleJoinRequest(joining, std::move(callback)); });
  transport_.registerRequestHandler(Action::rejoin, [this](TransportChannel channel, TransportMessage message) {
    return handleRejoinRequest(channel, std::move(message));
  });
  masterService_.setClusterStateSupplier([this] { return clusterState(); });
  masterService_.setClusterStatePublisher([this](ClusterChangedEvent event) { return publish(std::move(event)); });
}

ZenDiscovery::~ZenDiscovery() = default;

const std::string& ZenDiscovery::nameOf(NodeId node) const {
  static const std::string none;
  return node == sim::no_node ? none : node_.sim().node(node).name();
}

void ZenDiscovery::doStart() {
  auto initialState = std::make_shared<ClusterState>();
  initialState->stateUUID = initialStateUuid_;
  initialState->nodes = {node_.id()};
  initialState->stateNotRecovered = true;
  initialState->noMasterBlock = true;
  committedState_ = initialState;
  clusterApplier_.setInitialState(initialState);
  joinThreadRunning_ = true;  // joinThreadControl.start()
}

void ZenDiscovery::startInitialJoin() { startNewThreadIfNotRunning(); }

void ZenDiscovery::setCommittedState(ClusterStatePtr state, const std::string& reason) {
  bool wasMaster = committedState_ != nullptr && committedState_->isLocalNodeElectedMaster(node_.id());
  committedState_ = std::move(state);
  bool isMaster = committedState_->isLocalNodeElectedMaster(node_.id());
  if (wasMaster == isMaster) return;
  std::string what = isMaster ? "elected master, version " + std::to_string(committedState_->version) : "stepped down: " + reason;
  node_.sim().trace().emit(node_.id(), "es.master", {{"master", isMaster}, {"version", committedState_->version}, {"what", what}});
}

sim::Task<void> ZenDiscovery::publish(ClusterChangedEvent event) {
  ClusterStatePtr newState = event.state;
  ELECTSIM_ASSERT_MSG(newState->isLocalNodeElectedMaster(node_.id()), "Shouldn't publish state when not master " + event.source);
  // The state changed locally while the task ran (another master published to us, say).
  if (event.previousState != committedState_) throw EsException(ErrorKind::failed_to_commit, "state was mutated while calculating new CS update");
  pendingStatesQueue_.addPending(newState);
  // The setting the commit below depends on, for the narration (an observation: not hashed).
  node_.sim().trace().observe(node_.id(), "why.es_publish",
                              {{"version", newState->version}, {"minimum_master_nodes", electMaster_.minimumMasterNodes()}, {"legacy", legacy()}});

  std::optional<EsException> failure;
  try {
    if (legacy()) {
      co_await publishClusterState_.publishSinglePhase(event);
    } else {
      co_await publishClusterState_.publish(event, electMaster_.minimumMasterNodes());
    }
  } catch (const EsException& error) {
    if (error.kind() != ErrorKind::failed_to_commit) throw;
    failure = error;
  }
  if (failure) {
    node_.sim().trace().emit(node_.id(), "es.publish_failed", {{"version", newState->version}, {"reason", failure->what()}});
    pendingStatesQueue_.failAllStatesAndClear(EsException(ErrorKind::elasticsearch, "failed to publish cluster state"));
    rejoin("zen-disco-failed-to-publish");
    throw *failure;
  }

  auto outcome = std::make_shared<sim::Promise<bool>>();
  sim::Future<bool> processed = outcome->get_future();
  pendingStatesQueue_.markAsCommitted(newState->stateUUID,
                                      PendingClusterStatesQueue::StateProcessedListener{[outcome] {
                                                                                          if (!outcome->fulfilled()) outcome->set_value(true);
                                                                                        },
                                                                                        [outcome](const EsException&) {
                                                                                          if (!outcome->fulfilled()) outcome->set_value(false);
                                                                                        }});
  if (event.previousState != committedState_) {
    throw EsException(ErrorKind::failed_to_commit, "local state was mutated while CS update was published to other nodes");
  }
  bool sentToApplier = processNextCommittedClusterState("master " + nameOf(node_.id()) + " committed version [" +
                                                        std::to_string(newState->version) + "] source [" + event.source + "]");
  if (!sentToApplier && !processed.ready()) {
    throw EsException(ErrorKind::failed_to_commit, "cluster state that is published locally has neither been processed nor failed");
  }
  bool applied = co_await processed.wait(node_.sim());
  if (!applied) throw EsException(ErrorKind::failed_to_commit, "failed while applying cluster state locally");
}

bool ZenDiscovery::shouldIgnoreOrRejectNewClusterState(const ClusterState& currentState, const ClusterState& newClusterState, bool anyMaster) {
  if (anyMaster) {
    // Elasticsearch 1.x: only an older state from the same master is ignored.
    return newClusterState.masterNodeId == currentState.masterNodeId && newClusterState.version <= currentState.version;
  }
  // validateStateIsFromCurrentMaster
  if (currentState.masterNodeId != sim::no_node && currentState.masterNodeId != newClusterState.masterNodeId) {
    throw EsException(ErrorKind::illegal_state, "cluster state from a different master than the current one, rejecting");
  }
  if (currentState.supersedes(newClusterState) ||
      (newClusterState.masterNodeId == currentState.masterNodeId && currentState.version == newClusterState.version)) {
    return true;  // not newer than the current one
  }
  // reject older cluster states if we are following a master
  return currentState.masterNodeId != sim::no_node && newClusterState.version < currentState.version;
}

void ZenDiscovery::validateIncomingState(const ClusterState& incomingState) const {
  if (!incomingState.nodeExists(node_.id())) {
    throw EsException(ErrorKind::illegal_state, "received state with a local node that does not match the current local node");
  }
  if (shouldIgnoreOrRejectNewClusterState(*committedState_, incomingState, false)) {
    throw EsException(ErrorKind::illegal_state, "rejecting cluster state version [" + std::to_string(incomingState.version) + "] received from [" +
                                                    nameOf(incomingState.masterNodeId) + "]");
  }
}

void ZenDiscovery::onIncomingClusterState(const ClusterStatePtr& incomingState) {
  if (legacy()) {
    // Elasticsearch 1.x: no commit phase and no check of the sender against the current master.
    pendingStatesQueue_.addPending(incomingState);
    pendingStatesQueue_.markAsCommitted(incomingState->stateUUID, PendingClusterStatesQueue::StateProcessedListener{[] {}, [](const EsException&) {}});
    processNextCommittedClusterState("zen-disco-receive(from master [" + nameOf(incomingState->masterNodeId) + "])");
    return;
  }
  validateIncomingState(*incomingState);
  pendingStatesQueue_.addPending(incomingState);
}

void ZenDiscovery::onClusterStateCommitted(std::uint64_t stateUUID, PublishClusterStateAction::CommitListener processedListener) {
  ClusterStatePtr state;
  try {
    state = pendingStatesQueue_.markAsCommitted(stateUUID, PendingClusterStatesQueue::StateProcessedListener{processedListener.onResponse,
                                                                                                              processedListener.onFailure});
  } catch (const EsException& error) {
    processedListener.onFailure(error);
    return;
  }
  // An unknown state (dropped, or cleared when the master left) is never answered, as in Java.
  if (state == nullptr) return;
  processNextCommittedClusterState("master " + nameOf(state->masterNodeId) + " committed version [" + std::to_string(state->version) + "]");
}

bool ZenDiscovery::processNextCommittedClusterState(const std::string& reason) {
  ClusterStatePtr newClusterState = pendingStatesQueue_.getNextClusterStateToProcess();
  ClusterStatePtr currentState = committedState_;
  if (newClusterState == nullptr) return false;  // all pending states have been processed
  ELECTSIM_ASSERT_MSG(newClusterState->masterNodeId != sim::no_node, "received a cluster state without a master");
  ELECTSIM_ASSERT_MSG(!newClusterState->noMasterBlock, "received a cluster state with a master block");

  if (currentState->isLocalNodeElectedMaster(node_.id()) && !newClusterState->isLocalNodeElectedMaster(node_.id())) {
    handleAnotherMaster(currentState, newClusterState->masterNodeId, newClusterState->version, "via a new cluster state");
    return false;
  }
  std::optional<EsException> rejection;
  try {
    if (shouldIgnoreOrRejectNewClusterState(*currentState, *newClusterState, legacy())) {
      rejection = EsException(ErrorKind::illegal_state, "rejecting cluster state version [" + std::to_string(newClusterState->version) + "]");
    }
  } catch (const EsException& error) {
    rejection = error;
  }
  if (rejection) {
    try {
      pendingStatesQueue_.markAsFailed(*newClusterState, *rejection);
    } catch (const EsException&) {
      // "unexpected exception while failing"
    }
    return false;
  }
  if (currentState == newClusterState) return false;

  setCommittedState(newClusterState, reason);
  // Fault detection follows the state: as master, ping its nodes; else watch the right master.
  if (newClusterState->isLocalNodeElectedMaster(node_.id())) {
    nodesFD_.updateNodesAndPing(*newClusterState);
  } else if (masterFD_.masterNode() != newClusterState->masterNodeId) {
    masterFD_.restart(newClusterState->masterNodeId, "new cluster state received and we are monitoring the wrong master");
  }
  submitNewClusterStateToApplier("apply cluster state (from master [" + reason + "])", newClusterState, true);
  return true;
}

void ZenDiscovery::submitNewClusterStateToApplier(const std::string& reason, std::shared_ptr<const ClusterState> newClusterState, bool track) {
  ClusterApplierService::ClusterApplyListener listener;
  if (track) {
    listener.onSuccess = [this, newClusterState](const std::string&) {
      try {
        pendingStatesQueue_.markAsProcessed(*newClusterState);
      } catch (const EsException& error) {
        try {
          pendingStatesQueue_.markAsFailed(*newClusterState, error);
        } catch (const EsException&) {
          // "unexpected exception while failing"
        }
      }
    };
    listener.onFailure = [this, newClusterState](const std::string&, const EsException& error) {
      try {
        pendingStatesQueue_.markAsFailed(*newClusterState, error);
      } catch (const EsException&) {
      }
    };
  }
  clusterApplier_.onNewClusterState(reason, [this] { return clusterState(); }, std::move(listener));
}

void ZenDiscovery::rejoin(const std::string& reason) {
  node_.sim().trace().emit(node_.id(), "es.rejoin", {{"reason", reason}});
  nodesFD_.stop();
  masterFD_.stop(reason);
  startNewThreadIfNotRunning();
  if (committedState_->masterNodeId == sim::no_node) return;
  auto state = builder(*committedState_);
  state->masterNodeId = sim::no_node;
  state->noMasterBlock = true;
  state->origin = ClusterState::Origin::local;
  setCommittedState(state, reason);
  submitNewClusterStateToApplier(reason, state, false);  // don't wait for it to be applied
}

void ZenDiscovery::handleMasterGone(NodeId masterNode, const std::string& reason) {
  if (localNodeMaster()) return;  // a master told us it shut down, then the disconnect: nothing to do
  if (masterNode != committedState_->masterNodeId) return;
  // Flush pending states from the old master, so that it is not set as master again.
  pendingStatesQueue_.failAllStatesAndClear(EsException(ErrorKind::elasticsearch, "master left [" + reason + "]"));
  rejoin("master left (reason = " + reason + ")");
}

void ZenDiscovery::handleNodeFailure(NodeId node, const std::string& reason) {
  if (!localNodeMaster()) return;
  masterService_.submitStateUpdateTask("zen-disco-node-failed(" + nameOf(node) + "), reason(" + reason + ")",
                                       std::make_shared<NodeRemovalTask>(node, reason), ClusterStateTaskConfig{Priority::IMMEDIATE, std::nullopt},
                                       nodeRemovalExecutor_, std::make_shared<IgnoringListener>());
}

void ZenDiscovery::handleAnotherMaster(const ClusterStatePtr& localClusterState, NodeId otherMaster, std::int64_t otherClusterStateVersion,
                                       const std::string& reason) {
  ELECTSIM_ASSERT(localClusterState->isLocalNodeElectedMaster(node_.id()));
  node_.sim().trace().emit(node_.id(), "es.another_master",
                           {{"other", nameOf(otherMaster)}, {"version", localClusterState->version}, {"other_version", otherClusterStateVersion},
                            {"reason", reason}});
  if (otherClusterStateVersion > localClusterState->version) {
    rejoin("zen-disco-discovered another master with a new cluster_state [" + nameOf(otherMaster) + "][" + reason + "]");
    return;
  }
  // The other master has an older state: tell it to rejoin.
  node_.spawn(sendRejoinRequest(otherMaster));
}

sim::Task<void> ZenDiscovery::sendRejoinRequest(NodeId otherMaster) {
  // Only the request matters; the answer (or its absence) changes nothing.
  (void)co_await transport_.sendRequest(otherMaster, Action::rejoin, RejoinRequest{node_.id()}, config_.fd_ping_timeout);
}

sim::Task<void> ZenDiscovery::handleRejoinRequest(TransportChannel channel, TransportMessage message) {
  NodeId from = std::get<RejoinRequest>(message.payload).fromNode;
  transport_.sendResponse(channel);
  rejoin("received a request to rejoin the cluster from [" + nameOf(from) + "]");
  co_return;
}

void ZenDiscovery::onPingReceived(const NodesPingRequest& pingRequest) {
  if (legacy()) return;  // counting pings from another master came with 1.4
  // A master expects no fault-detection pings: one means there may be two masters.
  if (!localNodeMaster()) {
    pingsWhileMaster_ = 0;
    return;
  }
  if (++pingsWhileMaster_ < config_.max_pings_from_another_master) return;
  ClusterStatePtr currentState = committedState_;
  pingsWhileMaster_ = 0;
  handleAnotherMaster(currentState, pingRequest.masterNode, pingRequest.clusterStateVersion, "node fd ping");
}

sim::Task<void> ZenDiscovery::handleJoinRequest(NodeId node, NodeJoinController::JoinCallback callback) {
  // Connect back to the joining node and validate before accepting the join.
  bool connected = co_await transport_.connectToNode(node);
  if (!connected) {
    callback.onFailure(EsException(ErrorKind::connect_transport, "failed to connect to " + nameOf(node)));
    co_return;
  }
  TransportResponse validated = co_await membership_.sendValidateJoinRequestBlocking(node, clusterState(), config_.joinTimeout());
  if (!validated.ok()) {
    callback.onFailure(EsException(ErrorKind::illegal_state, "failure when sending a validation request to node"));
    co_return;
  }
  try {
    nodeJoinController_.handleJoinRequest(node, callback);
  } catch (const EsException& error) {
    callback.onFailure(error);
  }
}

}  // namespace es
