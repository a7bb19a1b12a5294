// CuratorFramework operations: protected creates across a connection loss, parents, recursive
// deletes, transactions, guaranteed deletes.
#include "curator_cluster.h"
#include "model/curator/ProtectedUtils.h"

namespace curator_test {
namespace {

using curator::CreateOptions;

CreateOptions ephemeralSequential(bool protect) {
  CreateOptions options;
  options.mode = zk::CreateMode::ephemeral_sequential;
  options.creatingParentsIfNeeded = true;
  options.withProtection = protect;
  return options;
}

sim::Task<void> protectedCreate(CuratorNode& self) {
  co_await self.framework().blockUntilConnected();
  zk::CreateResult created = co_await self.framework().create("/locks/lock-", "me", ephemeralSequential(true));
  self.record("create " + std::string(zk::code_name(created.code)));
  self.results.push_back(created.path);
}

sim::Task<void> unprotectedCreate(CuratorNode& self) {
  co_await self.framework().blockUntilConnected();
  zk::CreateResult created = co_await self.framework().create("/locks/lock-", "me", ephemeralSequential(false));
  self.record("create " + std::string(zk::code_name(created.code)));
  self.results.push_back(created.path);
}

std::vector<std::string> childrenOf(const zk::DataTree& tree, const std::string& path) {
  const zk::DataNode* node = tree.getNode(path);
  if (node == nullptr) return {};
  return std::vector<std::string>(node->children.begin(), node->children.end());
}

TEST(ProtectedCreate, TheRetryFindsTheNodeTheLostReplyWasAbout) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), protectedCreate);
  cluster.connectionLossAtCreate(client.id(), "/locks");
  client.start();
  cluster.sim.run_for(20s);
  ASSERT_TRUE(client.when("create OK"));
  ASSERT_EQ(client.results.size(), 1u);
  std::vector<std::string> children = childrenOf(cluster.leaderTree(), "/locks");
  ASSERT_EQ(children.size(), 1u);  // no orphan
  EXPECT_EQ(client.results[0], "/locks/" + children[0]);
  EXPECT_TRUE(curator::ProtectedUtils::isProtectedZNode(children[0]));
  EXPECT_EQ(curator::ProtectedUtils::normalize(children[0]).rfind("lock-", 0), 0u);
  EXPECT_EQ(cluster.trace.of("curator.retry", client.id()).size(), 1u);
  // The server made it once, for this session, which is still alive.
  const zk::DataNode* node = cluster.leaderTree().getNode(client.results[0]);
  ASSERT_NE(node, nullptr);
  EXPECT_EQ(node->stat.ephemeral_owner, client.framework().getZookeeperClient().getZooKeeper().getSessionId());
}

TEST(ProtectedCreate, WithoutProtectionTheRetryLeavesAnOrphanOwnedByTheLiveSession) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), unprotectedCreate);
  cluster.connectionLossAtCreate(client.id(), "/locks");
  client.start();
  cluster.sim.run_for(20s);
  ASSERT_TRUE(client.when("create OK"));
  std::vector<std::string> children = childrenOf(cluster.leaderTree(), "/locks");
  ASSERT_EQ(children.size(), 2u);
  EXPECT_EQ(client.results[0], "/locks/" + children[1]);  // ours is the second; the first is the orphan
  zk::SessionId session = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  EXPECT_EQ(cluster.leaderTree().getNode("/locks/" + children[0])->stat.ephemeral_owner, session);
}

TEST(ProtectedCreate, ProtectionPrefixesAreFortyCharactersAndDeterministic) {
  sim::Rng first(5);
  sim::Rng second(5);
  std::string id = curator::ProtectedUtils::randomUuid(first);
  EXPECT_EQ(id, curator::ProtectedUtils::randomUuid(second));
  std::string prefix = curator::ProtectedUtils::getProtectedPrefix(id);
  EXPECT_EQ(prefix.size(), curator::ProtectedUtils::PROTECTED_PREFIX_WITH_UUID_LENGTH);
  EXPECT_EQ(curator::ProtectedUtils::toProtectedZNodePath("/a/b/latch-", id), "/a/b/" + prefix + "latch-");
  EXPECT_TRUE(curator::ProtectedUtils::isProtectedZNode(prefix + "latch-0000000003"));
  EXPECT_FALSE(curator::ProtectedUtils::isProtectedZNode("latch-0000000003"));
  EXPECT_EQ(curator::ProtectedUtils::normalize(prefix + "latch-0000000003"), "latch-0000000003");
}

