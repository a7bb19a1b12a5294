// PrepRequestProcessor (3.8): writes validated against the committed tree plus the changes still
// in flight, the check order and codes of pRequest2Txn, multi rollback, and closeSession.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "model/zk/server/DataTree.h"
#include "model/zk/server/PrepRequestProcessor.h"
#include "sim/assert.h"

namespace zk {
namespace {

constexpr SessionId session1 = 0x2000001;
constexpr SessionId session2 = 0x2000002;

// A session tracker that records what prep asked it, closes sessions when told to, and can be
// told that a session is gone or owned by another server.
class FakeSessions : public SessionValidator {
 public:
  Code checkSession(SessionId id, std::uint64_t owner) override {
    calls.push_back("checkSession");
    return verdict(id, owner);
  }
  Code checkGlobalSession(SessionId id, std::uint64_t owner) override {
    calls.push_back("checkGlobalSession");
    return verdict(id, owner);
  }
  void setSessionClosing(SessionId id) override {
    calls.push_back("setSessionClosing");
    closing.insert(id);
  }

  std::vector<std::string> calls;
  std::set<SessionId> closing;
  std::set<SessionId> expired;
  std::map<SessionId, std::uint64_t> owners;

 private:
  Code verdict(SessionId id, std::uint64_t owner) const {
    if (closing.contains(id) || expired.contains(id)) return Code::session_expired;
    if (auto known = owners.find(id); known != owners.end() && known->second != owner) return Code::session_moved;
    return Code::ok;
  }
};

Request op(OpCode type, std::string path, std::int32_t version = -1, CreateMode mode = CreateMode::persistent) {
  Request request;
  request.sessionId = session1;
  request.type = type;
  request.path = std::move(path);
  request.version = version;
  request.mode = mode;
  return request;
}

Request create(std::string path, CreateMode mode = CreateMode::persistent, SessionId session = session1) {
  Request request = op(OpCode::create, std::move(path), -1, mode);
  request.sessionId = session;
  return request;
}

Request multi(std::vector<Request> ops) {
  Request request = op(OpCode::multi, "");
  request.ops = std::move(ops);
  return request;
}

Request closeSession(SessionId session) {
  Request request = op(OpCode::close_session, "");
  request.sessionId = session;
  return request;
}

Code errorOf(const Txn& txn) {
  if (txn.header.type != OpCode::error) return Code::ok;
  return std::get<ErrorTxn>(txn.body).error;
}

Code multiErrorOf(const Txn& txn) {
  for (const SubTxn& sub : std::get<MultiTxn>(txn.body)) {
    if (sub.type == OpCode::error) return std::get<ErrorTxn>(sub.body).error;
  }
  return Code::ok;
}

std::string createdPath(const Txn& txn) { return std::get<CreateTxn>(txn.body).path; }

class PrepTest : public ::testing::Test {
 protected:
  // Prepare without applying: the txn joins the pipeline.
  Txn prepare(const Request& request) {
    Txn txn = prep.pRequest2Txn(request, ++zxid, now);
    EXPECT_EQ(txn.header.zxid, zxid);  // every write uses up its zxid, failed or not
    pending.push_back(txn);
    return txn;
  }
  // Commit and apply everything prepared so far, in order, as the leader would.
  void applyAll() {
    for (const Txn& txn : pending) {
      const ProcessTxnResult result = tree.processTxn(txn, nullptr);
      // What prep accepted, the tree applies without a failure (a failed multi reports its op's).
      const Code expected = txn.header.type == OpCode::multi ? multiErrorOf(txn) : errorOf(txn);
      EXPECT_EQ(result.error, expected) << format_zxid(txn.header.zxid);
      prep.applied(txn.header.zxid);
    }
    pending.clear();
    EXPECT_EQ(prep.outstandingChanges(), 0u);
    tree.checkInvariants();
  }
  Txn write(const Request& request) {
    Txn txn = prepare(request);
    applyAll();
    return txn;
  }

