// Persistent and persistent-recursive watches on the server (ZooKeeper 3.6+ addWatch, as 3.8's
// WatchManager and DataTree keep them): they stay after firing, a recursive one hears of every node
// below its path but not of child lists, one mode per connection, path and table (the last set
// wins), and a reconnect re-adds them with no catch-up event.
#include "tests/zk/data_tree_fixture.h"

namespace zk {
namespace {

using namespace data_tree_test;

TEST_F(DataTreeTest, APersistentWatchStaysAfterItFires) {
  create("/p");
  tree.addWatch("/p", WatcherId{1}, AddWatchMode::persistent);
  EXPECT_EQ(tree.dataWatches().watcherMode("/p", 1), WatcherMode::persistent);
  EXPECT_EQ(tree.childWatches().watcherMode("/p", 1), WatcherMode::persistent);
  write(makeSetData(session1, "/p", "a"));
  write(makeSetData(session1, "/p", "b"));
  create("/p/c");
  create("/p/c/d");  // below /p: not for a non-recursive watch
  write(makeSetData(session1, "/p/c", "x"));
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_data_changed, "/p", {1}),
                                            event(EventType::node_data_changed, "/p", {1}),
                                            event(EventType::node_children_changed, "/p", {1})}));
  EXPECT_EQ(tree.watchCount(), 2u);
}

TEST_F(DataTreeTest, ARecursiveWatchHearsOfEveryNodeBelowButNotOfChildLists) {
  create("/j");
  tree.addWatch("/j", WatcherId{1}, AddWatchMode::persistent_recursive);
  EXPECT_EQ(tree.dataWatches().recursiveWatchCount(), 1u);
  create("/j/a");
  create("/j/a/b");
  write(makeSetData(session1, "/j/a/b", "x"));
  write(makeSetData(session1, "/j", "root"));
  create("/other");
  write(makeDelete(session1, "/j/a/b"));
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_created, "/j/a", {1}),
                                            event(EventType::node_created, "/j/a/b", {1}),
                                            event(EventType::node_data_changed, "/j/a/b", {1}),
                                            event(EventType::node_data_changed, "/j", {1}),
                                            // both tables hold it, the child table's is suppressed
                                            event(EventType::node_deleted, "/j/a/b", {1})}));
}

TEST_F(DataTreeTest, ARecursiveWatchOnAMissingPathFiresWhenItIsCreated) {
  tree.addWatch("/later", WatcherId{4}, AddWatchMode::persistent_recursive);  // no lookup: any path
  create("/later");
  create("/later/x");
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_created, "/later", {4}),
                                            event(EventType::node_created, "/later/x", {4})}));
}

TEST_F(DataTreeTest, AConnectionWatchingAPathTwoWaysIsNotifiedOnce) {
  create("/j");
  create("/j/x");
  tree.addWatch("/j", WatcherId{1}, AddWatchMode::persistent_recursive);
  EXPECT_EQ(tree.getData("/j/x", WatcherId{1}, nullptr, nullptr), Code::ok);  // and a one-shot one below
  EXPECT_EQ(tree.getData("/j/x", WatcherId{2}, nullptr, nullptr), Code::ok);
  write(makeSetData(session1, "/j/x", "a"));
  write(makeSetData(session1, "/j/x", "b"));
  EXPECT_EQ(fired, (std::vector<FiredWatch>{event(EventType::node_data_changed, "/j/x", {1, 2}),
                                            event(EventType::node_data_changed, "/j/x", {1})}));
}

TEST_F(DataTreeTest, AStandardWatchSetAfterAPersistentOneOnThePathMakesItOneShot) {
  // ZOOKEEPER-4466 (3.6 to 3.8): WatcherModeManager keeps one mode per connection and path.
  create("/p");
  tree.addWatch("/p", WatcherId{1}, AddWatchMode::persistent);
  EXPECT_EQ(tree.getData("/p", WatcherId{1}, nullptr, nullptr), Code::ok);
  EXPECT_EQ(tree.dataWatches().watcherMode("/p", 1), WatcherMode::standard);
  write(makeSetData(session1, "/p", "a"));
  write(makeSetData(session1, "/p", "b"));
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_data_changed, "/p", {1})});
  // The child table kept its persistent mode.
  create("/p/c");
  create("/p/d");
  EXPECT_EQ(fired.size(), 3u);
}

TEST_F(DataTreeTest, RemovingAConnectionDropsItsRecursiveWatchesAndTheParentWalk) {
  create("/j");
  tree.addWatch("/j", WatcherId{1}, AddWatchMode::persistent_recursive);
  tree.addWatch("/j", WatcherId{1}, AddWatchMode::persistent_recursive);  // collapses
  EXPECT_EQ(tree.dataWatches().recursiveWatchCount(), 1u);
  tree.removeWatcher(1);
  EXPECT_EQ(tree.dataWatches().recursiveWatchCount(), 0u);
  EXPECT_EQ(tree.watchCount(), 0u);
  create("/j/a");
  EXPECT_TRUE(fired.empty());
}

TEST_F(DataTreeTest, SetWatchesReAddsPersistentWatchesWithoutCatchUpEvents) {
  create("/p");
  create("/j");
  const Zxid relative = zxid;
  write(makeSetData(session1, "/p", "changed while away"));
  create("/j/new");
  fired.clear();
  tree.setWatches(relative, {}, {}, {}, {"/p"}, {"/j"}, 9, &fired);
  EXPECT_TRUE(fired.empty());
  EXPECT_EQ(tree.dataWatches().watcherMode("/p", 9), WatcherMode::persistent);
  EXPECT_EQ(tree.dataWatches().watcherMode("/j", 9), WatcherMode::persistent_recursive);
  write(makeSetData(session1, "/j/new", "x"));
  EXPECT_EQ(fired, std::vector<FiredWatch>{event(EventType::node_data_changed, "/j/new", {9})});
}

}  // namespace
}  // namespace zk
