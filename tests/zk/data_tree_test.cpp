// DataTree (org.apache.zookeeper.server.DataTree, 3.8): the rules of applying txns, reading, and
// server-side watches. Writes go through PrepRequestProcessor and are applied at once, as on a
// leader with nothing else in flight.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "tests/zk/data_tree_fixture.h"
#include "sim/assert.h"

namespace zk {
namespace {

using namespace data_tree_test;

TEST_F(DataTreeTest, StartsWithTheSystemNodes) {
  EXPECT_EQ(tree.nodeCount(), 4u);
  std::vector<std::string> children;
  Stat rootStat;
  EXPECT_EQ(tree.getChildren("/", std::nullopt, &children, &rootStat), Code::ok);
  EXPECT_EQ(children, std::vector<std::string>{"zookeeper"});
  EXPECT_EQ(tree.getNode("/")->stat.cversion, 0);  // put in place directly, not created
  EXPECT_EQ(rootStat.cversion, -1);                 // as a client sees it: 2 x 0 creates - 1 child
  EXPECT_EQ(rootStat.num_children, 1);
  EXPECT_EQ(tree.getChildren("/zookeeper", std::nullopt, &children, nullptr), Code::ok);
  EXPECT_EQ(children, (std::vector<std::string>{"config", "quota"}));
  EXPECT_EQ(stat("/zookeeper/config").aversion, -1);  // addConfigNode's setACL(..., -1)
  EXPECT_EQ(tree.getNode(""), tree.getNode("/"));     // the root's second name, as in Java
  EXPECT_EQ(tree.getLastProcessedZxid(), 0);
}

TEST_F(DataTreeTest, CreateSetsTheStatAndTheParent) {
  const std::string path = create("/app");
  EXPECT_EQ(path, "/app");
  const Stat& node = stat("/app");
  EXPECT_EQ(node.czxid, zxid);
  EXPECT_EQ(node.mzxid, zxid);
  EXPECT_EQ(node.pzxid, zxid);
  EXPECT_EQ(node.ctime, now);
  EXPECT_EQ(node.mtime, now);
  EXPECT_EQ(node.version, 0);
  EXPECT_EQ(node.cversion, 0);
  EXPECT_EQ(node.ephemeral_owner, 0);
  EXPECT_EQ(stat("/").cversion, 1);
  EXPECT_EQ(stat("/").pzxid, zxid);
  EXPECT_EQ(stat("/").num_children, 2);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);
}

TEST_F(DataTreeTest, CreateReportsThePathAndStat) {
  create("/p");
  const ProcessTxnResult result = write(makeCreate(session1, "/p/n-", CreateMode::persistent_sequential, "xyz"));
  EXPECT_EQ(result.error, Code::ok);
  EXPECT_EQ(result.type, OpCode::create);
  EXPECT_EQ(result.path, "/p/n-0000000000");
  EXPECT_EQ(result.stat.czxid, zxid);
  EXPECT_EQ(result.stat.data_length, 3);
}

TEST_F(DataTreeTest, SequentialNumbersAreNeverReused) {
  create("/p");
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000000");
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000001");
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000002");
  EXPECT_EQ(write(makeDelete(session1, "/p/a-0000000001")).error, Code::ok);
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000003");
}

TEST_F(DataTreeTest, DifferentPrefixesShareTheParentsCounter) {
  create("/p");
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000000");
  EXPECT_EQ(create("/p/b-", CreateMode::ephemeral_sequential), "/p/b-0000000001");
  EXPECT_EQ(create("/p/plain"), "/p/plain");  // a plain create counts too
  EXPECT_EQ(create("/p/a-", CreateMode::persistent_sequential), "/p/a-0000000003");
}

TEST_F(DataTreeTest, FailedCreatesDoNotAdvanceTheCounterButUseAZxid) {
  create("/p");
  create("/p/x");
  const Zxid before = zxid;
  const ProcessTxnResult again = write(makeCreate(session1, "/p/x"));
  EXPECT_EQ(again.error, Code::node_exists);
  EXPECT_EQ(lastTxn.header.type, OpCode::error);
  EXPECT_EQ(lastTxn.header.zxid, before + 1);
  EXPECT_EQ(tree.getLastProcessedZxid(), before + 1);  // the error txn was applied
  EXPECT_EQ(stat("/p").cversion, 1);
  EXPECT_EQ(stat("/p").pzxid, before);
  EXPECT_EQ(create("/p/s-", CreateMode::persistent_sequential), "/p/s-0000000001");
}

TEST_F(DataTreeTest, DeleteMovesPzxidButNotCversion) {
  create("/p");
  create("/p/a");
  create("/p/b");
  EXPECT_EQ(stat("/p").cversion, 2);
  EXPECT_EQ(write(makeDelete(session1, "/p/a")).error, Code::ok);
  EXPECT_EQ(stat("/p").cversion, 2);
  EXPECT_EQ(stat("/p").pzxid, zxid);
  EXPECT_EQ(stat("/p").num_children, 1);
  EXPECT_EQ(tree.getNode("/p/a"), nullptr);
}

TEST_F(DataTreeTest, ClientsSeeCversionCountChangesCreatesAndDeletes) {
  // DataNode.copyStat: cversion * 2 - numChildren, in every stat a client gets.
  create("/p");
  create("/p/a");
  create("/p/b");
  Stat seen;
  ASSERT_EQ(tree.exists("/p", std::nullopt, &seen), Code::ok);
  EXPECT_EQ(seen.cversion, 2);
  EXPECT_EQ(write(makeDelete(session1, "/p/a")).error, Code::ok);
  std::string data;
  ASSERT_EQ(tree.getData("/p", std::nullopt, &data, &seen), Code::ok);
  EXPECT_EQ(seen.cversion, 3);  // the delete is a change; the stored count of creates is still 2
  EXPECT_EQ(stat("/p").cversion, 2);
  std::vector<std::string> children;
  ASSERT_EQ(tree.getChildren("/p", std::nullopt, &children, &seen), Code::ok);
  EXPECT_EQ(seen.cversion, 3);
  ProcessTxnResult created = write(makeCreate(session1, "/p/c"));
  ASSERT_EQ(created.error, Code::ok);
  EXPECT_EQ(created.stat.cversion, 0);  // the new node's own stat
  ASSERT_EQ(tree.exists("/p", std::nullopt, &seen), Code::ok);
  EXPECT_EQ(seen.cversion, 4);
  ProcessTxnResult set = write(makeSetData(session1, "/p", "x"));
  ASSERT_EQ(set.error, Code::ok);
  EXPECT_EQ(set.stat.cversion, 4);  // setData's reply stat too
}

TEST_F(DataTreeTest, DeletePzxidOnlyMovesForwards) {
  create("/p");
  create("/p/a");
  const Zxid pzxid = stat("/p").pzxid;
  EXPECT_EQ(tree.deleteNode("/p/a", pzxid - 5, nullptr), Code::ok);  // an old txn replayed
  EXPECT_EQ(stat("/p").pzxid, pzxid);
  // A child already gone still moves the parent's pzxid (DataTree.deleteNode, fuzzy snapshots).
  EXPECT_EQ(tree.deleteNode("/p/gone", pzxid + 7, nullptr), Code::no_node);
  EXPECT_EQ(stat("/p").pzxid, pzxid + 7);
  EXPECT_EQ(tree.deleteNode("/nothing/here", pzxid + 9, nullptr), Code::no_node);
}

TEST_F(DataTreeTest, CreateNeverLowersTheParentsCversion) {
  create("/p");
  create("/p/a");
  create("/p/b");
  EXPECT_EQ(tree.createNode("/p/c", "", 0, 1, zxid + 1, now, nullptr, nullptr), Code::ok);
  EXPECT_EQ(stat("/p").cversion, 2);
  EXPECT_EQ(stat("/p").pzxid, zxid);
  EXPECT_EQ(tree.createNode("/p/d", "", 0, -1, zxid + 2, now, nullptr, nullptr), Code::ok);  // -1: current + 1
  EXPECT_EQ(stat("/p").cversion, 3);
  EXPECT_EQ(stat("/p").pzxid, zxid + 2);
}

TEST_F(DataTreeTest, ReplayedCreateOfAnExistingNodeStillFixesTheParent) {
  create("/p");
  create("/p/a");
  Txn replay;
  replay.header = TxnHeader{session1, 9, zxid + 10, now, OpCode::create};
  replay.body = CreateTxn{"/p/a", "other", false, 7};
  const ProcessTxnResult result = tree.processTxn(replay, nullptr);
  EXPECT_EQ(result.error, Code::node_exists);
  EXPECT_EQ(stat("/p").cversion, 7);
  EXPECT_EQ(stat("/p").pzxid, zxid + 10);
  EXPECT_EQ(tree.getNode("/p/a")->data, "");
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid + 10);
}

