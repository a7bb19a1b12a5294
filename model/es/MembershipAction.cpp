#include "model/es/MembershipAction.h"

namespace es {

MembershipAction::MembershipAction(sim::Node& node, TransportService& transport) : node_(node), transport_(transport) {
  transport_.registerRequestHandler(Action::join, [this](TransportChannel channel, TransportMessage message) {
    return handleJoinRequest(channel, std::move(message));
  });
  transport_.registerRequestHandler(Action::validate_join, [this](TransportChannel channel, TransportMessage message) {
    return handleValidateJoinRequest(channel, std::move(message));
  });
}

sim::Task<TransportResponse> MembershipAction::sendJoinRequestBlocking(NodeId masterNode, sim::Duration timeout) {
  return transport_.sendRequest(masterNode, Action::join, JoinRequest{node_.id()}, timeout);
}

sim::Task<TransportResponse> MembershipAction::sendValidateJoinRequestBlocking(NodeId node, ClusterStatePtr state, sim::Duration timeout) {
  return transport_.sendRequest(node, Action::validate_join, ValidateJoinRequest{std::move(state)}, timeout);
}

sim::Task<void> MembershipAction::handleJoinRequest(TransportChannel channel, TransportMessage message) {
  NodeId joining = std::get<JoinRequest>(message.payload).node;
  if (!joinHandler_) {
    transport_.sendError(channel, ErrorKind::illegal_state);
    co_return;
  }
  TransportService* transport = &transport_;
  NodeJoinController::JoinCallback callback{[transport, channel] { transport->sendResponse(channel); },
                                            [transport, channel](const EsException& error) { transport->sendError(channel, error.kind()); }};
  co_await joinHandler_(joining, std::move(callback));
}

sim::Task<void> MembershipAction::handleValidateJoinRequest(TransportChannel channel, TransportMessage message) {
  (void)message;  // the joining node can read the master's state: nothing in the model to check
  transport_.sendResponse(channel);
  co_return;
}

}  // namespace es
