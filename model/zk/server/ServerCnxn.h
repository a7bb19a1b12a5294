// The client port of a server (NIOServerCnxnFactory) and one client connection (NIOServerCnxn).
//
// The port accepts connections in every state, but a server that is not serving (LOOKING, or not
// yet synced) closes a connection as soon as its ConnectRequest arrives, and so does a server that
// is behind the client's last seen zxid. When a server leaves a role it closes every client
// connection. Watches belong to connections: a watch fires as a notification on the connection that
// set it, and a closed connection drops its watches.
#pragma once

#include <map>

#include "model/zk/ClientPacket.h"
#include "model/zk/server/DataTree.h"
#include "model/zk/server/Request.h"
#include "sim/network.h"

namespace zk {

class QuorumPeer;
class ZooKeeperServer;

class ServerCnxnFactory {
 public:
  explicit ServerCnxnFactory(QuorumPeer& self) : self_(self) {}
  ServerCnxnFactory(const ServerCnxnFactory&) = delete;

  void start();  // listens on the client port
  // QuorumPeer.closeAllConnections, on every role change.
  void closeAllConnections();
  // Closes every connection of `session` except `except` (0: none).
  void closeSession(SessionId session, std::uint64_t except);
  void deliverWatch(const FiredWatch& watch);
  // FinalRequestProcessor's reply to a committed write, sent on its connection if that is still
  // open; none for SESSIONMOVED (serveWrite then closes the connection).
  void replyToWrite(const WriteReply& write, const ProcessTxnResult& result, Zxid zxid);
  std::size_t connectionCount() const { return connections_.size(); }

 private:
  struct Connection {
    sim::Socket<ClientPacket>* socket;
    SessionId session = 0;
    // NIOServerCnxn.getSessionTimeout: sessionlessCnxnTimeout until the session is set up.
    std::int32_t timeout_ms = 0;
    // Its bucket in cnxnExpiryQueue, on this server's clock (ms).
    std::int64_t expiry_ms = 0;
  };

  sim::Task<void> acceptLoop();
  // NIOServerCnxnFactory.touchCnxn, on every read or write of the connection and when its session
  // timeout is set: cnxnExpiryQueue.update(cnxn, cnxn.getSessionTimeout()).
  void touchCnxn(Connection& connection);
  // ConnectionExpirerThread: at each 10-s bucket of cnxnExpiryQueue, closes the connections in it.
  sim::Task<void> connectionExpirer();
  sim::Task<void> serve(sim::Socket<ClientPacket> socket);
  sim::Task<bool> establishSession(sim::Socket<ClientPacket>& socket, std::uint64_t id, const ConnectRequest& connect,
                                   std::int32_t& timeout_ms, SessionId& session);
  // Everything but a write (FinalRequestProcessor's reads, ping, setWatches, sync), answered at once.
  void serveRead(sim::Socket<ClientPacket>& socket, std::uint64_t id, const ClientRequest& request);
  ClientReply readNode(std::uint64_t id, const ClientRequest& request);  // exists, getData, getChildren, addWatch
  // A write, answered (by commit, replyToWrite) once committed and applied here; false: the
  // connection goes.
  sim::Task<bool> serveWrite(std::uint64_t id, ZooKeeperServer& zks, SessionId session, ClientRequest request);
  void traceWatchRegistered(std::uint64_t id, const std::string& path, const char* table);

  QuorumPeer& self_;
  std::uint64_t next_connection_id_ = 1;
  std::map<std::uint64_t, Connection> connections_;  // by connection id (= WatcherId)
};

}  // namespace zk