std::string name(zk::Code code) { return std::string(zk::code_name(code)); }

sim::Task<void> operationsScript(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  CreateOptions parents;
  parents.creatingParentsIfNeeded = true;
  zk::CreateResult deep = co_await client.create("/a/b/c/d", "x", parents);
  self.record("deep " + name(deep.code));
  zk::CreateResult plain = co_await client.create("/q/r", "x");
  self.record("plain " + name(plain.code));
  zk::CreateResult again = co_await client.create("/a/b/c/d", "y", parents);
  self.record("again " + name(again.code));
  zk::StatResult set = co_await client.setData("/a/b/c/d", "z");
  self.record("set " + std::to_string(set.stat.version));
  zk::DataResult read = co_await client.getData("/a/b/c/d");
  self.record("read " + read.data);
  zk::StatResult exists = co_await client.checkExists("/a/b/nothing");
  self.record("exists " + name(exists.code));
  std::vector<zk::Op> failing;
  failing.push_back(zk::Op::create("/a/t1", "", zk::CreateMode::persistent));
  failing.push_back(zk::Op::check("/a/b", 7));
  zk::MultiResult failed = co_await client.transaction(std::move(failing));
  self.record("multi " + name(failed.code));
  std::vector<zk::Op> passing;
  passing.push_back(zk::Op::create("/a/t1", "", zk::CreateMode::persistent));
  passing.push_back(zk::Op::setData("/a/b/c/d", "w"));
  zk::MultiResult done = co_await client.transaction(std::move(passing));
  self.record("multi " + name(done.code));
  zk::Code deleted = co_await client.deleteNode("/a");
  self.record("delete " + name(deleted));
  curator::DeleteOptions recursive;
  recursive.deletingChildrenIfNeeded = true;
  deleted = co_await client.deleteNode("/a", recursive);
  self.record("delete " + name(deleted));
  curator::DeleteOptions quietly;
  quietly.quietly = true;
  deleted = co_await client.deleteNode("/a", quietly);
  self.record("quietly " + name(deleted));
}

TEST(Operations, ParentsRecursiveDeletesAndTransactions) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), operationsScript);
  client.start();
  cluster.sim.run_for(5s);
  for (const char* expected : {"deep OK", "plain NONODE", "again NODEEXISTS", "set 1", "read z", "exists NONODE", "multi BADVERSION",
                               "multi OK", "delete NOTEMPTY", "delete OK", "quietly OK"}) {
    EXPECT_TRUE(client.when(expected)) << expected;
  }
  EXPECT_EQ(cluster.leaderTree().getNode("/a"), nullptr);
}

TEST(Operations, AGuaranteedDeleteThatFailsIsRetriedInTheBackgroundUntilItSucceeds) {
  Cluster cluster;
  curator::CuratorFrameworkConfig config = shortSessions(20s);
  config.connectionTimeout = 1s;
  auto& client = cluster.client("c1", config, [](CuratorNode& self) -> sim::Task<void> {
    curator::CuratorFramework& client = self.framework();
    co_await client.blockUntilConnected();
    co_await client.create("/doomed", "");
    self.record("created");
    while (client.getConnectionStateListenable().isConnected()) co_await self.sim().sleep(50ms);
    curator::DeleteOptions guaranteed;
    guaranteed.guaranteed = true;
    self.record("delete " + std::string(zk::code_name(co_await client.deleteNode("/doomed", guaranteed))));
  });
  client.start();
  cluster.sim.run_for(2s);
  ASSERT_TRUE(client.when("created"));
  cluster.sim.network().isolate(client.id());
  cluster.sim.run_for(40s);  // the foreground delete gives up; the background one keeps trying
  EXPECT_TRUE(client.when("delete CONNECTIONLOSS"));
  EXPECT_NE(cluster.leaderTree().getNode("/doomed"), nullptr);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(20s);
  EXPECT_EQ(cluster.leaderTree().getNode("/doomed"), nullptr);
}

}  // namespace
}  // namespace curator_test