TEST_F(DataTreeTest, EphemeralsBelongToTheirSession) {
  create("/p");
  create("/p/e1", CreateMode::ephemeral, session1);
  create("/e2", CreateMode::ephemeral, session1);
  create("/p/f", CreateMode::ephemeral, session2);
  EXPECT_EQ(stat("/p/e1").ephemeral_owner, session1);
  EXPECT_EQ(stat("/p/f").ephemeral_owner, session2);
  EXPECT_EQ(stat("/p").ephemeral_owner, 0);
  EXPECT_EQ(tree.getEphemerals(session1), (std::vector<std::string>{"/e2", "/p/e1"}));
  EXPECT_EQ(tree.getSessions(), (std::vector<SessionId>{session1, session2}));
  EXPECT_EQ(write(makeDelete(session2, "/p/f")).error, Code::ok);
  EXPECT_EQ(tree.getSessions(), std::vector<SessionId>{session1});
  EXPECT_TRUE(tree.getEphemerals(session2).empty());
}

TEST_F(DataTreeTest, NoChildrenUnderEphemerals) {
  create("/e", CreateMode::ephemeral);
  EXPECT_EQ(write(makeCreate(session1, "/e/child")).error, Code::no_children_for_ephemerals);
  EXPECT_EQ(write(makeCreate(session2, "/e/s-", CreateMode::persistent_sequential)).error,
            Code::no_children_for_ephemerals);
  EXPECT_EQ(stat("/e").cversion, 0);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);
}

