// Vocabulary shared by the ZooKeeper server and client models, named as in ZooKeeper 3.8:
// zxids and epochs (ZxidUtils), error codes (KeeperException.Code), create modes (CreateMode),
// Stat, watch event types and session states (Watcher.Event), and the replicated transactions
// (org.apache.zookeeper.txn.*).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "sim/time.h"

namespace zk {

// ---- zxids (ZxidUtils) ----
using Zxid = std::int64_t;
using SessionId = std::int64_t;
using ServerId = std::int64_t;  // myid / sid

constexpr Zxid make_zxid(std::int64_t epoch, std::int64_t counter) { return (epoch << 32) | (counter & 0xffffffffLL); }
constexpr std::int64_t epoch_of(Zxid zxid) { return zxid >> 32; }
constexpr std::int64_t counter_of(Zxid zxid) { return zxid & 0xffffffffLL; }
std::string format_zxid(Zxid zxid);  // "0x100000005"

// ---- KeeperException.Code ----
enum class Code : std::int32_t {
  ok = 0,
  runtime_inconsistency = -2,
  connection_loss = -4,
  unimplemented = -6,  // e.g. addWatch on a client or server older than 3.6
  operation_timeout = -7,
  bad_arguments = -8,
  no_node = -101,
  no_auth = -102,
  bad_version = -103,
  no_children_for_ephemerals = -108,
  node_exists = -110,
  not_empty = -111,
  session_expired = -112,
  invalid_acl = -114,
  session_moved = -118,
};
std::string_view code_name(Code code);  // "NONODE", "NODEEXISTS", ...

// The next path of PathParentIterator's walk (3.6+): "/a/b" -> "/a", "/a" -> "/". Not for "/".
constexpr std::string_view parent_path(std::string_view path) {
  const std::size_t slash = path.rfind('/');
  return path.substr(0, slash == 0 ? 1 : slash);
}
static_assert(parent_path("/a/b") == "/a" && parent_path("/a") == "/");

// ---- CreateMode ----
enum class CreateMode : std::uint8_t { persistent, persistent_sequential, ephemeral, ephemeral_sequential };
constexpr bool is_ephemeral(CreateMode mode) { return mode == CreateMode::ephemeral || mode == CreateMode::ephemeral_sequential; }
constexpr bool is_sequential(CreateMode mode) {
  return mode == CreateMode::persistent_sequential || mode == CreateMode::ephemeral_sequential;
}
std::string_view create_mode_name(CreateMode mode);

// ---- Stat (org.apache.zookeeper.data.Stat) ----
struct Stat {
  Zxid czxid = 0;
  Zxid mzxid = 0;
  std::int64_t ctime = 0;  // the leader's clock when the txn was prepared (TxnHeader.time), in ms
  std::int64_t mtime = 0;
  std::int32_t version = 0;
  std::int32_t cversion = 0;
  std::int32_t aversion = 0;
  SessionId ephemeral_owner = 0;
  std::int32_t data_length = 0;
  std::int32_t num_children = 0;
  Zxid pzxid = 0;
  bool operator==(const Stat&) const = default;
};

// ---- Watcher.Event ----
enum class EventType : std::int8_t { none = -1, node_created = 1, node_deleted = 2, node_data_changed = 3, node_children_changed = 4 };
enum class KeeperState : std::int8_t { disconnected = 0, sync_connected = 3, auth_failed = 4, expired = -112, closed = 7 };
std::string_view event_type_name(EventType type);    // "NodeCreated", ...
std::string_view keeper_state_name(KeeperState state);

struct WatchedEvent {
  EventType type = EventType::none;
  KeeperState state = KeeperState::sync_connected;
  std::string path;
  bool operator==(const WatchedEvent&) const = default;
};

// ---- OpCode (ZooDefs.OpCode) ----
enum class OpCode : std::int32_t {
  notification = 0,
  create = 1,
  delete_node = 2,
  exists = 3,
  get_data = 4,
  set_data = 5,
  get_children = 8,
  sync = 9,
  ping = 11,
  check = 13,
  multi = 14,
  create_session = -10,
  close_session = -11,
  error = -1,
  set_watches = 101,  // SetWatches, or SetWatches2 (105) when the client holds persistent watches
  add_watch = 106,
};

// org.apache.zookeeper.AddWatchMode (3.6+): what ZooKeeper.addWatch leaves on a path.
enum class AddWatchMode : std::uint8_t { persistent, persistent_recursive };

// ---- transactions (org.apache.zookeeper.txn) ----
// What the leader's PrepRequestProcessor turns a write into, what Zab replicates and logs, and
// what every server's DataTree applies.
struct CreateTxn {
  std::string path;  // the final path (with the sequential suffix)
  std::string data;
  bool ephemeral = false;
  std::int32_t parent_cversion = -1;  // the parent's cversion after this create
};
struct DeleteTxn {
  std::string path;
};
struct SetDataTxn {
  std::string path;
  std::string data;
  std::int32_t version = 0;  // the node's new version
};
struct CheckVersionTxn {
  std::string path;
  std::int32_t version = 0;
};
struct CreateSessionTxn {
  std::int32_t timeout_ms = 0;
};
struct CloseSessionTxn {
  std::vector<std::string> paths_to_delete;  // in deletion order
};
struct ErrorTxn {
  Code error = Code::ok;
};
// One operation of a multi (all share the multi's header and zxid).
struct SubTxn {
  OpCode type;
  std::variant<CreateTxn, DeleteTxn, SetDataTxn, CheckVersionTxn, ErrorTxn> body;
};
// A multi's body is its list of sub-transactions.
using MultiTxn = std::vector<SubTxn>;
using TxnBody = std::variant<CreateTxn, DeleteTxn, SetDataTxn, CheckVersionTxn, CreateSessionTxn, CloseSessionTxn, ErrorTxn, MultiTxn>;

struct TxnHeader {
  SessionId session_id = 0;
  std::int32_t cxid = 0;
  Zxid zxid = 0;
  std::int64_t time = 0;  // leader's clock, ms
  OpCode type = OpCode::error;
};

// txn_digest's result, kept with the txn it was computed from: the servers of an ensemble share
// one immutable txn (Zab's PROPOSAL carries a shared_ptr<const Txn>) and each traces its digest at
// commit, so it is computed once instead of once per server. A copy starts empty, since a copy may
// be changed; a txn is digested only once committed, when nothing changes it any more.
class TxnDigestCache {
 public:
  TxnDigestCache() = default;
  TxnDigestCache(const TxnDigestCache&) {}
  TxnDigestCache& operator=(const TxnDigestCache&) {
    value_.reset();
    return *this;
  }
  const std::optional<std::uint64_t>& get() const { return value_; }
  void set(std::uint64_t value) const { value_ = value; }

 private:
  mutable std::optional<std::uint64_t> value_;
};

struct Txn {
  TxnHeader header;
  TxnBody body;
  TxnDigestCache digest{};  // for txn_digest only (braced: no missing-initializer warning for Txn{header, body})
};

// A content hash of a txn (header and body), for comparing what replicas committed.
std::uint64_t txn_digest(const Txn& txn);

}  // namespace zk
