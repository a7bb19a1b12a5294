#include "model/zk/types.h"

#include <cstdio>

#include "sim/random.h"

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
    case Code::unimplemented: return "UNIMPLEMENTED";
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

namespace {

std::uint64_t fold(std::uint64_t hash, std::uint64_t value) { return sim::mix64(hash ^ value); }
std::uint64_t fold(std::uint64_t hash, const std::string& text) { return fold(hash, sim::stable_hash(text) ^ text.size()); }

std::uint64_t body_digest(std::uint64_t hash, const CreateTxn& create) {
  return fold(fold(fold(fold(hash, 1), create.path), create.data), static_cast<std::uint64_t>(create.ephemeral) << 32 | static_cast<std::uint32_t>(create.parent_cversion));
}
std::uint64_t body_digest(std::uint64_t hash, const DeleteTxn& removal) { return fold(fold(hash, 2), removal.path); }
std::uint64_t body_digest(std::uint64_t hash, const SetDataTxn& set) {
  return fold(fold(fold(fold(hash, 3), set.path), set.data), static_cast<std::uint32_t>(set.version));
}
std::uint64_t body_digest(std::uint64_t hash, const CheckVersionTxn& check) {
  return fold(fold(fold(hash, 4), check.path), static_cast<std::uint32_t>(check.version));
}
std::uint64_t body_digest(std::uint64_t hash, const CreateSessionTxn& create) { return fold(fold(hash, 5), static_cast<std::uint32_t>(create.timeout_ms)); }
std::uint64_t body_digest(std::uint64_t hash, const CloseSessionTxn& close) {
  hash = fold(hash, 6);
  for (const std::string& path : close.paths_to_delete) hash = fold(hash, path);
  return hash;
}
std::uint64_t body_digest(std::uint64_t hash, const ErrorTxn& error) { return fold(fold(hash, 7), static_cast<std::uint32_t>(error.error)); }
std::uint64_t body_digest(std::uint64_t hash, const MultiTxn& multi) {
  hash = fold(hash, 8);
  for (const SubTxn& sub : multi) {
    hash = fold(hash, static_cast<std::uint32_t>(sub.type));
    hash = std::visit([hash](const auto& body) { return body_digest(hash, body); }, sub.body);
  }
  return hash;
}

std::uint64_t compute_txn_digest(const Txn& txn) {
  std::uint64_t hash = fold(0x7a62ULL, static_cast<std::uint64_t>(txn.header.zxid));
  hash = fold(hash, static_cast<std::uint64_t>(txn.header.session_id));
  hash = fold(hash, static_cast<std::uint32_t>(txn.header.cxid));
  hash = fold(hash, static_cast<std::uint32_t>(txn.header.type));
  return std::visit([hash](const auto& body) { return body_digest(hash, body); }, txn.body);
}

}  // namespace

std::uint64_t txn_digest(const Txn& txn) {
  if (const std::optional<std::uint64_t>& known = txn.digest.get()) return *known;
  std::uint64_t digest = compute_txn_digest(txn);
  txn.digest.set(digest);
  return digest;
}

}  // namespace zk