  DataTree tree;
  FakeSessions sessions;
  PrepRequestProcessor prep{tree, sessions};
  Zxid zxid = make_zxid(3, 0);
  std::int64_t now = 5000;
  std::vector<Txn> pending;
};

TEST_F(PrepTest, SequentialCreatesInFlightGetConsecutiveSuffixes) {
  write(create("/q"));
  const Txn first = prepare(create("/q/n-", CreateMode::ephemeral_sequential));
  const Txn second = prepare(create("/q/n-", CreateMode::persistent_sequential, session2));
  EXPECT_EQ(createdPath(first), "/q/n-0000000000");
  EXPECT_EQ(createdPath(second), "/q/n-0000000001");
  EXPECT_EQ(std::get<CreateTxn>(first.body).parent_cversion, 1);
  EXPECT_EQ(std::get<CreateTxn>(second.body).parent_cversion, 2);
  EXPECT_TRUE(std::get<CreateTxn>(first.body).ephemeral);
  EXPECT_EQ(tree.getNode("/q/n-0000000000"), nullptr);  // nothing applied yet
  applyAll();
  EXPECT_EQ(tree.getNode("/q/n-0000000000")->stat.ephemeral_owner, session1);
  EXPECT_EQ(tree.getNode("/q/n-0000000001")->stat.ephemeral_owner, 0);
  EXPECT_EQ(tree.getNode("/q")->stat.cversion, 2);
}

TEST_F(PrepTest, ADeletePreparedAfterACreateSeesIt) {
  prepare(create("/a"));
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/a", 1))), Code::bad_version);
  const Txn remove = prepare(op(OpCode::delete_node, "/a", 0));
  EXPECT_EQ(remove.header.type, OpCode::delete_node);
  EXPECT_EQ(std::get<DeleteTxn>(remove.body).path, "/a");
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/a"))), Code::no_node);  // already going
  EXPECT_EQ(prepare(create("/a")).header.type, OpCode::create);                // and may come back
  applyAll();
  EXPECT_NE(tree.getNode("/a"), nullptr);
}

TEST_F(PrepTest, PendingChildrenMakeTheParentNotEmpty) {
  write(create("/p"));
  prepare(create("/p/c"));
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p"))), Code::not_empty);
  prepare(op(OpCode::delete_node, "/p/c"));
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p"))), Code::ok);
  applyAll();
  EXPECT_EQ(tree.getNode("/p"), nullptr);
}

TEST_F(PrepTest, SetDataVersionsFollowThePipeline) {
  write(create("/d"));
  const Txn first = prepare(op(OpCode::set_data, "/d", 0));
  const Txn second = prepare(op(OpCode::set_data, "/d", 1));
  EXPECT_EQ(std::get<SetDataTxn>(first.body).version, 1);
  EXPECT_EQ(std::get<SetDataTxn>(second.body).version, 2);
  EXPECT_EQ(errorOf(prepare(op(OpCode::set_data, "/d", 1))), Code::bad_version);
  const Txn check = prepare(op(OpCode::check, "/d", 2));
  EXPECT_EQ(std::get<CheckVersionTxn>(check.body).version, 3);  // checkAndIncVersion's result, as in Java
  EXPECT_EQ(errorOf(prepare(op(OpCode::check, "/d", 1))), Code::bad_version);
  EXPECT_EQ(errorOf(prepare(op(OpCode::check, "/none", -1))), Code::no_node);
  applyAll();
  EXPECT_EQ(tree.getNode("/d")->stat.version, 2);
}

TEST_F(PrepTest, AFailedWriteBecomesAnErrorTxnWithItsZxid) {
  write(create("/x"));
  const std::size_t before = prep.outstandingChanges();
  Request again = create("/x");
  again.cxid = 42;
  const Txn txn = prepare(again);
  EXPECT_EQ(txn.header.type, OpCode::error);
  EXPECT_EQ(txn.header.cxid, 42);
  EXPECT_EQ(txn.header.session_id, session1);
  EXPECT_EQ(txn.header.time, now);
  EXPECT_EQ(errorOf(txn), Code::node_exists);
  EXPECT_EQ(prep.outstandingChanges(), before);
  applyAll();
  EXPECT_EQ(tree.getLastProcessedZxid(), txn.header.zxid);
}

TEST_F(PrepTest, CreateChecksInJavasOrder) {
  write(create("/e", CreateMode::ephemeral));
  EXPECT_EQ(errorOf(prepare(create("/missing/child"))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(create("/e"))), Code::node_exists);  // before the ephemeral-parent check
  EXPECT_EQ(errorOf(prepare(create("/e/child"))), Code::no_children_for_ephemerals);
  EXPECT_EQ(errorOf(prepare(create("/"))), Code::node_exists);
  EXPECT_EQ(prep.outstandingChanges(), 0u);
}

TEST_F(PrepTest, MalformedPathsAreBadArguments) {
  write(create("/a"));
  for (const char* path : {"", "a", "/a/", "//a", "/a//b", "/a/./b", "/a/..", "/."}) {
    EXPECT_EQ(errorOf(prepare(op(OpCode::set_data, path))), Code::bad_arguments) << path;
  }
  for (const char* path : {"", "a", "/a/", "//a", "/a/..", "/."}) {
    EXPECT_EQ(errorOf(prepare(create(path))), Code::bad_arguments) << path;
  }
  // A create looks its parent (the text before the last '/') up before validating the whole
  // path, so a malformed parent is simply missing.
  EXPECT_EQ(errorOf(prepare(create("/a//b"))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(create("/a/./b"))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(create(std::string("/nul\0here", 9)))), Code::bad_arguments);
  // A sequential create may end in '/': the suffix makes the name ("/p/" + "0000000000").
  write(create("/p"));
  EXPECT_EQ(createdPath(write(create("/p/", CreateMode::persistent_sequential))), "/p/0000000000");
  // A delete does not validate the path: a malformed one names no node.
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p/"))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "nothing"))), Code::bad_arguments);
  EXPECT_TRUE(PrepRequestProcessor::isValidPath("/"));
  EXPECT_TRUE(PrepRequestProcessor::isValidPath("/a.b/..c/d."));
}

TEST_F(PrepTest, SystemNodesAreProtected) {
  for (const char* path : {"/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config"}) {
    EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, path))), Code::bad_arguments) << path;
  }
  // /zookeeper/config is READ_ACL_UNSAFE (ZOOKEEPER-2014); the rest of /zookeeper is open.
  EXPECT_EQ(errorOf(prepare(create("/zookeeper/config/x"))), Code::no_auth);
  EXPECT_EQ(errorOf(prepare(op(OpCode::set_data, "/zookeeper/config"))), Code::no_auth);
  EXPECT_EQ(errorOf(prepare(op(OpCode::check, "/zookeeper/config", 0))), Code::ok);
  EXPECT_EQ(errorOf(prepare(create("/zookeeper/mine"))), Code::ok);
  applyAll();
}