TEST_F(DataTreeTest, SetDataTakesTheVersionFromTheTxnAndAlwaysFires) {
  create("/d");
  std::string data;
  EXPECT_EQ(tree.getData("/d", WatcherId{7}, &data, nullptr), Code::ok);
  const ProcessTxnResult result = write(makeSetData(session1, "/d", "", 0));  // same (empty) data
  EXPECT_EQ(result.error, Code::ok);
  EXPECT_EQ(result.stat.version, 1);
  EXPECT_EQ(stat("/d").version, 1);
  EXPECT_EQ(stat("/d").mzxid, zxid);
  EXPECT_EQ(stat("/d").czxid, zxid - 1);
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_data_changed, "/d", {7})});
  EXPECT_EQ(write(makeSetData(session1, "/d", "v", 0)).error, Code::bad_version);
  EXPECT_EQ(write(makeSetData(session1, "/d", "v", 1)).error, Code::ok);
  EXPECT_EQ(tree.getNode("/d")->data, "v");
  EXPECT_EQ(stat("/d").data_length, 1);
}

TEST_F(DataTreeTest, CheckSessionTxnsAndErrorTxnsOnlyMoveTheZxid) {
  create("/c");
  const std::uint64_t before = tree.digest();
  EXPECT_EQ(write(makeCheck(session1, "/c", 0)).error, Code::ok);
  Request createSession;
  createSession.sessionId = session2;
  createSession.type = OpCode::create_session;
  createSession.timeoutMs = 4000;
  const ProcessTxnResult result = write(createSession);
  EXPECT_EQ(result.type, OpCode::create_session);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);
  EXPECT_EQ(write(makeCheck(session1, "/c", 3)).error, Code::bad_version);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);
  EXPECT_EQ(tree.digest(), before);
  EXPECT_TRUE(fired.empty());
}

TEST_F(DataTreeTest, MultiAppliesNothingWhenAnOpFails) {
  create("/m");
  const std::uint64_t before = tree.digest();
  const ProcessTxnResult result = write(makeMulti(session1, {makeCreate(session1, "/m/a"), makeSetData(session1, "/m", "x"),
                                                             makeDelete(session1, "/m/missing"), makeCheck(session1, "/m", -1),
                                                             makeCreate(session1, "/m/b")}));
  EXPECT_EQ(lastTxn.header.type, OpCode::multi);
  EXPECT_EQ(result.type, OpCode::multi);
  EXPECT_EQ(result.error, Code::no_node);  // the first failing op's code
  ASSERT_EQ(result.multi.size(), 5u);
  const std::vector<Code> expected{Code::ok, Code::ok, Code::no_node, Code::runtime_inconsistency,
                                   Code::runtime_inconsistency};
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(result.multi[i].type, OpCode::error) << i;
    EXPECT_EQ(result.multi[i].error, expected[i]) << i;
  }
  EXPECT_EQ(tree.digest(), before);
  EXPECT_EQ(tree.getNode("/m/a"), nullptr);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);  // still one zxid, spent
  EXPECT_EQ(create("/m/s-", CreateMode::persistent_sequential), "/m/s-0000000000");
}

