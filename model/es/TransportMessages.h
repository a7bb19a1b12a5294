// What Elasticsearch nodes say to each other over the transport layer (port 9300): one request and
// response envelope, with the payload of each action used by Zen1 discovery and publication.
#pragma once

#include <cstdint>
#include <memory>
#include <variant>
#include <vector>

#include "model/es/ClusterState.h"
#include "model/es/EsException.h"

namespace es {

enum class Action : std::uint8_t {
  zen_ping,                  // internal:discovery/zen/unicast
  join,                      // internal:discovery/zen/join
  validate_join,             // internal:discovery/zen/join/validate
  master_ping,               // internal:discovery/zen/fd/master_ping
  nodes_ping,                // internal:discovery/zen/fd/ping
  publish_send,              // internal:discovery/zen/publish/send
  publish_commit,            // internal:discovery/zen/publish/commit
  rejoin,                    // internal:discovery/zen/rejoin
  list_gateway_meta_state,   // internal:gateway/local/meta_state
};
inline constexpr std::size_t action_count = 9;

// ZenPing.PingResponse: who answered, whom it follows, and the version of its state.
struct PingResponse {
  std::uint64_t id = 0;  // newer responses of one node have higher ids
  NodeId node = sim::no_node;
  NodeId master = sim::no_node;
  std::int64_t clusterStateVersion = unrecovered_cluster_version;
};

struct UnicastPingRequest {
  std::uint32_t id = 0;
  sim::Duration timeout{};
  PingResponse pingResponse;  // the sender's own response, so the receiver learns of it too
};
struct UnicastPingResponse {
  std::uint32_t id = 0;
  std::vector<PingResponse> pingResponses;
};
struct JoinRequest {
  NodeId node = sim::no_node;
};
struct ValidateJoinRequest {
  ClusterStatePtr state;
};
struct MasterPingRequest {
  NodeId sourceNode = sim::no_node;
  NodeId masterNode = sim::no_node;
};
struct NodesPingRequest {
  NodeId targetNode = sim::no_node;
  NodeId masterNode = sim::no_node;
  std::int64_t clusterStateVersion = 0;
};
struct PublishRequest {
  bool diff = false;
  ClusterStatePtr fullState;                      // when !diff
  std::shared_ptr<const ClusterStateDiff> delta;  // when diff
};
struct CommitRequest {
  std::uint64_t stateUUID = 0;
};
struct RejoinRequest {
  NodeId fromNode = sim::no_node;
};
struct GatewayMetaStateResponse {
  ClusterStatePtr state;  // the node's persisted state, null when it has none
};

using TransportPayload = std::variant<std::monostate, UnicastPingRequest, UnicastPingResponse, JoinRequest, ValidateJoinRequest,
                                      MasterPingRequest, NodesPingRequest, PublishRequest, CommitRequest, RejoinRequest,
                                      GatewayMetaStateResponse>;

struct TransportMessage {
  std::uint64_t requestId = 0;
  bool response = false;
  Action action = Action::zen_ping;
  ErrorKind error = ErrorKind::none;  // a response carrying a remote exception
  TransportPayload payload;
};

// Where to send the response to a request (TransportChannel).
struct TransportChannel {
  NodeId from = sim::no_node;
  std::uint32_t connection = 0;
  std::uint64_t requestId = 0;
  Action action = Action::zen_ping;
};

struct TransportResponse {
  ErrorKind error = ErrorKind::none;
  TransportPayload payload;
  bool ok() const { return error == ErrorKind::none; }
};

}  // namespace es
