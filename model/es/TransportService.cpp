#include "model/es/TransportService.h"

#include <algorithm>

namespace es {

TransportService::TransportService(sim::Node& node, sim::Duration connectTimeout)
    : node_(node), connectTimeout_(connectTimeout), connectionChanged_(node.sim()) {}

void TransportService::start() {
  ELECTSIM_ASSERT(!started_);
  started_ = true;
  node_.spawn(acceptLoop());
}

void TransportService::registerRequestHandler(Action action, RequestHandler handler) {
  auto index = static_cast<std::size_t>(action);
  ELECTSIM_ASSERT(index < handlers_.size());
  ELECTSIM_ASSERT_MSG(!handlers_[index], "a handler is already registered for this action");
  handlers_[index] = std::move(handler);
}

bool TransportService::nodeConnected(NodeId node) const {
  auto it = outbound_.find(node);
  return it != outbound_.end() && it->second.socket.valid() && it->second.socket.open();
}

sim::Task<bool> TransportService::connectToNode(NodeId node, sim::Duration connectTimeout) {
  ELECTSIM_ASSERT(node != node_.id());
  sim::Instant deadline = node_.sim().now() + connectTimeout;
  while (true) {
    Outbound& existing = outbound_[node];
    if (existing.socket.valid()) {
      if (existing.socket.open()) co_return true;
      connectionClosed(node, existing.generation);  // the peer's close is in: forget the connection
      continue;
    }
    if (existing.connecting) {
      // Someone else is connecting: wait for the outcome, then look again.
      if (node_.sim().now() >= deadline) co_return false;
      co_await connectionChanged_.wait_until(deadline);
      continue;
    }
    existing.connecting = true;
    std::optional<sim::Socket<TransportMessage>> socket =
        co_await node_.sim().network().connect<TransportMessage>(node, port, deadline - node_.sim().now());
    Outbound& outbound = outbound_[node];  // look again: the world moved while we connected
    outbound.connecting = false;
    if (!socket) {
      connectionChanged_.notify_all();
      co_return false;  // ConnectTransportException
    }
    outbound.socket = std::move(*socket);
    outbound.generation = nextGeneration_++;
    node_.spawn(outboundReader(node, outbound.generation));
    connectionChanged_.notify_all();
    co_return true;
  }
}

void TransportService::disconnectFromNode(NodeId node) {
  auto it = outbound_.find(node);
  if (it == outbound_.end() || !it->second.socket.valid()) return;
  connectionClosed(node, it->second.generation);
}

void TransportService::disconnectFromNodesExcept(const std::vector<NodeId>& nodes) {
  std::vector<NodeId> toDisconnect;
  for (const auto& [node, outbound] : outbound_) {
    if (outbound.socket.valid() && std::find(nodes.begin(), nodes.end(), node) == nodes.end()) toDisconnect.push_back(node);
  }
  for (NodeId node : toDisconnect) disconnectFromNode(node);
}

void TransportService::connectionClosed(NodeId node, std::uint32_t generation) {
  auto it = outbound_.find(node);
  if (it == outbound_.end() || it->second.generation != generation || !it->second.socket.valid()) return;
  it->second.socket.close();
  it->second.socket = {};
  // Every request pending on that connection fails (NodeDisconnectedException).
  std::vector<std::uint64_t> failed;
  for (const auto& [id, request] : pending_) {
    if (request.node == node && request.generation == generation) failed.push_back(id);
  }
  for (std::uint64_t id : failed) {
    auto request = pending_.find(id);
    request->second.promise.set_value(TransportResponse{ErrorKind::node_disconnected, {}});
    pending_.erase(request);
  }
  connectionChanged_.notify_all();
  for (const DisconnectListener& listener : listeners_) listener(node);
}

sim::Task<TransportResponse> TransportService::sendRequest(NodeId node, Action action, TransportPayload payload,
                                                           std::optional<sim::Duration> timeout, sim::Duration connectTimeout) {
  if (!co_await connectToNode(node, connectTimeout)) co_return TransportResponse{ErrorKind::connect_transport, {}};
  Outbound& outbound = outbound_[node];
  if (!outbound.socket.valid()) co_return TransportResponse{ErrorKind::node_disconnected, {}};
  std::uint64_t id = nextRequestId_++;
  auto [entry, inserted] = pending_.emplace(id, PendingRequest{node, outbound.generation, {}});
  ELECTSIM_ASSERT(inserted);
  sim::Future<TransportResponse> future = entry->second.promise.get_future();
  bool sent = outbound.socket.send(TransportMessage{id, false, action, ErrorKind::none, std::move(payload)});
  if (!sent) {
    pending_.erase(id);
    co_return TransportResponse{ErrorKind::node_disconnected, {}};
  }
  if (!timeout) co_return co_await future.wait(node_.sim());
  std::optional<TransportResponse> response = co_await future.wait_for(node_.sim(), *timeout);
  if (!response) {
    pending_.erase(id);  // a late response finds nobody waiting
    co_return TransportResponse{ErrorKind::receive_timeout, {}};
  }
  co_return std::move(*response);
}

sim::Task<void> TransportService::outboundReader(NodeId node, std::uint32_t generation) {
  while (true) {
    auto it = outbound_.find(node);
    if (it == outbound_.end() || it->second.generation != generation || !it->second.socket.valid()) co_return;
    sim::Received<TransportMessage> received = co_await it->second.socket.receive();
    if (!received) {
      connectionClosed(node, generation);
      co_return;
    }
    if (!received->response) continue;  // requests arrive on the connections peers opened
    auto request = pending_.find(received->requestId);
    if (request == pending_.end()) continue;  // timed out meanwhile
    request->second.promise.set_value(TransportResponse{received->error, std::move(received->payload)});
    pending_.erase(request);
  }
}

sim::Task<void> TransportService::acceptLoop() {
  sim::Listener<TransportMessage> listener = node_.sim().network().listen<TransportMessage>(node_.id(), port);
  while (true) {
    sim::Socket<TransportMessage> socket = co_await listener.accept();
    std::uint32_t connection = nextInbound_++;
    inbound_.emplace(connection, std::move(socket));
    node_.spawn(inboundReader(connection));
  }
}

sim::Task<void> TransportService::inboundReader(std::uint32_t connection) {
  while (true) {
    auto it = inbound_.find(connection);
    if (it == inbound_.end()) co_return;
    sim::Received<TransportMessage> received = co_await it->second.receive();
    if (!received) {
      inbound_.erase(connection);
      co_return;
    }
    if (received->response) continue;
    TransportChannel channel{inbound_.at(connection).peer(), connection, received->requestId, received->action};
    const RequestHandler& handler = handlers_[static_cast<std::size_t>(received->action)];
    if (!handler) {
      node_.spawn(unknownAction(channel));
      continue;
    }
    node_.spawn(handler(channel, std::move(*received)));
  }
}

sim::Task<void> TransportService::unknownAction(TransportChannel channel) {
  sendError(channel, ErrorKind::illegal_state);  // ActionNotFoundTransportException
  co_return;
}

void TransportService::reply(const TransportChannel& channel, ErrorKind error, TransportPayload payload) {
  auto it = inbound_.find(channel.connection);
  if (it == inbound_.end()) return;  // the connection is gone: nobody to answer
  it->second.send(TransportMessage{channel.requestId, true, channel.action, error, std::move(payload)});
}

void TransportService::sendResponse(const TransportChannel& channel, TransportPayload payload) { reply(channel, ErrorKind::none, std::move(payload)); }

void TransportService::sendError(const TransportChannel& channel, ErrorKind error) {
  ELECTSIM_ASSERT(error != ErrorKind::none);
  reply(channel, error, {});
}

}  // namespace es