TEST_F(PrepTest, DeleteChecksInJavasOrder) {
  write(create("/p"));
  write(create("/p/c"));
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/nothing/c"))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p/nothing", 5))), Code::no_node);
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p", 5))), Code::bad_version);  // before NOTEMPTY
  EXPECT_EQ(errorOf(prepare(op(OpCode::delete_node, "/p", 0))), Code::not_empty);
}

TEST_F(PrepTest, SessionChecks) {
  sessions.owners[session1] = 7;
  Request write1 = create("/w");
  write1.owner = 7;
  EXPECT_EQ(errorOf(prepare(write1)), Code::ok);
  write1.owner = 8;  // forwarded by a server that no longer holds the connection
  EXPECT_EQ(errorOf(prepare(write1)), Code::session_moved);
  sessions.calls.clear();
  prepare(create("/eph", CreateMode::ephemeral, session2));
  prepare(create("/per", CreateMode::persistent, session2));
  prepare(op(OpCode::set_data, "/per"));
  EXPECT_EQ(sessions.calls, (std::vector<std::string>{"checkGlobalSession", "checkSession", "checkSession"}));
  sessions.expired.insert(session2);
  EXPECT_EQ(errorOf(prepare(create("/late", CreateMode::ephemeral, session2))), Code::session_expired);
  Request remove = op(OpCode::delete_node, "/per");
  remove.sessionId = session2;
  EXPECT_EQ(errorOf(prepare(remove)), Code::session_expired);
  applyAll();
}