TEST_F(DataTreeTest, MultiAppliesItsOpsInOrderWithOneZxid) {
  EXPECT_EQ(tree.exists("/m", WatcherId{1}, nullptr), Code::no_node);
  const ProcessTxnResult result = write(makeMulti(session1, {makeCreate(session1, "/m"), makeCreate(session1, "/m/c-", CreateMode::ephemeral_sequential),
                                                             makeSetData(session1, "/m", "x", 0), makeCheck(session1, "/m", 1)}));
  EXPECT_EQ(result.error, Code::ok);
  ASSERT_EQ(result.multi.size(), 4u);
  EXPECT_EQ(result.multi[0].path, "/m");
  EXPECT_EQ(result.multi[1].path, "/m/c-0000000000");
  EXPECT_EQ(result.multi[2].stat.version, 1);
  EXPECT_EQ(result.multi[3].type, OpCode::check);
  EXPECT_EQ(stat("/m").czxid, zxid);
  EXPECT_EQ(stat("/m").mzxid, zxid);
  EXPECT_EQ(stat("/m/c-0000000000").ephemeral_owner, session1);
  EXPECT_EQ(tree.getLastProcessedZxid(), zxid);
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_created, "/m", {1})});
}

TEST_F(DataTreeTest, CloseSessionDeletesEveryEphemeralWithOneZxid) {
  create("/p");
  create("/p/e1", CreateMode::ephemeral, session1);
  create("/e2", CreateMode::ephemeral, session1);
  create("/p/other", CreateMode::ephemeral, session2);
  EXPECT_EQ(tree.getChildren("/p", WatcherId{3}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getChildren("/", WatcherId{3}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getData("/p/e1", WatcherId{4}, nullptr, nullptr), Code::ok);
  const ProcessTxnResult result = write(makeCloseSession(session1));
  EXPECT_EQ(result.error, Code::ok);
  EXPECT_EQ(lastTxn.header.type, OpCode::close_session);
  EXPECT_EQ(std::get<CloseSessionTxn>(lastTxn.body).paths_to_delete, (std::vector<std::string>{"/e2", "/p/e1"}));
  EXPECT_EQ(tree.getNode("/p/e1"), nullptr);
  EXPECT_EQ(tree.getNode("/e2"), nullptr);
  EXPECT_NE(tree.getNode("/p/other"), nullptr);
  EXPECT_EQ(stat("/p").pzxid, zxid);
  EXPECT_EQ(stat("/").pzxid, zxid);
  EXPECT_EQ(tree.getSessions(), std::vector<SessionId>{session2});
  // In deletion order, each deletion with its own events.
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_children_changed, "/", {3}),
                                            event(EventType::node_deleted, "/p/e1", {4}),
                                            event(EventType::node_children_changed, "/p", {3})}));
}

TEST_F(DataTreeTest, KillSessionDeletesTheListThenLeftoversAndIgnoresMissingNodes) {
  create("/p");
  create("/p/a", CreateMode::ephemeral, session1);
  create("/p/b", CreateMode::ephemeral, session1);
  EXPECT_EQ(tree.getChildren("/p", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.exists("/p/a", WatcherId{2}, nullptr), Code::ok);
  EXPECT_EQ(tree.exists("/p/b", WatcherId{2}, nullptr), Code::ok);
  // The leader listed /p/b and a node that is not there; /p/a is a leftover this server knew of.
  tree.killSession(session1, zxid + 1, {"/p/b", "/p/zzz"}, &fired);
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_deleted, "/p/b", {2}),
                                            event(EventType::node_children_changed, "/p", {1}),
                                            event(EventType::node_deleted, "/p/a", {2})}));
  EXPECT_EQ(stat("/p").num_children, 0);
  EXPECT_TRUE(tree.getSessions().empty());
}

