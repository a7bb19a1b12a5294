// The ZooKeeper hygiene properties on hand-made trace events: what they must and must not call a
// violation.
#include <gtest/gtest.h>

#include <string>

#include "properties/zookeeper_hygiene.h"
#include "sim/node.h"
#include "tests/support/idle_node.h"

namespace {

using namespace std::chrono_literals;

using Dummy = test_support::IdleNode;

struct Bench {
  sim::Simulation sim{1};
  Dummy& zk1 = sim.add_node<Dummy>("zk1");
  void registered(const char* path, const char* table) {
    sim.trace().emit(zk1.id(), "watch.register", {{"session", 7}, {"connection", 2}, {"path", path}, {"table", table}});
  }
  void fired(const char* path, const char* type, const char* table = nullptr) {
    if (table == nullptr) {
      sim.trace().emit(zk1.id(), "watch.fire", {{"session", 7}, {"connection", 2}, {"path", path}, {"type", type}});
    } else {
      sim.trace().emit(zk1.id(), "watch.fire", {{"session", 7}, {"connection", 2}, {"path", path}, {"type", type}, {"table", table}});
    }
  }
};

// Each test's property, listening to the bench's trace from construction to destruction.
class WatchOnce : public ::testing::Test {
 protected:
  WatchOnce() { bench.sim.trace().add_sink(&property); }
  ~WatchOnce() override { bench.sim.trace().remove_sink(&property); }
  std::string firstViolation() const { return property.violations().empty() ? "" : property.violations()[0].message; }

  Bench bench;
  properties::WatchOnce property{bench.sim};
};

// A delete fires a node's data and child watches as one notification per connection.
TEST_F(WatchOnce, ADeleteConsumesTheDataAndTheChildWatchAtOnce) {
  bench.registered("/a", "data");
  bench.registered("/a", "child");
  bench.fired("/a", "NodeDeleted");
  EXPECT_EQ(property.verdict(), properties::Verdict::held);
  bench.fired("/a", "NodeDeleted");  // nothing left to fire
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// SetWatches after a reconnect answers each table's watch on its own: a node deleted while the
// client was away gets a NodeDeleted for the data watch and another for the child watch
// (DataTree.setWatches, ZooKeeper 3.8). Found by explore on the ElasticJob recipe (seed 1).
TEST_F(WatchOnce, ASetWatchesCatchUpFiresEachTablesWatchOnce) {
  bench.registered("/a", "data");
  bench.registered("/a", "child");
  bench.fired("/a", "NodeDeleted", "data");
  bench.fired("/a", "NodeDeleted", "child");
  EXPECT_EQ(property.verdict(), properties::Verdict::held) << firstViolation();
  bench.fired("/a", "NodeDeleted", "child");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// addWatch (3.6+): a persistent watch fires again and again; a recursive one also for the nodes
// below it, but never NodeChildrenChanged; nothing else is covered.
TEST_F(WatchOnce, PersistentWatchesFireEveryTimeWithinTheirReach) {
  bench.registered("/p", "persistent");
  bench.registered("/j", "persistent_recursive");
  for (int i = 0; i < 3; i++) {
    bench.fired("/p", "NodeDataChanged");
    bench.fired("/p", "NodeChildrenChanged");
    bench.fired("/j/a/b", "NodeCreated");
    bench.fired("/j", "NodeDeleted");
  }
  EXPECT_EQ(property.verdict(), properties::Verdict::held) << firstViolation();
  bench.fired("/j/a", "NodeChildrenChanged");  // not for a recursive watch
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

TEST_F(WatchOnce, APersistentWatchCoversNothingBelowItsPath) {
  bench.registered("/p", "persistent");
  bench.fired("/p/c", "NodeDataChanged");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// A recursive watch covers the paths below it, not the paths that merely start with its name.
TEST_F(WatchOnce, ARecursiveWatchCoversDescendantsOnly) {
  bench.registered("/j", "persistent_recursive");
  bench.fired("/j/a", "NodeCreated");
  EXPECT_EQ(property.verdict(), properties::Verdict::held) << firstViolation();
  bench.fired("/jx", "NodeCreated");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// Its watches go with the server's process.
TEST_F(WatchOnce, ARecursiveWatchDiesWithItsServer) {
  bench.registered("/j", "persistent_recursive");
  bench.sim.trace().emit(bench.zk1.id(), "node.crash", {});
  bench.fired("/j/a", "NodeCreated");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// ZOOKEEPER-4466 again: a standard data watch set later on a recursively watched path takes the
// data table's mode, so the nodes below are no longer covered.
TEST_F(WatchOnce, AStandardRegistrationEndsARecursiveWatchsReachBelow) {
  bench.registered("/j", "persistent_recursive");
  bench.registered("/j", "data");
  bench.fired("/j/a", "NodeCreated");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

// ZOOKEEPER-4466 (3.6 to 3.8): a standard watch set later on the same path and table makes the
// persistent watch one-shot.
TEST_F(WatchOnce, AStandardRegistrationAfterAPersistentOneIsUsedUpByOneEvent) {
  bench.registered("/p", "persistent");
  bench.registered("/p", "data");
  bench.fired("/p", "NodeDataChanged");
  EXPECT_EQ(property.verdict(), properties::Verdict::held);
  bench.fired("/p", "NodeChildrenChanged");  // the child table is still persistent
  bench.fired("/p", "NodeChildrenChanged");
  EXPECT_EQ(property.verdict(), properties::Verdict::held);
  bench.fired("/p", "NodeDataChanged");
  EXPECT_EQ(property.verdict(), properties::Verdict::violated);
}

}  // namespace