TEST_F(PrepTest, CreateSessionCarriesTheTimeout) {
  Request request = op(OpCode::create_session, "");
  request.sessionId = session2;
  request.timeoutMs = 6000;
  const Txn txn = write(request);
  EXPECT_EQ(txn.header.type, OpCode::create_session);
  EXPECT_EQ(std::get<CreateSessionTxn>(txn.body).timeout_ms, 6000);
  EXPECT_TRUE(sessions.calls.empty());
}

TEST_F(PrepTest, CloseSessionSeesTheWritesInFlight) {
  write(create("/p"));
  write(create("/p/kept", CreateMode::ephemeral));
  write(create("/p/deleted", CreateMode::ephemeral));
  write(create("/p/theirs", CreateMode::ephemeral, session2));
  prepare(op(OpCode::delete_node, "/p/deleted"));
  prepare(create("/p/new", CreateMode::ephemeral));
  prepare(create("/p/seq-", CreateMode::ephemeral_sequential));
  prepare(create("/p/persistent"));
  sessions.calls.clear();
  const Txn close = prepare(closeSession(session1));
  EXPECT_EQ(close.header.type, OpCode::close_session);
  EXPECT_EQ(std::get<CloseSessionTxn>(close.body).paths_to_delete,
            (std::vector<std::string>{"/p/kept", "/p/new", "/p/seq-0000000004"}));
  EXPECT_EQ(sessions.calls, std::vector<std::string>{"setSessionClosing"});  // and no checkSession
  // From now on the session cannot write, not even an ephemeral that would outlive it.
  EXPECT_EQ(errorOf(prepare(create("/p/zombie", CreateMode::ephemeral))), Code::session_expired);
  applyAll();
  EXPECT_TRUE(tree.getEphemerals(session1).empty());
  EXPECT_EQ(tree.getEphemerals(session2), std::vector<std::string>{"/p/theirs"});
  EXPECT_NE(tree.getNode("/p/persistent"), nullptr);
}

TEST_F(PrepTest, CloseSessionLeavesTheParentsChildCountStale) {
  write(create("/p"));
  write(create("/p/e", CreateMode::ephemeral));
  prepare(closeSession(session1));
  const std::optional<ChangeRecord> parent = prep.getOutstandingChange("/p");
  ASSERT_TRUE(parent.has_value());
  EXPECT_EQ(parent->stat->pzxid, zxid);
  EXPECT_EQ(parent->childCount, 1);  // as in 3.8: only pzxid is updated
  Request remove = op(OpCode::delete_node, "/p");
  remove.sessionId = session2;
  EXPECT_EQ(errorOf(prepare(remove)), Code::not_empty);
  applyAll();
  EXPECT_EQ(errorOf(write(remove)), Code::ok);
}

TEST_F(PrepTest, MultiOpsSeeTheOpsBeforeThem) {
  const Txn txn = prepare(multi({create("/m"), create("/m/c-", CreateMode::persistent_sequential),
                                 op(OpCode::set_data, "/m/c-0000000000", 0), op(OpCode::check, "/m", 0),
                                 op(OpCode::delete_node, "/m/c-0000000000", 1)}));
  EXPECT_EQ(txn.header.type, OpCode::multi);
  const MultiTxn& ops = std::get<MultiTxn>(txn.body);
  ASSERT_EQ(ops.size(), 5u);
  for (const SubTxn& sub : ops) EXPECT_NE(sub.type, OpCode::error);
  EXPECT_EQ(std::get<CreateTxn>(ops[1].body).path, "/m/c-0000000000");
  applyAll();
  EXPECT_EQ(tree.getNode("/m")->stat.num_children, 0);
  EXPECT_EQ(tree.getNode("/m")->stat.cversion, 1);
}