TEST_F(DataTreeTest, WatchesAreOneShot) {
  create("/w");
  EXPECT_EQ(tree.getData("/w", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getData("/w", WatcherId{1}, nullptr, nullptr), Code::ok);  // collapses: one per connection
  EXPECT_EQ(tree.exists("/w", WatcherId{2}, nullptr), Code::ok);
  EXPECT_EQ(tree.watchCount(), 2u);
  write(makeSetData(session1, "/w", "a"));
  write(makeSetData(session1, "/w", "b"));
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_data_changed, "/w", {1, 2})});
  EXPECT_EQ(tree.watchCount(), 0u);
}

TEST_F(DataTreeTest, ExistsWatchOnAMissingNodeFiresOnCreation) {
  EXPECT_EQ(tree.exists("/later", WatcherId{5}, nullptr), Code::no_node);
  EXPECT_EQ(tree.getData("/later", WatcherId{6}, nullptr, nullptr), Code::no_node);      // no watch
  EXPECT_EQ(tree.getChildren("/later", WatcherId{6}, nullptr, nullptr), Code::no_node);  // no watch
  EXPECT_EQ(tree.watchCount(), 1u);
  EXPECT_EQ(tree.getChildren("/", WatcherId{6}, nullptr, nullptr), Code::ok);
  create("/later");
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_created, "/later", {5}),
                                            event(EventType::node_children_changed, "/", {6})}));
}

TEST_F(DataTreeTest, ChildWatchesSeeChildrenNotTheirData) {
  create("/p");
  create("/p/c");
  EXPECT_EQ(tree.getChildren("/p", WatcherId{1}, nullptr, nullptr), Code::ok);
  write(makeSetData(session1, "/p/c", "x"));
  EXPECT_TRUE(fired.empty());
  create("/p/d");
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_children_changed, "/p", {1})});
}

TEST_F(DataTreeTest, DeleteNotifiesEachConnectionOnceThenTheParent) {
  create("/p");
  create("/p/c");
  EXPECT_EQ(tree.getData("/p/c", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getChildren("/p/c", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getChildren("/p/c", WatcherId{2}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getChildren("/p", WatcherId{3}, nullptr, nullptr), Code::ok);
  write(makeDelete(session1, "/p/c"));
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_deleted, "/p/c", {1}),
                                            event(EventType::node_deleted, "/p/c", {2}),
                                            event(EventType::node_children_changed, "/p", {3})}));
  EXPECT_EQ(tree.watchCount(), 0u);  // connection 1's child watch was consumed, not delivered twice
}

TEST_F(DataTreeTest, RemoveWatcherDropsOneConnectionsWatches) {
  create("/a");
  EXPECT_EQ(tree.getData("/a", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.getChildren("/a", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.exists("/b", WatcherId{1}, nullptr), Code::no_node);
  EXPECT_EQ(tree.getData("/a", WatcherId{2}, nullptr, nullptr), Code::ok);
  tree.removeWatcher(1);
  EXPECT_EQ(tree.watchCount(), 1u);
  write(makeSetData(session1, "/a", "x"));
  create("/b");
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_data_changed, "/a", {2})});
}

TEST_F(DataTreeTest, SetWatchesCatchesUpOrReRegisters) {
  create("/same");
  create("/changed");
  create("/kids");
  create("/gone");
  create("/quiet");
  const Zxid relative = zxid;  // the client's last seen zxid
  write(makeSetData(session1, "/changed", "x"));
  create("/kids/k");
  write(makeDelete(session1, "/gone"));
  create("/born");
  fired.clear();
  tree.setWatches(relative, {"/same", "/changed", "/gone"}, {"/born", "/unborn"}, {"/kids", "/gone", "/quiet"}, {}, {}, 9, &fired);
  // One catch-up event per table: /gone was watched for data and children, so it gets two
  // NodeDeleted (DataTree.setWatches).
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_data_changed, "/changed", {9}, "data"),
                                            event(EventType::node_deleted, "/gone", {9}, "data"),
                                            event(EventType::node_created, "/born", {9}, "data"),
                                            event(EventType::node_children_changed, "/kids", {9}, "child"),
                                            event(EventType::node_deleted, "/gone", {9}, "child")}));
  // The rest were re-registered and fire as ordinary watches.
  EXPECT_EQ(tree.dataWatches().pathsOf(9), (std::vector<std::string>{"/same", "/unborn"}));
  EXPECT_EQ(tree.childWatches().pathsOf(9), std::vector<std::string>{"/quiet"});
  fired.clear();
  write(makeSetData(session1, "/same", "y"));
  create("/unborn");
  create("/quiet/q");
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_data_changed, "/same", {9}),
                                            event(EventType::node_created, "/unborn", {9}),
                                            event(EventType::node_children_changed, "/quiet", {9})}));
}

