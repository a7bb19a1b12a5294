#include "model/zk/types.h"

#include <cstdio>

namespace zk {

std::string format_zxid(Zxid zxid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(zxid));
  return text;
}

std::string_view code_name(Code code) {
  switch (code) {
    case Code::ok: return "OK";
    case Code::runtime_inconsistency: return "RUNTIMEINCONSISTENCY";
    case Code::connection_loss: return "CONNECTIONLOSS";
    case Code::operation_timeout: return "OPERATIONTIMEOUT";
    case Code::bad_arguments: return "BADARGUMENTS";
    case Code::no_node: return "NONODE";
    case Code::no_auth: return "NOAUTH";
    case Code::bad_version: return "BADVERSION";
    case Code::no_children_for_ephemerals: return "NOCHILDRENFOREPHEMERALS";
    case Code::node_exists: return "NODEEXISTS";
    case Code::not_empty: return "NOTEMPTY";
    case Code::session_expired: return "SESSIONEXPIRED";
    case Code::invalid_acl: return "INVALIDACL";
    case Code::session_moved: return "SESSIONMOVED";
  }
  return "UNKNOWN";
}

std::string_view create_mode_name(CreateMode mode) {
  switch (mode) {
    case CreateMode::persistent: return "PERSISTENT";
    case CreateMode::persistent_sequential: return "PERSISTENT_SEQUENTIAL";
    case CreateMode::ephemeral: return "EPHEMERAL";
    case CreateMode::ephemeral_sequential: return "EPHEMERAL_SEQUENTIAL";
  }
  return "UNKNOWN";
}

std::string_view event_type_name(EventType type) {
  switch (type) {
    case EventType::none: return "None";
    case EventType::node_created: return "NodeCreated";
    case EventType::node_deleted: return "NodeDeleted";
    case EventType::node_data_changed: return "NodeDataChanged";
    case EventType::node_children_changed: return "NodeChildrenChanged";
  }
  return "Unknown";
}

std::string_view keeper_state_name(KeeperState state) {
  switch (state) {
    case KeeperState::disconnected: return "Disconnected";
    case KeeperState::sync_connected: return "SyncConnected";
    case KeeperState::auth_failed: return "AuthFailed";
    case KeeperState::expired: return "Expired";
    case KeeperState::closed: return "Closed";
  }
  return "Unknown";
}

}  // namespace zk
