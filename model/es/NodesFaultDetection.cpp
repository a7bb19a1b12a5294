#include "model/es/NodesFaultDetection.h"

#include "sim/trace.h"

namespace es {

NodesFaultDetection::NodesFaultDetection(sim::Node& node, TransportService& transport, const EsConfig& config,
                                         std::function<ClusterStatePtr()> clusterStateSupplier)
    : node_(node), transport_(transport), config_(config), clusterStateSupplier_(std::move(clusterStateSupplier)) {
  transport_.registerRequestHandler(Action::nodes_ping, [this](TransportChannel channel, TransportMessage message) {
    return handlePingRequest(channel, std::move(message));
  });
  transport_.addConnectionListener([this](NodeId node) { handleTransportDisconnect(node); });
}

void NodesFaultDetection::setListeners(NodeFailureListener onNodeFailure, PingReceivedListener onPingReceived) {
  onNodeFailure_ = std::move(onNodeFailure);
  onPingReceived_ = std::move(onPingReceived);
}

void NodesFaultDetection::updateNodesAndPing(const ClusterState& state) {
  std::vector<NodeId> removed;
  for (const auto& [node, fd] : nodesFD_) {
    if (!state.nodeExists(node)) removed.push_back(node);
  }
  for (NodeId node : removed) nodesFD_.erase(node);  // their pingers see it and stop
  for (NodeId node : state.nodes) {
    if (node == node_.id() || nodesFD_.contains(node)) continue;
    std::uint64_t generation = nextGeneration_++;
    nodesFD_.emplace(node, NodeFD{generation, 0});
    node_.spawn(nodeFD(node, generation));
  }
}

void NodesFaultDetection::stop() { nodesFD_.clear(); }

std::vector<NodeId> NodesFaultDetection::getNodes() const {
  std::vector<NodeId> nodes;
  for (const auto& [node, fd] : nodesFD_) nodes.push_back(node);
  return nodes;
}

bool NodesFaultDetection::running(NodeId node, std::uint64_t generation) const {
  auto it = nodesFD_.find(node);
  return it != nodesFD_.end() && it->second.generation == generation;
}

sim::Task<void> NodesFaultDetection::nodeFD(NodeId node, std::uint64_t generation) {
  // The first ping goes out at once; each (re)sent ping carries the current state's version.
  while (running(node, generation)) {
    NodesPingRequest request{node, node_.id(), clusterStateSupplier_()->version};
    TransportResponse response = co_await transport_.sendRequest(node, Action::nodes_ping, request, config_.fd_ping_timeout);
    if (!running(node, generation)) co_return;
    if (response.ok()) {
      nodesFD_.at(node).retryCount = 0;
      co_await node_.sim().sleep(config_.fd_ping_interval);
      continue;
    }
    if (response.error == ErrorKind::connect_transport || response.error == ErrorKind::node_disconnected) {
      handleTransportDisconnect(node);
      co_return;
    }
    int retryCount = ++nodesFD_.at(node).retryCount;
    if (retryCount >= config_.fd_ping_retries) {
      nodesFD_.erase(node);
      notifyNodeFailure(node, "failed to ping, tried [" + std::to_string(config_.fd_ping_retries) + "] times, each with maximum [" +
                                  sim::format_duration(config_.fd_ping_timeout) + "] timeout");
      co_return;
    }
    // Resend at once.
  }
}

void NodesFaultDetection::handleTransportDisconnect(NodeId node) {
  if (nodesFD_.erase(node) == 0) return;
  notifyNodeFailure(node, "transport disconnected");
}

void NodesFaultDetection::notifyNodeFailure(NodeId node, const std::string& reason) {
  node_.sim().trace().emit(node_.id(), "es.fault_detection", {{"kind", "node"}, {"target", node_.sim().node(node).name()}, {"reason", reason}});
  node_.spawn(notifyNodeFailureListener(node, reason));
}

sim::Task<void> NodesFaultDetection::notifyNodeFailureListener(NodeId node, std::string reason) {
  if (onNodeFailure_) onNodeFailure_(node, reason);
  co_return;
}

sim::Task<void> NodesFaultDetection::handlePingRequest(TransportChannel channel, TransportMessage message) {
  const auto& request = std::get<NodesPingRequest>(message.payload);
  // "Got pinged as node [...], but I am node [...]"
  if (request.targetNode != node_.id()) {
    transport_.sendError(channel, ErrorKind::illegal_state);
    co_return;
  }
  if (onPingReceived_) onPingReceived_(request);
  transport_.sendResponse(channel);
}

}  // namespace es
