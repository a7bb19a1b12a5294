// TransportService: requests and responses between nodes over TCP-like connections. Each node opens
// one connection to each peer it talks to (connectToNode) and sends its requests on it; responses
// come back on the same connection, matched by request id. Requests a node receives arrive on the
// connections its peers opened, and each is handled by its own coroutine, so a handler may wait.
//
// A connection that closes (the peer's process died: its OS sent a FIN or a reset) fails every
// request pending on it with NodeDisconnectedException and tells the connection listeners
// (fault detection reacts at once, as Elasticsearch's does on a disconnect). A cut link or a dark
// machine closes nothing: requests time out, if they have a timeout, and connects time out.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "model/es/TransportMessages.h"
#include "sim/network.h"

namespace es {

class TransportService {
 public:
  static constexpr std::uint16_t port = 9300;
  using RequestHandler = std::function<sim::Task<void>(TransportChannel, TransportMessage)>;
  using DisconnectListener = std::function<void(NodeId)>;  // TransportConnectionListener.onNodeDisconnected

  TransportService(sim::Node& node, sim::Duration connectTimeout);
  TransportService(const TransportService&) = delete;
  TransportService& operator=(const TransportService&) = delete;

  void start();  // listens on the transport port
  void registerRequestHandler(Action action, RequestHandler handler);
  void addConnectionListener(DisconnectListener listener) { listeners_.push_back(std::move(listener)); }

  // True once connected (now or already); false if refused or timed out.
  sim::Task<bool> connectToNode(NodeId node) { return connectToNode(node, connectTimeout_); }
  sim::Task<bool> connectToNode(NodeId node, sim::Duration connectTimeout);
  bool nodeConnected(NodeId node) const;
  void disconnectFromNode(NodeId node);
  // NodeConnectionsService after a new state: drop the connections to nodes that left it.
  void disconnectFromNodesExcept(const std::vector<NodeId>& nodes);

  // Connects if needed, sends, and waits for the response (forever when no timeout is given).
  sim::Task<TransportResponse> sendRequest(NodeId node, Action action, TransportPayload payload,
                                           std::optional<sim::Duration> timeout, sim::Duration connectTimeout);
  sim::Task<TransportResponse> sendRequest(NodeId node, Action action, TransportPayload payload, std::optional<sim::Duration> timeout) {
    return sendRequest(node, action, std::move(payload), timeout, connectTimeout_);
  }
  void sendResponse(const TransportChannel& channel, TransportPayload payload = {});
  void sendError(const TransportChannel& channel, ErrorKind error);

  sim::Duration connectTimeout() const { return connectTimeout_; }
  std::size_t pendingRequests() const { return pending_.size(); }

 private:
  struct Outbound {
    sim::Socket<TransportMessage> socket;
    std::uint32_t generation = 0;
    bool connecting = false;
  };
  struct PendingRequest {
    NodeId node = sim::no_node;
    std::uint32_t generation = 0;
    sim::Promise<TransportResponse> promise;
  };

  sim::Task<void> acceptLoop();
  sim::Task<void> inboundReader(std::uint32_t connection);
  sim::Task<void> outboundReader(NodeId node, std::uint32_t generation);
  sim::Task<void> unknownAction(TransportChannel channel);
  void connectionClosed(NodeId node, std::uint32_t generation);
  void reply(const TransportChannel& channel, ErrorKind error, TransportPayload payload);

  sim::Node& node_;
  sim::Duration connectTimeout_;
  std::map<NodeId, Outbound> outbound_;
  std::map<std::uint32_t, sim::Socket<TransportMessage>> inbound_;
  std::map<std::uint64_t, PendingRequest> pending_;
  std::array<RequestHandler, action_count> handlers_;
  std::vector<DisconnectListener> listeners_;
  sim::Condition connectionChanged_;
  std::uint64_t nextRequestId_ = 1;
  std::uint32_t nextGeneration_ = 1;
  std::uint32_t nextInbound_ = 1;
  bool started_ = false;
};

}  // namespace es
