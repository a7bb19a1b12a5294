// ZenDiscovery's join thread: JoinThreadControl, innerJoinCluster, findMaster, joinElectedMaster,
// and their Elasticsearch 1.x forms (es-2488-local-elect), including 1.x's handleMasterGone.
#include <algorithm>

#include "model/es/ZenDiscovery.h"
#include "sim/trace.h"

namespace es {

namespace {

// A cluster-state update task that makes the local node master if no master is known: Elasticsearch
// 1.x's "zen-disco-join (elected_as_master)", run whether or not the node is master already.
class ElectedAsMasterTask final : public ClusterStateUpdateTask {
 public:
  ElectedAsMasterTask(NodeId localNode, std::function<void(bool elected)> done)
      : ClusterStateUpdateTask(Priority::IMMEDIATE), localNode_(localNode), done_(std::move(done)) {}
  bool runOnlyOnMaster() const override { return false; }
  ClusterStatePtr executeTask(const ClusterStatePtr& currentState) override {
    if (currentState->masterNodeId != sim::no_node) return currentState;  // a master is already in place
    auto state = builder(*currentState);
    state->masterNodeId = localNode_;
    state->noMasterBlock = false;
    return state;
  }
  void onFailure(const std::string&, const EsException&) override {
    if (done_) done_(false);
  }
  void clusterStateProcessed(const std::string&, const ClusterStatePtr&, const ClusterStatePtr& newState) override {
    if (done_) done_(newState->isLocalNodeElectedMaster(localNode_));
  }

