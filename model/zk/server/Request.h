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

}  // namespace zk
