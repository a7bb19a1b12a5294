#include "harness/message_summary.h"

#include <cstdio>
#include <string>
#include <variant>

#include "model/es/TransportMessages.h"
#include "model/zk/ClientPacket.h"
#include "model/zk/quorum/QuorumCnxManager.h"
#include "model/zk/quorum/QuorumPacket.h"
#include "sim/network.h"
#include "sim/node.h"

namespace harness {

namespace {

using sim::MessageDescription;

// Servers are named by sid (zk3 is sid 3), as the scenario files name them.
std::string server_name(zk::ServerId sid) { return "zk" + std::to_string(sid); }

std::string session_hex(zk::SessionId session) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(session));
  return text;
}

std::string_view op_name(zk::OpCode type) {
  switch (type) {
    case zk::OpCode::notification: return "notification";
    case zk::OpCode::create: return "create";
    case zk::OpCode::delete_node: return "delete";
    case zk::OpCode::exists: return "exists";
    case zk::OpCode::get_data: return "getData";
    case zk::OpCode::set_data: return "setData";
    case zk::OpCode::get_children: return "getChildren";
    case zk::OpCode::sync: return "sync";
    case zk::OpCode::ping: return "ping";
    case zk::OpCode::check: return "check";
    case zk::OpCode::multi: return "multi";
    case zk::OpCode::create_session: return "createSession";
    case zk::OpCode::close_session: return "closeSession";
    case zk::OpCode::error: return "error";
    case zk::OpCode::set_watches: return "setWatches";
    case zk::OpCode::add_watch: return "addWatch";
  }
  return "op";
}

// What a replicated transaction does: "create /a/b", "closeSession (deletes 2 ephemerals)".
std::string describe_txn(const zk::Txn& txn) {
  std::string text(op_name(txn.header.type));
  if (const auto* create = std::get_if<zk::CreateTxn>(&txn.body)) return text + " " + create->path + (create->ephemeral ? " (ephemeral)" : "");
  if (const auto* removed = std::get_if<zk::DeleteTxn>(&txn.body)) return text + " " + removed->path;
  if (const auto* set = std::get_if<zk::SetDataTxn>(&txn.body)) return text + " " + set->path;
  if (const auto* close = std::get_if<zk::CloseSessionTxn>(&txn.body)) {
    return text + " of " + session_hex(txn.header.session_id) + " (deletes " + std::to_string(close->paths_to_delete.size()) + " ephemerals)";
  }
  if (const auto* error = std::get_if<zk::ErrorTxn>(&txn.body)) return "failed write (" + std::string(zk::code_name(error->error)) + ")";
  if (const auto* multi = std::get_if<zk::MultiTxn>(&txn.body)) return text + " of " + std::to_string(multi->size()) + " operations";
  return text;
}

MessageDescription describe_election(const zk::ElectionPacket& packet) {
  if (packet.header) return {"election", "connection header: I am " + server_name(packet.sid), false};
  const zk::Notification& n = packet.notification;
  return {"election",
          "vote for " + server_name(n.leader) + " (zxid " + zk::format_zxid(n.zxid) + ", peerEpoch " + std::to_string(n.peer_epoch) +
              ", round " + std::to_string(n.election_epoch) + ", sender " + std::string(zk::server_state_name(n.state)) + ")",
          false};
}

MessageDescription describe_quorum(const zk::QuorumPacket& packet) {
  std::string text(zk::packet_type_name(packet.type));
  switch (packet.type) {
    case zk::PacketType::proposal:
      return {"zab", text + " " + zk::format_zxid(packet.zxid) + (packet.txn ? ": " + describe_txn(*packet.txn) : ""), false};
    case zk::PacketType::ping:
      // The leader's ping, or a follower's answer carrying the sessions its clients touched.
      return {"zab", text + (packet.touches.empty() ? "" : " (" + std::to_string(packet.touches.size()) + " session touches)"), true};
    case zk::PacketType::followerinfo: return {"zab", text + ": " + server_name(packet.sid) + ", last zxid " + zk::format_zxid(packet.zxid), false};
    case zk::PacketType::ackepoch:
      return {"zab", text + ": currentEpoch " + std::to_string(packet.epoch) + ", last zxid " + zk::format_zxid(packet.zxid), false};
    case zk::PacketType::revalidate:
      return {"zab", text + " session " + session_hex(packet.session_id) + (packet.valid ? " (valid)" : ""), false};
    case zk::PacketType::request:
      if (packet.request) {
        return {"zab", text + ": " + std::string(op_name(packet.request->type)) + " " + packet.request->path + " from session " +
                           session_hex(packet.request->sessionId),
                false};
      }
      return {"zab", text, false};
    default: return {"zab", text + " " + zk::format_zxid(packet.zxid), false};
  }
}