TEST_F(PrepTest, AFailedMultiRollsItsChangesBack) {
  write(create("/q"));
  prepare(create("/q/n-", CreateMode::persistent_sequential));  // in flight: cversion 1 pending
  const Txn txn = prepare(multi({create("/q/n-", CreateMode::persistent_sequential), create("/fresh"),
                                 op(OpCode::set_data, "/q", 9), create("/other")}));
  EXPECT_EQ(txn.header.type, OpCode::multi);
  const MultiTxn& ops = std::get<MultiTxn>(txn.body);
  ASSERT_EQ(ops.size(), 4u);
  EXPECT_EQ(std::get<CreateTxn>(ops[0].body).path, "/q/n-0000000001");  // kept in the txn
  EXPECT_EQ(ops[1].type, OpCode::create);
  EXPECT_EQ(ops[2].type, OpCode::error);
  EXPECT_EQ(std::get<ErrorTxn>(ops[2].body).error, Code::bad_version);
  EXPECT_EQ(ops[3].type, OpCode::error);
  EXPECT_EQ(std::get<ErrorTxn>(ops[3].body).error, Code::runtime_inconsistency);
  // ZOOKEEPER-1624: the parent's record is the one from before the multi again, so the next
  // sequential create takes the number the failed multi did not use.
  EXPECT_EQ(prep.getOutstandingChange("/q")->stat->cversion, 1);
  EXPECT_FALSE(prep.getOutstandingChange("/fresh").has_value());
  EXPECT_EQ(createdPath(prepare(create("/q/n-", CreateMode::persistent_sequential))), "/q/n-0000000001");
  EXPECT_EQ(errorOf(prepare(create("/fresh"))), Code::ok);
  applyAll();
  EXPECT_EQ(tree.getNode("/q")->stat.cversion, 2);
}

TEST_F(PrepTest, AFailedMultiRestoresTheRecordsItReplaced) {
  prepare(create("/r"));
  prepare(multi({op(OpCode::delete_node, "/r"), create("/r/under")}));  // NONODE: /r is going
  const std::optional<ChangeRecord> record = prep.getOutstandingChange("/r");
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->stat.has_value());  // the pending create again, not the multi's delete
  EXPECT_EQ(errorOf(prepare(create("/r/under"))), Code::ok);
  applyAll();
  EXPECT_NE(tree.getNode("/r/under"), nullptr);
}

TEST_F(PrepTest, AppliedDropsOnlyWhatWasApplied) {
  const Txn first = prepare(create("/a"));
  prepare(create("/a/b"));
  EXPECT_EQ(prep.outstandingChanges(), 4u);  // each create: the parent's record and the node's
  tree.processTxn(first, nullptr);
  prep.applied(first.header.zxid);
  EXPECT_EQ(prep.outstandingChanges(), 2u);
  // /a's newest record is the one the second create made (childCount 1): it stays.
  EXPECT_EQ(prep.getOutstandingChange("/a")->childCount, 1);
  EXPECT_FALSE(prep.getOutstandingChange("").has_value());
  prep.reset();
  EXPECT_EQ(prep.outstandingChanges(), 0u);
  EXPECT_FALSE(prep.getOutstandingChange("/a/b").has_value());
  pending.clear();
}

TEST_F(PrepTest, TopLevelCreatesKeepTheRootsRecordUnderTheEmptyName) {
  prepare(create("/a"));
  EXPECT_TRUE(prep.getOutstandingChange("").has_value());  // Java's parent of "/a" is ""
  EXPECT_FALSE(prep.getOutstandingChange("/").has_value());
  EXPECT_EQ(createdPath(prepare(create("/s-", CreateMode::persistent_sequential))), "/s-0000000001");
  applyAll();
}

TEST_F(PrepTest, ZxidsMustGrow) {
  prep.pRequest2Txn(create("/a"), zxid + 5, now);
  EXPECT_THROW(prep.pRequest2Txn(create("/b"), zxid + 5, now), sim::AssertionFailure);
  EXPECT_THROW(prep.pRequest2Txn(op(OpCode::get_data, "/a"), zxid + 6, now), sim::AssertionFailure);
}

}  // namespace
}  // namespace zk
