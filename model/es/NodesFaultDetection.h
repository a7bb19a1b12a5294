// NodesFaultDetection: the master pings every other node of its cluster state every
// fd_ping_interval, with the same timeout and retries as MasterFaultDetection; a node that fails
// them (or whose connection closes) is reported, and ZenDiscovery removes it. The pinged node tells
// its listener who pinged it, with the pinging master's cluster-state version at the time of the
// ping: a master that is pinged by another master learns there are two.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "model/es/EsConfig.h"
#include "model/es/TransportService.h"

namespace es {

class NodesFaultDetection {
 public:
  using NodeFailureListener = std::function<void(NodeId node, const std::string& reason)>;
  using PingReceivedListener = std::function<void(const NodesPingRequest& request)>;

  NodesFaultDetection(sim::Node& node, TransportService& transport, const EsConfig& config,
                      std::function<ClusterStatePtr()> clusterStateSupplier);
  NodesFaultDetection(const NodesFaultDetection&) = delete;
  NodesFaultDetection& operator=(const NodesFaultDetection&) = delete;

  void setListeners(NodeFailureListener onNodeFailure, PingReceivedListener onPingReceived);
  // Pings the nodes of `state` (but the local one): new ones start at once, removed ones stop.
  void updateNodesAndPing(const ClusterState& state);
  void stop();
  std::vector<NodeId> getNodes() const;

 private:
  struct NodeFD {
    std::uint64_t generation = 0;
    int retryCount = 0;
  };

  sim::Task<void> nodeFD(NodeId node, std::uint64_t generation);
  sim::Task<void> handlePingRequest(TransportChannel channel, TransportMessage message);
  sim::Task<void> notifyNodeFailureListener(NodeId node, std::string reason);
  bool running(NodeId node, std::uint64_t generation) const;
  void handleTransportDisconnect(NodeId node);
  void notifyNodeFailure(NodeId node, const std::string& reason);

  sim::Node& node_;
  TransportService& transport_;
  const EsConfig& config_;
  NodeFailureListener onNodeFailure_;
  PingReceivedListener onPingReceived_;
  std::function<ClusterStatePtr()> clusterStateSupplier_;
  std::map<NodeId, NodeFD> nodesFD_;
  std::uint64_t nextGeneration_ = 1;
};

}  // namespace es