MessageDescription describe_client(const zk::ClientPacket& packet) {
  if (const auto* connect = std::get_if<zk::ConnectRequest>(&packet)) {
    std::string session = connect->session_id == 0 ? "a new session" : "session " + session_hex(connect->session_id);
    return {"client", "ConnectRequest: " + session + ", timeout " + std::to_string(connect->timeout_ms) + " ms, last zxid " +
                          zk::format_zxid(connect->last_zxid_seen), false};
  }
  if (const auto* response = std::get_if<zk::ConnectResponse>(&packet)) {
    if (response->timeout_ms == 0) return {"client", "ConnectResponse: session expired", false};
    return {"client", "ConnectResponse: session " + session_hex(response->session_id) + ", timeout " + std::to_string(response->timeout_ms) + " ms",
            false};
  }
  if (const auto* request = std::get_if<zk::ClientRequest>(&packet)) {
    if (request->xid == zk::ping_xid) return {"client", "ping", true};
    if (request->xid == zk::set_watches_xid) {
      const zk::SetWatches empty;
      const zk::SetWatches& lists = request->set_watches != nullptr ? *request->set_watches : empty;
      std::size_t watches = lists.data_watches.size() + lists.exist_watches.size() + lists.child_watches.size() +
                            lists.persistent_watches.size() + lists.persistent_recursive_watches.size();
      return {"client", "setWatches: " + std::to_string(watches) + " watches since " + zk::format_zxid(lists.relative_zxid), false};
    }
    std::string text = std::string(op_name(request->type)) + " " + request->path;
    if (request->type == zk::OpCode::create) text += " (" + std::string(zk::create_mode_name(request->mode)) + ")";
    if (request->type == zk::OpCode::multi) text += " of " + std::to_string(request->ops.size()) + " operations";
    if (request->watch) text += " + watch";
    return {"client", text + " [xid " + std::to_string(request->xid) + "]", false};
  }
  if (const auto* reply = std::get_if<zk::ClientReply>(&packet)) {
    if (reply->xid == zk::ping_xid) return {"client", "ping reply", true};
    std::string text = "reply [xid " + std::to_string(reply->xid) + "]: " + std::string(zk::code_name(reply->err));
    if (const auto* path = std::get_if<zk::ClientReply::Path>(&reply->body)) text += " " + path->value;
    const auto* children = std::get_if<std::vector<std::string>>(&reply->body);
    if (children != nullptr && !children->empty()) text += ", " + std::to_string(children->size()) + " children";
    return {"client", text, false};
  }
  const auto& event = std::get<zk::WatcherEvent>(packet).event;
  if (event.type == zk::EventType::none) return {"client", "session event: " + std::string(zk::keeper_state_name(event.state)), false};
  return {"client", "watch event: " + std::string(zk::event_type_name(event.type)) + " " + event.path, false};
}

std::string_view action_name(es::Action action) {
  switch (action) {
    case es::Action::zen_ping: return "zen ping";
    case es::Action::join: return "join";
    case es::Action::validate_join: return "validate join";
    case es::Action::master_ping: return "master fault-detection ping";
    case es::Action::nodes_ping: return "node fault-detection ping";
    case es::Action::publish_send: return "publish";
    case es::Action::publish_commit: return "commit";
    case es::Action::rejoin: return "rejoin";
    case es::Action::list_gateway_meta_state: return "gateway meta state";
  }
  return "action";
}

std::string es_name(const sim::Simulation& sim, es::NodeId node) {
  return node == sim::no_node || node >= sim.node_count() ? std::string("none") : sim.node(node).name();
}

// The payload's gist: whom a ping names as master, which state version is published.
std::string describe_es_payload(const sim::Simulation& sim, const es::TransportPayload& payload) {
  if (const auto* ping = std::get_if<es::UnicastPingRequest>(&payload)) {
    return ": master " + es_name(sim, ping->pingResponse.master) + ", state v" + std::to_string(ping->pingResponse.clusterStateVersion);
  }
  if (const auto* pong = std::get_if<es::UnicastPingResponse>(&payload)) return ": " + std::to_string(pong->pingResponses.size()) + " ping responses";
  if (const auto* join = std::get_if<es::JoinRequest>(&payload)) return ": " + es_name(sim, join->node);
  if (const auto* nodes = std::get_if<es::NodesPingRequest>(&payload)) return ": state v" + std::to_string(nodes->clusterStateVersion);
  if (const auto* publish = std::get_if<es::PublishRequest>(&payload)) {
    if (publish->diff && publish->delta) return ": diff to v" + std::to_string(publish->delta->toVersion);
    if (publish->fullState) return ": full state v" + std::to_string(publish->fullState->version);
  }
  if (const auto* gateway = std::get_if<es::GatewayMetaStateResponse>(&payload)) {
    return gateway->state ? ": persisted state v" + std::to_string(gateway->state->version) : ": no persisted state";
  }
  return "";
}

MessageDescription describe_es(const sim::Simulation& sim, const es::TransportMessage& message) {
  bool heartbeat = message.action == es::Action::master_ping || message.action == es::Action::nodes_ping;
  std::string text = std::string(action_name(message.action)) + (message.response ? " response" : " request") + " #" +
                     std::to_string(message.requestId);
  if (message.error != es::ErrorKind::none) return {"es", text + ": " + std::string(es::errorName(message.error)), heartbeat};
  return {"es", text + describe_es_payload(sim, message.payload), heartbeat};
}

}  // namespace

sim::MessageDescription describe_message(const sim::Simulation& sim, const void* type, const void* message) {
  if (type == sim::message_type<zk::ElectionPacket>()) return describe_election(*static_cast<const zk::ElectionPacket*>(message));
  if (type == sim::message_type<zk::QuorumPacket>()) return describe_quorum(*static_cast<const zk::QuorumPacket*>(message));
  if (type == sim::message_type<zk::ClientPacket>()) return describe_client(*static_cast<const zk::ClientPacket*>(message));
  if (type == sim::message_type<es::TransportMessage>()) return describe_es(sim, *static_cast<const es::TransportMessage*>(message));
  return {"message", "a message", false};  // a type no model here defines (engine tests, benchmarks)
}

TracedMessage TracedMessage::sent_by(const sim::TraceEvent& send, std::size_t from, std::size_t to) {
  return TracedMessage{from, to, send.time, std::nullopt, std::string(send.text("what")), std::string(send.text("category")),
                       send.boolean("heartbeat"), std::string()};
}

void TracedMessage::ended(const sim::TraceEvent& deliver_or_drop) {
  received = deliver_or_drop.time;
  if (deliver_or_drop.kind != "net.deliver") lost = std::string(deliver_or_drop.text("reason"));
}

}  // namespace harness
