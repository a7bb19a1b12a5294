// A client request as the leader's PrepRequestProcessor receives it: org.apache.zookeeper.server
// .Request with its deserialised record (CreateRequest, DeleteRequest, SetDataRequest,
// CheckVersionRequest, MultiOperationRecord, ConnectRequest) flattened into one struct.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/zk/types.h"

namespace zk {

struct Request {
  SessionId sessionId = 0;
  std::int32_t cxid = 0;
  OpCode type = OpCode::error;
  std::string path;  // create: the requested path, before any sequential suffix
  std::string data;
  CreateMode mode = CreateMode::persistent;
  std::int32_t version = -1;  // delete, setData, check: the expected version, -1 for any
  std::vector<Request> ops;   // multi: its operations (create, delete, setData, check), in order
  std::int32_t timeoutMs = 0;  // createSession: the negotiated session timeout
  // The server that holds the session's connection (Request.getOwner: a ServerCnxn or, for a
  // request forwarded by a follower, its LearnerHandler); checked by checkSession for SESSIONMOVED.
  std::uint64_t owner = 0;
};

// Where FinalRequestProcessor's reply to a client's write goes. ZooKeeperServer::commit sends it
// (ServerCnxnFactory::replyToWrite) as it applies the txn, as FinalRequestProcessor does before
// CommitProcessor hands it the next commit: so the reply carries this txn's zxid and precedes
// every notification of a later txn on the connection.
struct WriteReply {
  std::uint64_t connection = 0;  // the connection id, looked up when the reply is sent
  std::int32_t xid = 0;
  std::vector<OpCode> opTypes;  // a multi's operations, for its results
};

}  // namespace zk