 private:
  NodeId localNode_;
  std::function<void(bool)> done_;
};

}  // namespace

// ---- JoinThreadControl ----

bool ZenDiscovery::joinThreadActive() const {
  return joinThreadRunning_ && currentJoinThread_ != 0 && aliveJoinThread_ == currentJoinThread_;
}

void ZenDiscovery::startNewThreadIfNotRunning() {
  if (joinThreadActive()) return;
  node_.spawn(joinThread());
}

bool ZenDiscovery::markThreadAsDone(std::uint64_t thread) {
  if (currentJoinThread_ != thread) return false;
  currentJoinThread_ = 0;
  return true;
}

void ZenDiscovery::markThreadAsDoneAndStartNew(std::uint64_t thread) {
  if (!markThreadAsDone(thread)) return;
  startNewThreadIfNotRunning();
}

void ZenDiscovery::stopRunningThreadAndRejoin(const std::string& reason) {
  currentJoinThread_ = 0;
  rejoin(reason);
}

sim::Task<void> ZenDiscovery::joinThread() {
  std::uint64_t thread = ++joinThreadCounter_;
  if (currentJoinThread_ != 0) co_return;  // another join thread owns the slot
  currentJoinThread_ = thread;
  aliveJoinThread_ = thread;
  struct Alive {
    ZenDiscovery* discovery;
    std::uint64_t thread;
    ~Alive() {
      if (discovery->aliveJoinThread_ == thread) discovery->aliveJoinThread_ = 0;
    }
  } alive{this, thread};
  while (joinThreadRunning_ && joinThreadActive(thread)) {
    bool failed = false;
    try {
      if (legacy()) {
        co_await innerJoinClusterLegacy(thread);
      } else {
        co_await innerJoinCluster(thread);
      }
    } catch (const EsException&) {
      failed = true;  // "unexpected error while joining cluster, trying again"
    }
    if (!failed) co_return;
    // Java retries at once; a failure before the first ping would then spin in one instant.
    co_await node_.sim().sleep(config_.join_retry_delay);
  }
}

// ---- Elasticsearch 6.8 ----

sim::Task<void> ZenDiscovery::innerJoinCluster(std::uint64_t thread) {
  if (nodeJoinController_.accumulatingJoins()) {
    // A context left open by a join thread that was abandoned in findMaster (Java overwrites it).
    nodeJoinController_.stopElectionContext("a new join thread starts");
  }
  nodeJoinController_.startElectionContext();
  std::optional<NodeId> masterNode;
  while (!masterNode && joinThreadActive(thread)) masterNode = co_await findMaster();
  if (!joinThreadActive(thread)) co_return;  // no longer the join thread

  if (*masterNode == node_.id()) {
    int requiredJoins = std::max(0, electMaster_.minimumMasterNodes() - 1);  // we count as one
    node_.sim().trace().emit(node_.id(), "es.elected", {{"master", nameOf(node_.id())}, {"by", "ping"}, {"required_joins", requiredJoins}});
    NodeJoinController::ElectionCallback callback{[this, thread](const ClusterStatePtr&) { markThreadAsDone(thread); },
                                                  [this, thread](const std::string&) { markThreadAsDoneAndStartNew(thread); }};
    co_await nodeJoinController_.waitToBeElectedAsMaster(requiredJoins, config_.waitForJoinsTimeout(), callback);
    co_return;
  }
  node_.sim().trace().emit(node_.id(), "es.elected", {{"master", nameOf(*masterNode)}, {"by", "ping"}, {"required_joins", 0}});
  // Joins sent to us fail from now on: we are not the master.
  nodeJoinController_.stopElectionContext(nameOf(*masterNode) + " elected");
  bool success = co_await joinElectedMaster(*masterNode);
  finalizeJoin(thread, *masterNode, success);
}

void ZenDiscovery::finalizeJoin(std::uint64_t thread, NodeId masterNode, bool success) {
  if (!success) {
    markThreadAsDoneAndStartNew(thread);  // failed to join: try again
    return;
  }
  NodeId currentMasterNode = committedState_->masterNodeId;
  if (currentMasterNode == sim::no_node) {
    // The master publishes a state with us before it acks the join: we should know it by now.
    markThreadAsDoneAndStartNew(thread);
  } else if (currentMasterNode != masterNode) {
    stopRunningThreadAndRejoin("master_switched_while_finalizing_join");
  }
  markThreadAsDone(thread);
}

sim::Task<std::optional<NodeId>> ZenDiscovery::findMaster() {
  std::vector<PingResponse> pingResponses = co_await zenPing_.ping(config_.ping_timeout);
  std::size_t answered = pingResponses.size();
  pingResponses.push_back(zenPing_.createPingResponse());  // add ourselves

  // Masters other nodes follow. Not ourselves: we must not elect ourselves on our own word.
  std::vector<NodeId> activeMasters;
  std::vector<ElectMasterService::MasterCandidate> masterCandidates;
  for (const PingResponse& response : pingResponses) {
    if (response.master != sim::no_node && response.master != node_.id()) activeMasters.push_back(response.master);
    masterCandidates.push_back(ElectMasterService::MasterCandidate{response.node, response.clusterStateVersion});
  }
  // The setting behind the decision below, for the narration (an observation: not hashed).
  node_.sim().trace().observe(node_.id(), "why.es_ping", {{"minimum_master_nodes", electMaster_.minimumMasterNodes()}, {"legacy", false}});
  node_.sim().trace().emit(node_.id(), "es.ping",
                           {{"responses", static_cast<std::uint64_t>(answered)},
                            {"active_masters", static_cast<std::uint64_t>(activeMasters.size())},
                            {"candidates", static_cast<std::uint64_t>(masterCandidates.size())}});
  if (!activeMasters.empty()) co_return electMaster_.tieBreakActiveMasters(activeMasters);
  if (!electMaster_.hasEnoughCandidates(masterCandidates)) co_return std::nullopt;  // "not enough master nodes discovered during pinging"
  co_return electMaster_.electMaster(masterCandidates).node;
}

sim::Task<bool> ZenDiscovery::joinElectedMaster(NodeId masterNode) {
  if (!co_await transport_.connectToNode(masterNode)) {
    node_.sim().trace().emit(node_.id(), "es.join", {{"master", nameOf(masterNode)}, {"ok", false}, {"error", errorName(ErrorKind::connect_transport)}});
    co_return false;
  }
  int joinAttempt = 0;  // retried while the master is not master yet
  while (true) {
    TransportResponse response = co_await membership_.sendJoinRequestBlocking(masterNode, config_.joinTimeout());
    node_.sim().trace().emit(node_.id(), "es.join", {{"master", nameOf(masterNode)}, {"ok", response.ok()}, {"error", errorName(response.error)}});
    if (response.ok()) co_return true;
    if (response.error != ErrorKind::not_master) co_return false;
    if (++joinAttempt == config_.join_retry_attempts) co_return false;
    co_await node_.sim().sleep(config_.join_retry_delay);
  }
}

// ---- Elasticsearch 1.x (es-2488-local-elect) ----

sim::Task<void> ZenDiscovery::innerJoinClusterLegacy(std::uint64_t thread) {
  std::optional<NodeId> masterNode;
  while (!masterNode && joinThreadActive(thread)) masterNode = co_await findMasterLegacy();
  if (!joinThreadActive(thread)) co_return;
  node_.sim().trace().emit(node_.id(), "es.elected", {{"master", nameOf(*masterNode)}, {"by", "ping"}, {"required_joins", 0}});
  if (*masterNode == node_.id()) {
    // No waiting for joins: the node makes itself master at once.
    masterService_.submitStateUpdateTask("zen-disco-join (elected_as_master)",
                                         std::make_shared<ElectedAsMasterTask>(node_.id(), [this, thread](bool elected) {
                                           if (elected) {
                                             markThreadAsDone(thread);
                                           } else {
                                             markThreadAsDoneAndStartNew(thread);
                                           }
                                         }));
    co_return;
  }
  bool success = co_await joinElectedMaster(*masterNode);
  finalizeJoin(thread, *masterNode, success);
}

sim::Task<std::optional<NodeId>> ZenDiscovery::findMasterLegacy() {
  std::vector<PingResponse> pingResponses = co_await zenPing_.ping(config_.ping_timeout);
  std::vector<NodeId> pingMasters;
  std::vector<NodeId> possibleMasterNodes{node_.id()};
  for (const PingResponse& response : pingResponses) {
    if (response.master != sim::no_node && response.master != node_.id()) pingMasters.push_back(response.master);
    possibleMasterNodes.push_back(response.node);
  }
  node_.sim().trace().observe(node_.id(), "why.es_ping", {{"minimum_master_nodes", electMaster_.minimumMasterNodes()}, {"legacy", true}});
  node_.sim().trace().emit(node_.id(), "es.ping",
                           {{"responses", static_cast<std::uint64_t>(pingResponses.size())},
                            {"active_masters", static_cast<std::uint64_t>(pingMasters.size())},
                            {"candidates", static_cast<std::uint64_t>(possibleMasterNodes.size())}});
  if (!pingMasters.empty()) co_return electMaster_.electMasterByNodeId(pingMasters);
  if (!electMaster_.hasEnoughMasterNodes(possibleMasterNodes)) co_return std::nullopt;
  co_return electMaster_.electMasterByNodeId(possibleMasterNodes);
}

void ZenDiscovery::handleMasterGoneLegacy(NodeId masterNode, const std::string& reason) {
  if (localNodeMaster()) return;
  if (masterNode != committedState_->masterNodeId) return;  // the master got switched on us
  // Make sure the old master, which has failed, is not part of the nodes we elect from.
  auto withoutMaster = builder(*committedState_);
  withoutMaster->removeNode(masterNode);
  withoutMaster->masterNodeId = sim::no_node;
  withoutMaster->noMasterBlock = true;
  withoutMaster->origin = ClusterState::Origin::local;
  pendingStatesQueue_.failAllStatesAndClear(EsException(ErrorKind::elasticsearch, "master left"));
  if (!electMaster_.hasEnoughMasterNodes(withoutMaster->nodes)) {
    setCommittedState(withoutMaster, reason);
    submitNewClusterStateToApplier("zen-disco-master_failed", withoutMaster, false);
    rejoin("not enough master nodes after master left (reason = " + reason + ")");
    return;
  }
  // The bug of issue #2488: elect from the local, possibly stale, node list, without pinging.
  NodeId electedMaster = electMaster_.electMasterByNodeId(withoutMaster->nodes);
  node_.sim().trace().emit(node_.id(), "es.elected", {{"master", nameOf(electedMaster)}, {"by", "local"}, {"required_joins", 0}});
  if (electedMaster == node_.id()) {
    masterFD_.stop("got elected as new master since master left (reason = " + reason + ")");
    setCommittedState(withoutMaster, reason);
    submitNewClusterStateToApplier("zen-disco-master_failed", withoutMaster, false);
    masterService_.submitStateUpdateTask("zen-disco-master_failed (" + nameOf(masterNode) + ")",
                                         std::make_shared<ElectedAsMasterTask>(node_.id(), nullptr));
    return;
  }
  nodesFD_.stop();
  auto followElected = builder(*withoutMaster);
  followElected->masterNodeId = electedMaster;
  followElected->noMasterBlock = false;
  setCommittedState(followElected, reason);
  submitNewClusterStateToApplier("zen-disco-master_failed", followElected, false);
  masterFD_.restart(electedMaster, "possible elected master since master left (reason = " + reason + ")");
}

}  // namespace es
