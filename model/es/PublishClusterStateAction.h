// PublishClusterStateAction: the master's two-phase publication of a new cluster state, and the
// follower's side of it (Elasticsearch 6.8).
//
// Send phase: each node gets a diff if it was in the previous state, else the full state; a node
// that cannot apply the diff (IncompatibleClusterStateVersionException) gets the full state. A
// follower checks the state (ZenDiscovery.validateIncomingState), queues it as pending and acks.
// Commit: once minimum_master_nodes - 1 master-eligible nodes acked (the master counts as one), the
// state is committed and every node that acked — before the commit (buffered) or after — gets a
// commit message; a follower then applies it and answers. No commit within commit_timeout, or too
// few masters left to ack: FailedToCommitClusterStateException. After the commit the master waits
// for every node until publish_timeout, and only warns about those that did not answer.
//
// Under es-2488-local-elect the publication is Elasticsearch 1.x's: full states in one phase, which
// followers apply on receipt and which the master never fails (publishSinglePhase).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "model/es/ClusterStateTask.h"
#include "model/es/EsConfig.h"
#include "model/es/TransportService.h"

namespace es {

class PublishClusterStateAction {
 public:
  struct CommitListener {
    std::function<void()> onResponse;
    std::function<void(const EsException&)> onFailure;
  };
  // PublishClusterStateAction.IncomingClusterStateListener (ZenDiscovery implements it).
  class IncomingClusterStateListener {
   public:
    virtual ~IncomingClusterStateListener() = default;
    // Throws EsException to reject the state (the sender sees the error).
    virtual void onIncomingClusterState(const ClusterStatePtr& incomingState) = 0;
    virtual void onClusterStateCommitted(std::uint64_t stateUUID, CommitListener processedListener) = 0;
  };
  struct Stats {
    std::uint64_t fullClusterStateReceivedCount = 0;
    std::uint64_t compatibleClusterStateDiffReceivedCount = 0;
    std::uint64_t incompatibleClusterStateDiffReceivedCount = 0;
  };

  PublishClusterStateAction(sim::Node& node, TransportService& transport, IncomingClusterStateListener& listener, const EsConfig& config);
  ~PublishClusterStateAction();
  PublishClusterStateAction(const PublishClusterStateAction&) = delete;
  PublishClusterStateAction& operator=(const PublishClusterStateAction&) = delete;

  // Returns once committed and every node answered (or publish_timeout passed); throws
  // EsException(failed_to_commit) if the state was not committed.
  sim::Task<void> publish(ClusterChangedEvent event, int minMasterNodes);
  // Elasticsearch 1.x: send the full state to everyone, wait for answers up to publish_timeout.
  sim::Task<void> publishSinglePhase(ClusterChangedEvent event);
  const Stats& stats() const { return stats_; }
  // Publications this node has started and not finished (for harnesses that must not cut the
  // network in Zen1's commit window; see docs/es-model.md).
  std::size_t publicationsInFlight() const { return publicationsInFlight_; }
  // The last state this node received (the base for the next diff).
  const ClusterStatePtr& lastSeenClusterState() const { return lastSeenClusterState_; }

 private:
  class SendingController;
  using Controller = std::shared_ptr<SendingController>;

  sim::Task<void> innerPublish(ClusterChangedEvent event, std::vector<NodeId> nodesToPublishTo, Controller controller,
                               bool sendFullVersion);
  sim::Task<void> sendClusterStateToNode(Controller controller, NodeId node, bool sendDiffs,
                                         std::shared_ptr<const ClusterStateDiff> diff);
  sim::Task<void> sendCommitToNode(Controller controller, NodeId node);
  sim::Task<void> handleIncomingClusterStateRequest(TransportChannel channel, TransportMessage message);
  sim::Task<void> handleCommitRequest(TransportChannel channel, TransportMessage message);
  std::vector<NodeId> nodesToPublishTo(const ClusterState& state) const;
  void tracePublish(const ClusterState& state, NodeId to, bool diff) const;

  sim::Node& node_;
  TransportService& transport_;
  IncomingClusterStateListener& listener_;
  const EsConfig& config_;
  ClusterStatePtr lastSeenClusterState_;
  Stats stats_;
  std::size_t publicationsInFlight_ = 0;

  struct InFlight {
    std::size_t& count;
    explicit InFlight(std::size_t& count) : count(count) { count++; }
    ~InFlight() { count--; }
  };
};

}  // namespace es
