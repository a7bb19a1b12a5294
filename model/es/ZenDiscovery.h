// ZenDiscovery (Zen1): how a node finds or becomes the master, follows it, and publishes as master.
//
//  - A join "thread" (JoinThreadControl) runs innerJoinCluster: pinging rounds (findMaster) until a
//    master is chosen — an active master others already follow, else the best candidate by
//    ElectMasterService if enough master-eligible nodes answered; a node that chose itself waits for
//    minimum_master_nodes - 1 joins, any other node sends its join to the chosen master.
//  - The committed state (committedState) is the node's truth; the applier makes it visible.
//  - Master fault detection failing (a follower) or a failed publication or too few master nodes
//    left (a master) leads to rejoin: no master, a new join thread.
//  - Two masters meet through node fault detection pings (max_pings_from_another_master) or a
//    cluster state from the other: the one with the lower cluster-state version rejoins.
//
// Under es-2488-local-elect the pieces that Elasticsearch 1.x had differently are 1.x's: see
// EsBugs and docs/es-model.md.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/es/ClusterApplierService.h"
#include "model/es/ElectMasterService.h"
#include "model/es/EsConfig.h"
#include "model/es/MasterFaultDetection.h"
#include "model/es/MasterService.h"
#include "model/es/MembershipAction.h"
#include "model/es/NodeJoinController.h"
#include "model/es/NodesFaultDetection.h"
#include "model/es/PendingClusterStatesQueue.h"
#include "model/es/PublishClusterStateAction.h"
#include "model/es/TransportService.h"
#include "model/es/UnicastZenPing.h"

namespace es {

class ZenDiscovery final : public PublishClusterStateAction::IncomingClusterStateListener {
 public:
  ZenDiscovery(sim::Node& node, TransportService& transport, MasterService& masterService, ClusterApplierService& clusterApplier,
               const EsConfig& config, std::vector<NodeId> seedNodes, std::uint64_t initialStateUuid);
  ~ZenDiscovery() override;
  ZenDiscovery(const ZenDiscovery&) = delete;
  ZenDiscovery& operator=(const ZenDiscovery&) = delete;

  void doStart();
  void startInitialJoin();

  // The last committed cluster state (what the master service computes on).
  ClusterStatePtr clusterState() const { return committedState_; }
  bool localNodeMaster() const { return committedState_->isLocalNodeElectedMaster(node_.id()); }
  // The publisher of the master service: returns once committed and applied here.
  sim::Task<void> publish(ClusterChangedEvent event);
  bool joiningCluster() const { return joinThreadActive(); }

  // IncomingClusterStateListener
  void onIncomingClusterState(const ClusterStatePtr& incomingState) override;
  void onClusterStateCommitted(std::uint64_t stateUUID, PublishClusterStateAction::CommitListener processedListener) override;

  // For tests and the deployment helper.
  ElectMasterService& electMaster() { return electMaster_; }
  PendingClusterStatesQueue& pendingClusterStatesQueue() { return pendingStatesQueue_; }
  PublishClusterStateAction& publishClusterState() { return publishClusterState_; }
  MasterFaultDetection& masterFD() { return masterFD_; }
  NodesFaultDetection& nodesFD() { return nodesFD_; }

  // ZenDiscovery.shouldIgnoreOrRejectNewClusterState: throws IllegalStateException for a state from
  // another master (unless `anyMaster`, Elasticsearch before 1.4), true for a state to ignore.
  static bool shouldIgnoreOrRejectNewClusterState(const ClusterState& currentState, const ClusterState& newClusterState, bool anyMaster);

 private:
  // ---- the join thread (ZenDiscoveryJoin.cpp) ----
  sim::Task<void> joinThread();
  sim::Task<void> innerJoinCluster(std::uint64_t thread);
  sim::Task<void> innerJoinClusterLegacy(std::uint64_t thread);
  sim::Task<std::optional<NodeId>> findMaster();
  sim::Task<std::optional<NodeId>> findMasterLegacy();
  sim::Task<bool> joinElectedMaster(NodeId masterNode);
  void finalizeJoin(std::uint64_t thread, NodeId masterNode, bool success);
  bool joinThreadActive() const;
  bool joinThreadActive(std::uint64_t thread) const { return joinThreadRunning_ && currentJoinThread_ == thread; }
  void startNewThreadIfNotRunning();
  bool markThreadAsDone(std::uint64_t thread);
  void markThreadAsDoneAndStartNew(std::uint64_t thread);
  void stopRunningThreadAndRejoin(const std::string& reason);
  void handleMasterGoneLegacy(NodeId masterNode, const std::string& reason);

  // ---- the rest (ZenDiscovery.cpp) ----
  void rejoin(const std::string& reason);
  void handleMasterGone(NodeId masterNode, const std::string& reason);
  void handleNodeFailure(NodeId node, const std::string& reason);
  void handleAnotherMaster(const ClusterStatePtr& localClusterState, NodeId otherMaster, std::int64_t otherClusterStateVersion,
                           const std::string& reason);
  void onPingReceived(const NodesPingRequest& pingRequest);
  bool processNextCommittedClusterState(const std::string& reason);
  void validateIncomingState(const ClusterState& incomingState) const;
  sim::Task<void> handleJoinRequest(NodeId node, NodeJoinController::JoinCallback callback);
  sim::Task<void> handleRejoinRequest(TransportChannel channel, TransportMessage message);
  sim::Task<void> sendRejoinRequest(NodeId otherMaster);
  void setCommittedState(ClusterStatePtr state, const std::string& reason);
  void submitNewClusterStateToApplier(const std::string& reason, std::shared_ptr<const ClusterState> newClusterState, bool track);
  const std::string& nameOf(NodeId node) const;
  bool legacy() const { return config_.bugs.local_elect_2488; }

  sim::Node& node_;
  TransportService& transport_;
  MasterService& masterService_;
  ClusterApplierService& clusterApplier_;
  const EsConfig& config_;
  ElectMasterService electMaster_;
  UnicastZenPing zenPing_;
  MasterFaultDetection masterFD_;
  NodesFaultDetection nodesFD_;
  PendingClusterStatesQueue pendingStatesQueue_;
  PublishClusterStateAction publishClusterState_;
  MembershipAction membership_;
  NodeJoinController nodeJoinController_;
  std::shared_ptr<ClusterStateTaskExecutor> nodeRemovalExecutor_;
  ClusterStatePtr committedState_;
  std::uint64_t initialStateUuid_;
  int pingsWhileMaster_ = 0;
  // JoinThreadControl
  bool joinThreadRunning_ = false;
  std::uint64_t currentJoinThread_ = 0;  // 0: none
  std::uint64_t aliveJoinThread_ = 0;    // the join coroutine that is still running, if any
  std::uint64_t joinThreadCounter_ = 0;
};

}  // namespace es
