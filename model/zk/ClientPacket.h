// The client protocol between a ZooKeeper client (ClientCnxn) and a server (ServerCnxn):
// ConnectRequest/ConnectResponse for the session handshake, then requests and replies matched by
// xid, pings (xid -2), and watch notifications (xid -1). One FIFO connection per client.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "model/zk/types.h"

namespace zk {

inline constexpr std::int32_t notification_xid = -1;
inline constexpr std::int32_t ping_xid = -2;
inline constexpr std::int32_t set_watches_xid = -8;

struct ConnectRequest {
  std::int32_t protocol_version = 0;
  Zxid last_zxid_seen = 0;
  std::int32_t timeout_ms = 0;   // the requested session timeout (Java sends the original request)
  SessionId session_id = 0;      // 0: a new session
  std::uint64_t password = 0;    // generatePasswd(sessionId) for a reconnect
};

struct ConnectResponse {
  std::int32_t protocol_version = 0;
  std::int32_t timeout_ms = 0;  // 0: the session is expired (or the password was wrong)
  SessionId session_id = 0;
  std::uint64_t password = 0;
};

// SetWatches / SetWatches2: the watches a client holds, sent again after a reconnect.
struct SetWatches {
  Zxid relative_zxid = 0;
  std::vector<std::string> data_watches;
  std::vector<std::string> exist_watches;
  std::vector<std::string> child_watches;
  std::vector<std::string> persistent_watches;
  std::vector<std::string> persistent_recursive_watches;
};

// One operation; a multi carries its operations in `ops`.
struct ClientRequest {
  std::int32_t xid = 0;
  OpCode type = OpCode::ping;
  std::string path;
  std::string data;
  CreateMode mode = CreateMode::persistent;
  std::int32_t version = -1;
  bool watch = false;
  AddWatchMode add_watch_mode = AddWatchMode::persistent;  // addWatch
  std::vector<ClientRequest> ops;
  // SetWatches / SetWatches2 only (re-registration after a reconnect): behind a pointer, so the
  // requests that make up nearly all traffic do not carry and move five empty lists.
  std::shared_ptr<const SetWatches> set_watches;
};

struct OpResult {
  OpCode type = OpCode::error;
  Code err = Code::ok;
  std::string path;  // create
  Stat stat;         // setData
};

struct ClientReply {
  // What a reply carries besides its code, zxid and stat, by request: nothing (a ping, exists, a
  // failure), a write's path (create: the path made), getData's data, getChildren's children or a
  // multi's results. One variant, not four fields: a reply in flight or awaited is 128 bytes, not
  // 208, and a burst of notifications has one read in flight per changed node and client.
  struct Path {
    std::string value;
  };
  struct Data {
    std::string value;
  };
  using Body = std::variant<std::monostate, Path, Data, std::vector<std::string>, std::vector<OpResult>>;

  std::int32_t xid = 0;
  Code err = Code::ok;
  Zxid zxid = 0;  // the server's last processed zxid after this request
  Stat stat;
  Body body;

  // The part of the body asked for, moved out: empty when the reply has another (or none).
  std::string takePath() { return take<Path>().value; }
  std::string takeData() { return take<Data>().value; }
  std::vector<std::string> takeChildren() { return take<std::vector<std::string>>(); }
  std::vector<OpResult> takeResults() { return take<std::vector<OpResult>>(); }

 private:
  template <class T>
  T take() {
    T* part = std::get_if<T>(&body);
    return part != nullptr ? std::move(*part) : T{};
  }
};

// What getData and getChildren give their caller (ZooKeeper.h), made from the reply.
struct DataResult {
  Code code = Code::ok;
  std::string data;
  Stat stat;
  static DataResult from(ClientReply&& reply) { return DataResult{reply.err, reply.takeData(), reply.stat}; }
};
struct ChildrenResult {
  Code code = Code::ok;
  std::vector<std::string> children;
  Stat stat;
  static ChildrenResult from(ClientReply&& reply) { return ChildrenResult{reply.err, reply.takeChildren(), reply.stat}; }
};

struct WatcherEvent {
  WatchedEvent event;
};

using ClientPacket = std::variant<ConnectRequest, ConnectResponse, ClientRequest, ClientReply, WatcherEvent>;

// ZooKeeperServer.generatePasswd: deterministic from the session id, so any server can check it.
constexpr std::uint64_t generate_password(SessionId session_id) {
  auto x = static_cast<std::uint64_t>(session_id) ^ 0xB3415C00ULL;
  x = (x ^ (x >> 33)) * 0xff51afd7ed558ccdULL;
  return x ^ (x >> 33);
}

}  // namespace zk
