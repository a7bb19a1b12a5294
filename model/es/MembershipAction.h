// MembershipAction: the join requests between a joining node and the master it elected, and the
// master's validation round trip to the joining node before it accepts the join. A join request is
// answered only once the state that adds the node has been published and applied.
#pragma once

#include <functional>

#include "model/es/NodeJoinController.h"
#include "model/es/TransportService.h"

namespace es {

class MembershipAction {
 public:
  // MembershipListener.onJoin: may wait (the master connects back and validates).
  using JoinHandler = std::function<sim::Task<void>(NodeId node, NodeJoinController::JoinCallback callback)>;

  MembershipAction(sim::Node& node, TransportService& transport);
  MembershipAction(const MembershipAction&) = delete;
  MembershipAction& operator=(const MembershipAction&) = delete;

  void setJoinHandler(JoinHandler handler) { joinHandler_ = std::move(handler); }
  sim::Task<TransportResponse> sendJoinRequestBlocking(NodeId masterNode, sim::Duration timeout);
  sim::Task<TransportResponse> sendValidateJoinRequestBlocking(NodeId node, ClusterStatePtr state, sim::Duration timeout);

 private:
  sim::Task<void> handleJoinRequest(TransportChannel channel, TransportMessage message);
  sim::Task<void> handleValidateJoinRequest(TransportChannel channel, TransportMessage message);

  sim::Node& node_;
  TransportService& transport_;
  JoinHandler joinHandler_;
};

}  // namespace es