TEST_F(DataTreeTest, ReplicasThatAppliedTheSameTxnsHaveTheSameDigest) {
  DataTree replica;
  EXPECT_EQ(replica.digest(), tree.digest());
  std::vector<Txn> log;
  for (const Request& request : {makeCreate(session1, "/r"), makeCreate(session1, "/r/s-", CreateMode::ephemeral_sequential),
                                 makeSetData(session1, "/r", "data"), makeCreate(session1, "/r")}) {
    write(request);
    log.push_back(lastTxn);
  }
  for (const Txn& txn : log) replica.processTxn(txn, nullptr);
  replica.checkInvariants();
  EXPECT_EQ(replica.digest(), tree.digest());
  EXPECT_EQ(replica.getLastProcessedZxid(), tree.getLastProcessedZxid());

  DataTree snapshot = tree.snapshot();
  EXPECT_EQ(snapshot.digest(), tree.digest());
  write(makeSetData(session1, "/r", "data"));  // same data, new version and mzxid
  EXPECT_NE(snapshot.digest(), tree.digest());
  EXPECT_EQ(snapshot.getNode("/r")->stat.version, 1);  // the copy is independent
}

TEST_F(DataTreeTest, DigestSeesEveryField) {
  DataTree other;
  EXPECT_EQ(tree.createNode("/x", "a", 0, -1, 5, now, nullptr, nullptr), Code::ok);
  EXPECT_EQ(other.createNode("/x", "b", 0, -1, 5, now, nullptr, nullptr), Code::ok);
  EXPECT_NE(tree.digest(), other.digest());  // data
  DataTree owner;
  EXPECT_EQ(owner.createNode("/x", "a", session1, -1, 5, now, nullptr, nullptr), Code::ok);
  EXPECT_NE(tree.digest(), owner.digest());  // ephemeralOwner
  DataTree late;
  EXPECT_EQ(late.createNode("/x", "a", 0, -1, 6, now, nullptr, nullptr), Code::ok);
  EXPECT_NE(tree.digest(), late.digest());  // zxids
  DataTree same;
  EXPECT_EQ(same.createNode("/x", "a", 0, -1, 5, now + 1, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.digest(), same.digest());  // times are not part of it
}

TEST_F(DataTreeTest, SnapshotCarriesNoWatches) {
  create("/s");
  EXPECT_EQ(tree.getData("/s", WatcherId{1}, nullptr, nullptr), Code::ok);
  const DataTree copy = tree;  // a plain copy keeps them
  EXPECT_EQ(copy.watchCount(), 1u);
  const DataTree snapshot = tree.snapshot();
  EXPECT_EQ(snapshot.watchCount(), 0u);
  EXPECT_EQ(snapshot.nodeCount(), tree.nodeCount());
  EXPECT_EQ(snapshot.getLastProcessedZxid(), tree.getLastProcessedZxid());
}

TEST_F(DataTreeTest, ApplyingWhatPrepWouldRefuseIsAFinding) {
  create("/e", CreateMode::ephemeral);
  create("/p");
  create("/p/c");
  Txn underEphemeral;
  underEphemeral.header = TxnHeader{session1, 1, zxid + 1, now, OpCode::create};
  underEphemeral.body = CreateTxn{"/e/c", "", false, 1};
  EXPECT_THROW(tree.processTxn(underEphemeral, nullptr), sim::AssertionFailure);
  Txn notEmpty;
  notEmpty.header = TxnHeader{session1, 1, zxid + 2, now, OpCode::delete_node};
  notEmpty.body = DeleteTxn{"/p"};
  EXPECT_THROW(tree.processTxn(notEmpty, nullptr), sim::AssertionFailure);
  Txn wrongBody;
  wrongBody.header = TxnHeader{session1, 1, zxid + 3, now, OpCode::set_data};
  wrongBody.body = DeleteTxn{"/p"};
  EXPECT_THROW(tree.processTxn(wrongBody, nullptr), sim::AssertionFailure);
  Txn deleteRoot;
  deleteRoot.header = TxnHeader{session1, 1, zxid + 4, now, OpCode::delete_node};
  deleteRoot.body = DeleteTxn{"/"};
  EXPECT_THROW(tree.processTxn(deleteRoot, nullptr), sim::AssertionFailure);
}

}  // namespace
}  // namespace zk
