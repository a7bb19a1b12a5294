// The DataTree test fixture: a tree with a PrepRequestProcessor in front, as on a leader with
// nothing else in flight, and builders for the requests and the expected notifications.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/zk/server/DataTree.h"
#include "model/zk/server/PrepRequestProcessor.h"

namespace zk::data_tree_test {

constexpr SessionId session1 = 0x1000001;
constexpr SessionId session2 = 0x1000002;

class AllSessionsValid : public SessionValidator {
 public:
  Code checkSession(SessionId, std::uint64_t) override { return Code::ok; }
  Code checkGlobalSession(SessionId, std::uint64_t) override { return Code::ok; }
  void setSessionClosing(SessionId) override {}
};

inline Request makeCreate(SessionId session, std::string path, CreateMode mode = CreateMode::persistent, std::string data = "") {
  Request request;
  request.sessionId = session;
  request.type = OpCode::create;
  request.path = std::move(path);
  request.mode = mode;
  request.data = std::move(data);
  return request;
}

inline Request makeDelete(SessionId session, std::string path, std::int32_t version = -1) {
  Request request;
  request.sessionId = session;
  request.type = OpCode::delete_node;
  request.path = std::move(path);
  request.version = version;
  return request;
}

inline Request makeSetData(SessionId session, std::string path, std::string data, std::int32_t version = -1) {
  Request request;
  request.sessionId = session;
  request.type = OpCode::set_data;
  request.path = std::move(path);
  request.data = std::move(data);
  request.version = version;
  return request;
}

inline Request makeCheck(SessionId session, std::string path, std::int32_t version) {
  Request request;
  request.sessionId = session;
  request.type = OpCode::check;
  request.path = std::move(path);
  request.version = version;
  return request;
}

inline Request makeMulti(SessionId session, std::vector<Request> ops) {
  Request request;
  request.sessionId = session;
  request.type = OpCode::multi;
  request.ops = std::move(ops);
  return request;
}

inline Request makeCloseSession(SessionId session) {
  Request request;
  request.sessionId = session;
  request.type = OpCode::close_session;
  return request;
}

inline FiredWatch event(EventType type, std::string path, std::vector<WatcherId> watchers, std::string_view table = {}) {
  return FiredWatch{WatchedEvent{type, KeeperState::sync_connected, std::move(path)}, std::move(watchers), table};
}

// A leader with nothing in flight: prepare, apply, forget the change records.
class DataTreeTest : public ::testing::Test {
 protected:
  ProcessTxnResult write(const Request& request) {
    lastTxn = prep.pRequest2Txn(request, ++zxid, now);
    ProcessTxnResult result = tree.processTxn(lastTxn, &fired);
    prep.applied(lastTxn.header.zxid);
    EXPECT_EQ(prep.outstandingChanges(), 0u);
    return result;
  }
  std::string create(const std::string& path, CreateMode mode = CreateMode::persistent, SessionId session = session1) {
    ProcessTxnResult result = write(makeCreate(session, path, mode));
    EXPECT_EQ(result.error, Code::ok) << path;
    return result.path;
  }
  const Stat& stat(const std::string& path) {
    const DataNode* node = tree.getNode(path);
    EXPECT_NE(node, nullptr) << path;
    return node->stat;
  }
  void TearDown() override { tree.checkInvariants(); }

  DataTree tree;
  AllSessionsValid sessions;
  PrepRequestProcessor prep{tree, sessions};
  Zxid zxid = make_zxid(1, 0);
  std::int64_t now = 1'700'000'000'000;
  Txn lastTxn;
  std::vector<FiredWatch> fired;
};

}  // namespace zk::data_tree_test
