#include "model/zk/server/ServerCnxn.h"

#include <algorithm>

#include "model/zk/quorum/QuorumPeer.h"
#include "sim/assert.h"
#include "model/zk/server/ZooKeeperServer.h"

namespace zk {

namespace {

// NIOServerCnxnFactory's sessionlessCnxnTimeout (10 s), also the interval of its cnxnExpiryQueue:
// a connection with no read or write for its timeout (this before its session is set up, the
// session's after) is closed when its 10-s bucket comes due.
constexpr std::int32_t sessionless_cnxn_timeout_ms = 10000;

std::int64_t roundToNextInterval(std::int64_t time_ms) {
  return (time_ms / sessionless_cnxn_timeout_ms + 1) * sessionless_cnxn_timeout_ms;
}

Request toRequest(const ClientRequest& request, SessionId session, std::uint64_t owner) {
  Request converted;
  converted.sessionId = session;
  converted.cxid = request.xid;
  converted.type = request.type;
  converted.path = request.path;
  converted.data = request.data;
  converted.mode = request.mode;
  converted.version = request.version;
  converted.owner = owner;
  for (const ClientRequest& op : request.ops) converted.ops.push_back(toRequest(op, session, owner));
  return converted;
}

bool isWrite(OpCode type) {
  switch (type) {
    case OpCode::create:
    case OpCode::delete_node:
    case OpCode::set_data:
    case OpCode::check:
    case OpCode::multi:
    case OpCode::close_session: return true;
    default: return false;
  }
}

}  // namespace

void ServerCnxnFactory::start() {
  self_.spawn(acceptLoop());
  self_.spawn(connectionExpirer());
}

void ServerCnxnFactory::touchCnxn(Connection& connection) {
  connection.expiry_ms = roundToNextInterval(self_.clockMs() + connection.timeout_ms);
}

sim::Task<void> ServerCnxnFactory::connectionExpirer() {
  // ExpiryQueue: the first bucket is the one after the factory starts; each poll takes one bucket.
  std::int64_t next_expiration_ms = roundToNextInterval(self_.clockMs());
  while (true) {
    std::int64_t wait_ms = next_expiration_ms - self_.clockMs();
    if (wait_ms > 0) co_await self_.sim().sleep(std::chrono::milliseconds(wait_ms));
    // Every connection whose bucket has come (one touched since has moved to a later bucket).
    std::vector<std::uint64_t> expired;
    for (const auto& [id, connection] : connections_) {
      if (connection.expiry_ms <= next_expiration_ms) expired.push_back(id);
    }
    for (std::uint64_t id : expired) {
      auto connection = connections_.find(id);
      if (connection == connections_.end()) continue;
      self_.sim().trace().emit(self_.id(), "server.cnxn_expire", {{"session", connection->second.session}, {"connection", id}});
      connection->second.socket->close();  // its serve() ends and unregisters it
    }
    next_expiration_ms += sessionless_cnxn_timeout_ms;
  }
}

sim::Task<void> ServerCnxnFactory::acceptLoop() {
  sim::Listener<ClientPacket> listener = self_.sim().network().listen<ClientPacket>(self_.id(), client_port);
  while (true) {
    sim::Socket<ClientPacket> socket = co_await listener.accept();
    self_.spawn(serve(std::move(socket)));
  }
}

void ServerCnxnFactory::closeAllConnections() {
  for (auto& [id, connection] : connections_) connection.socket->close();
}

void ServerCnxnFactory::closeSession(SessionId session, std::uint64_t except) {
  for (auto& [id, connection] : connections_) {
    if (connection.session == session && id != except) connection.socket->close();
  }
}

void ServerCnxnFactory::deliverWatch(const FiredWatch& watch) {
  for (WatcherId watcher : watch.watchers) {
    auto connection = connections_.find(watcher);
    if (connection == connections_.end()) continue;
    connection->second.socket->send(WatcherEvent{watch.event});
    touchCnxn(connection->second);
    if (watch.table.empty()) {
      self_.sim().trace().emit(self_.id(), "watch.fire",
                               {{"session", connection->second.session},
                                {"connection", watcher},
                                {"path", watch.event.path},
                                {"type", event_type_name(watch.event.type)}});
    } else {
      self_.sim().trace().emit(self_.id(), "watch.fire",
                               {{"session", connection->second.session},
                                {"connection", watcher},
                                {"path", watch.event.path},
                                {"type", event_type_name(watch.event.type)},
                                {"table", watch.table}});
    }
  }
}

sim::Task<void> ServerCnxnFactory::serve(sim::Socket<ClientPacket> socket) {
  std::uint64_t id = next_connection_id_++;
  // A map's entries stay put: this one is ours until the Registration below erases it.
  Connection& connection = connections_[id] = Connection{&socket, 0, sessionless_cnxn_timeout_ms, 0};
  touchCnxn(connection);  // addCnxn
  // Unregisters the connection and drops its watches however this coroutine ends (a crash too).
  struct Registration {
    ServerCnxnFactory& factory;
    std::uint64_t id;
    ~Registration() {
      factory.connections_.erase(id);
      factory.self_.getZkDb().getDataTree().removeWatcher(id);
    }
  } registration{*this, id};

  // Silent until the connection expirer closes it, if need be.
  sim::Received<ClientPacket> first = co_await socket.receive();
  if (!first) co_return;
  touchCnxn(connection);
  const auto* connect = std::get_if<ConnectRequest>(&*first.message);
  if (connect == nullptr) co_return;
  std::int32_t timeout_ms = 0;
  SessionId session = 0;
  if (!co_await establishSession(socket, id, *connect, timeout_ms, session)) co_return;
  connection.session = session;
  connection.timeout_ms = timeout_ms;  // setSessionTimeout touches
  touchCnxn(connection);

  while (socket.valid()) {
    sim::Received<ClientPacket> received = co_await socket.receive();
    if (!received) co_return;
    touchCnxn(connection);
    auto* request = std::get_if<ClientRequest>(&*received.message);
    if (request == nullptr) co_return;
    ZooKeeperServer* zks = self_.getActiveServer();
    if (zks == nullptr || !zks->isRunning()) co_return;
    // ZooKeeperServer.touch: a request of an unknown or closing session is dropped unanswered.
    if (!zks->touch(session, timeout_ms)) continue;
    // A read is answered before this returns. Only a write waits (for its commit), so only a write
    // costs a coroutine and moves its request into it.
    if (!isWrite(request->type)) {
      // PrepRequestProcessor.pRequest on the leader checks the owner for reads, pings, setWatches,
      // addWatch and sync too (a follower sends them nowhere): SessionMovedException closes the
      // connection without a reply, as for a write (FinalRequestProcessor, ZOOKEEPER-710). A
      // session with no owner yet (a new leader) is claimed by the check.
      if (zks->role() == ZooKeeperServer::Role::leader &&
          zks->sessionTracker()->checkSession(session, static_cast<std::uint64_t>(self_.myid())) == Code::session_moved) {
        co_return;
      }
      serveRead(socket, id, *request);
    } else if (!co_await serveWrite(id, *zks, session, std::move(*request))) {
      co_return;
    }
  }
}

sim::Task<bool> ServerCnxnFactory::establishSession(sim::Socket<ClientPacket>& socket, std::uint64_t id,
                                                    const ConnectRequest& connect, std::int32_t& timeout_ms, SessionId& session) {
  ZooKeeperServer* zks = self_.getActiveServer();
  if (zks == nullptr || !zks->isRunning()) co_return false;  // "ZooKeeperServer not running"
  Zxid last_processed = self_.getZkDb().getDataTreeLastProcessedZxid();
  if (connect.last_zxid_seen > last_processed) {
    // The client has seen a newer state than ours: it must try another server.
    self_.sim().trace().emit(self_.id(), "server.refuse", {{"client_zxid", connect.last_zxid_seen}, {"our_zxid", last_processed}});
    co_return false;
  }
  const QuorumPeerConfig& config = self_.config();
  timeout_ms = static_cast<std::int32_t>(
      std::clamp<std::int64_t>(connect.timeout_ms, sim::millis(config.min_session()), sim::millis(config.max_session())));
  SessionId id_of_session = connect.session_id;
  bool valid;
  bool created = id_of_session == 0;
  if (created) {
    id_of_session = zks->allocateSessionId(timeout_ms);
    valid = co_await zks->createSession(id_of_session, timeout_ms);  // zks may be gone after this
    if (!valid) co_return false;
  } else {
    closeSession(id_of_session, id);  // an older connection of the same session here goes away
    valid = connect.password == generate_password(id_of_session) && co_await zks->revalidateSession(id_of_session, timeout_ms);
  }
  if (!socket.valid()) co_return false;
  self_.sim().trace().emit(self_.id(), "server.session",
                           {{"session", id_of_session}, {"valid", valid}, {"new", created}, {"timeout_ms", timeout_ms}});
  ConnectResponse response;
  response.timeout_ms = valid ? timeout_ms : 0;
  response.session_id = valid ? id_of_session : 0;
  response.password = valid ? generate_password(id_of_session) : 0;
  socket.send(response);
  session = id_of_session;
  co_return valid;  // an invalid session's connection closes right after the response
}

void ServerCnxnFactory::traceWatchRegistered(std::uint64_t id, const std::string& path, const char* table) {
  auto connection = connections_.find(id);
  SessionId session = connection != connections_.end() ? connection->second.session : 0;
  self_.sim().trace().emit(self_.id(), "watch.register", {{"session", session}, {"connection", id}, {"path", path}, {"table", table}});
}

ClientReply ServerCnxnFactory::readNode(std::uint64_t id, const ClientRequest& request) {
  DataTree& tree = self_.getZkDb().getDataTree();
  std::optional<WatcherId> watcher;
  if (request.watch) watcher = id;
  ClientReply reply;
  reply.xid = request.xid;
  const char* table = "data";
  switch (request.type) {
    case OpCode::exists: reply.err = tree.exists(request.path, watcher, &reply.stat); break;
    case OpCode::get_data: reply.err = tree.getData(request.path, watcher, &reply.body.emplace<ClientReply::Data>().value, &reply.stat); break;
    case OpCode::get_children:
      reply.err = tree.getChildren(request.path, watcher, &reply.body.emplace<std::vector<std::string>>(), &reply.stat);
      table = "child";
      break;
    case OpCode::add_watch:
      // FinalRequestProcessor (3.8): addWatch on any path, existing or not; always OK.
      tree.addWatch(request.path, id, request.add_watch_mode);
      traceWatchRegistered(id, request.path, request.add_watch_mode == AddWatchMode::persistent ? "persistent" : "persistent_recursive");
      break;
    default: ELECTSIM_UNREACHABLE();
  }
  // exists() sets a watch even on a missing node; getData/getChildren only on an existing one.
  if (watcher && (reply.err == Code::ok || request.type == OpCode::exists)) traceWatchRegistered(id, request.path, table);
  reply.zxid = tree.getLastProcessedZxid();
  return reply;
}

void ServerCnxnFactory::serveRead(sim::Socket<ClientPacket>& socket, std::uint64_t id, const ClientRequest& request) {
  DataTree& tree = self_.getZkDb().getDataTree();
  switch (request.type) {
    case OpCode::ping: {
      ClientReply reply;
      reply.xid = ping_xid;
      reply.zxid = tree.getLastProcessedZxid();
      socket.send(std::move(reply));
      return;
    }
    case OpCode::set_watches: {
      std::vector<FiredWatch> fired;
      ELECTSIM_ASSERT_MSG(request.set_watches != nullptr, "a SetWatches request carries its lists");
      const SetWatches& lists = *request.set_watches;
      for (const std::string& path : lists.data_watches) traceWatchRegistered(id, path, "data");
      for (const std::string& path : lists.exist_watches) traceWatchRegistered(id, path, "data");
      for (const std::string& path : lists.child_watches) traceWatchRegistered(id, path, "child");
      for (const std::string& path : lists.persistent_watches) traceWatchRegistered(id, path, "persistent");
      for (const std::string& path : lists.persistent_recursive_watches) traceWatchRegistered(id, path, "persistent_recursive");
      tree.setWatches(lists.relative_zxid, lists.data_watches, lists.exist_watches, lists.child_watches,
                      lists.persistent_watches, lists.persistent_recursive_watches, id, &fired);
      for (const FiredWatch& watch : fired) deliverWatch(watch);
      // FinalRequestProcessor: every reply header carries the tree's last processed zxid, this one too.
      ClientReply reply;
      reply.xid = set_watches_xid;
      reply.zxid = tree.getLastProcessedZxid();
      socket.send(reply);
      return;
    }
    case OpCode::sync: {
      // Reads are served from this server's state; sync is answered at once (simplified: the real
      // one goes through the leader to flush the channel).
      ClientReply reply;
      reply.xid = request.xid;
      reply.zxid = tree.getLastProcessedZxid();
      socket.send(reply);
      return;
    }
    default: socket.send(readNode(id, request)); return;
  }
}

// A write: through the leader, answered once committed and applied here.
sim::Task<bool> ServerCnxnFactory::serveWrite(std::uint64_t id, ZooKeeperServer& zks, SessionId session, ClientRequest request) {
  WriteReply reply{id, request.xid, {}};
  for (const ClientRequest& op : request.ops) reply.opTypes.push_back(op.type);
  const bool closing = request.type == OpCode::close_session;
  ProcessTxnResult result;
  try {
    result = co_await zks.submitWrite(toRequest(request, session, static_cast<std::uint64_t>(self_.myid())), std::move(reply));
  } catch (const sim::BrokenPromise&) {
    co_return false;  // the server stopped serving: the client sees its connection close
  }
  // FinalRequestProcessor: SessionMovedException is a connection-level error (ZOOKEEPER-710). The
  // server sends no reply and closes the connection (cnxn.sendCloseSession); the client sees a
  // connection loss, and its reconnect makes this server the session's owner again. Answering
  // SESSIONMOVED instead would leave a client that stays connected failing every write for good.
  if (result.error == Code::session_moved) co_return false;
  co_return !closing;  // after a close the connection goes
}

void ServerCnxnFactory::replyToWrite(const WriteReply& write, const ProcessTxnResult& result, Zxid zxid) {
  if (result.error == Code::session_moved) return;  // serveWrite closes the connection instead
  auto connection = connections_.find(write.connection);
  if (connection == connections_.end() || !connection->second.socket->valid()) return;
  ClientReply reply;
  reply.xid = write.xid;
  reply.err = result.error;
  reply.stat = result.stat;
  reply.zxid = zxid;
  if (!result.path.empty()) reply.body.emplace<ClientReply::Path>(ClientReply::Path{result.path});
  if (!result.multi.empty()) {
    ELECTSIM_ASSERT(result.path.empty());  // a multi has no path of its own
    auto& results = reply.body.emplace<std::vector<OpResult>>();
    for (std::size_t i = 0; i < result.multi.size(); i++) {
      OpResult op;
      op.type = i < write.opTypes.size() ? write.opTypes[i] : OpCode::error;
      op.err = result.multi[i].error;
      op.path = result.multi[i].path;
      op.stat = result.multi[i].stat;
      results.push_back(std::move(op));
    }
  }
  connection->second.socket->send(std::move(reply));
  touchCnxn(connection->second);
}

}  // namespace zk
