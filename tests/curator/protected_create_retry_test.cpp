// A protected create whose find is a nested callWithRetry (CreateBuilderImpl.
// findProtectedNodeInForeground), across two connection losses in a row:
//   - foreground, the find shares the create's ThreadLocalRetryLoop and completes it, so a create
//     that fails retryably after it returns null and leaves its node behind; InterProcessMutex then
//     fails that acquire and waits behind the node at the next;
//   - background, the find has a retry loop of its own.
// And FindAndDeleteProtectedNodeInBackground, which keeps its start time across its rounds.
#include "curator_cluster.h"
#include "model/curator/InterProcessMutex.h"
#include "model/curator/ProtectedUtils.h"

namespace curator_test {
namespace {

curator::CreateOptions protectedEphemeralSequential(curator::Call call) {
  curator::CreateOptions options;
  options.mode = zk::CreateMode::ephemeral_sequential;
  options.creatingParentsIfNeeded = true;
  options.withProtection = true;
  options.call = call;
  return options;
}

std::vector<std::string> childrenOf(const zk::DataTree& tree, const std::string& path) {
  const zk::DataNode* node = tree.getNode(path);
  if (node == nullptr) return {};
  return std::vector<std::string>(node->children.begin(), node->children.end());
}

// The scripts cut themselves off just before their first request, so that it is lost before any
// server applies it; the test heals them when their client gives up on the connection.
sim::Task<void> isolatedCreate(CuratorNode& self, curator::Call call) {
  co_await self.framework().blockUntilConnected();
  self.sim().network().isolate(self.id());
  zk::CreateResult created = co_await self.framework().create("/locks/lock-", "me", protectedEphemeralSequential(call));
  self.record("create " + std::string(zk::code_name(created.code)));
  self.results.push_back(created.path);
}
sim::Task<void> isolatedForegroundCreate(CuratorNode& self) { return isolatedCreate(self, curator::Call::foreground); }
sim::Task<void> isolatedBackgroundCreate(CuratorNode& self) { return isolatedCreate(self, curator::Call::inBackground); }

sim::Task<void> isolatedAcquireTwice(CuratorNode& self) {
  co_await self.framework().blockUntilConnected();
  curator::InterProcessMutex mutex(self.framework(), "/locks", "me");
  self.sim().network().isolate(self.id());
  for (int attempt = 1; attempt <= 2; attempt++) {
    zk::Code acquired = co_await mutex.acquire();
    self.record("acquire " + std::string(zk::code_name(acquired)));
  }
}

sim::Task<void> createProtectedNode(CuratorNode& self) {
  co_await self.framework().blockUntilConnected();
  curator::CreateOptions options = protectedEphemeralSequential(curator::Call::foreground);
  options.protectedId = self.framework().newProtectedId();
  zk::CreateResult created = co_await self.framework().create("/locks/lock-", "me", options);
  self.record("create " + std::string(zk::code_name(created.code)));
  self.results = {options.protectedId, created.path};
}

// Heals `node` when its client gives up on its (isolated) connection, then calls `next`.
void healAtTimeout(Cluster& cluster, sim::NodeId node, std::function<void()> next) {
  cluster.trace.hook = [&cluster, node, next](const TraceRecorder::Event& event) {
    if (event.kind != "zk.client.timeout" || event.node != node) return;
    cluster.trace.hook = nullptr;
    cluster.sim.schedule_callback(cluster.sim.now(), sim::no_node, [&cluster] { cluster.sim.network().heal_all(); });
    if (next) next();
  };
}

TEST(ProtectedCreateRetry, AForegroundCreateThatFailsAfterItsFindReturnsNullAndLeavesItsNode) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), isolatedForegroundCreate);
  // First loss: the create never reached a server. Second: the retry's find (no node) succeeds,
  // then its create is applied and the reply lost.
  healAtTimeout(cluster, client.id(), [&cluster, &client] { cluster.connectionLossAtCreate(client.id(), "/locks"); });
  client.start();
  cluster.sim.run_for(60s);
  ASSERT_TRUE(client.when("create OK"));
  ASSERT_EQ(client.results.size(), 1u);
  EXPECT_EQ(client.results[0], "");  // Java: null
  EXPECT_EQ(cluster.trace.of("curator.create_null", client.id()).size(), 1u);
  // Both failures went through the one loop: the first retried, the second slept, then ended it.
  EXPECT_EQ(cluster.trace.of("curator.retry", client.id()).size(), 2u);
  // No find-and-delete: the node stays, owned by the live session, long after.
  std::vector<std::string> children = childrenOf(cluster.leaderTree(), "/locks");
  ASSERT_EQ(children.size(), 1u);
  EXPECT_TRUE(curator::ProtectedUtils::isProtectedZNode(children[0]));
  zk::SessionId session = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  EXPECT_EQ(cluster.leaderTree().getNode("/locks/" + children[0])->stat.ephemeral_owner, session);
}

TEST(ProtectedCreateRetry, ABackgroundCreatesFindRetriesOnALoopOfItsOwn) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), isolatedBackgroundCreate);
  // First loss: the create never reached a server. The client is cut off again the moment it has
  // reconnected, so the retry's find is lost too; healed when that connection times out.
  healAtTimeout(cluster, client.id(), [&cluster, &client] {
    cluster.trace.hook = [&cluster, &client](const TraceRecorder::Event& event) {
      if (event.kind != "client.state" || event.node != client.id() || event.field("layer") != "zookeeper" ||
          event.field("state") != "CONNECTED") {
        return;
      }
      cluster.sim.schedule_callback(cluster.sim.now(), sim::no_node, [&cluster, &client] { cluster.sim.network().isolate(client.id()); });
      healAtTimeout(cluster, client.id(), nullptr);
    };
  });
  client.start();
  cluster.sim.run_for(60s);
  ASSERT_TRUE(client.when("create OK"));
  ASSERT_EQ(client.results.size(), 1u);
  std::vector<std::string> children = childrenOf(cluster.leaderTree(), "/locks");
  ASSERT_EQ(children.size(), 1u);
  EXPECT_EQ(client.results[0], "/locks/" + children[0]);
  // The create's loop retried once (its lost create); the find's own loop retried its lost read,
  // counting from 1.
  std::vector<std::pair<std::string, std::int64_t>> retries;
  for (const TraceRecorder::Event& retry : cluster.trace.of("curator.retry", client.id())) {
    retries.emplace_back(retry.field("operation"), retry.number("attempt"));
  }
  std::vector<std::pair<std::string, std::int64_t>> expected{{"create", 1}, {"findProtectedNode", 1}};
  EXPECT_EQ(retries, expected);
}

TEST(ProtectedCreateRetry, AMutexWhoseCreateReturnedNullWaitsBehindItsOwnNodeForever) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(6s), isolatedAcquireTwice);
  healAtTimeout(cluster, client.id(), [&cluster, &client] { cluster.connectionLossAtCreate(client.id(), "/locks"); });
  client.start();
  cluster.sim.run_for(120s);
  // The first acquire threw (NullPointerException in Java); the second made a node after the one
  // the first left, and waits for it, as long as the session lives.
  std::vector<std::string> acquires;
  for (const auto& [time, entry] : client.log) {
    if (entry.rfind("acquire ", 0) == 0) acquires.push_back(entry);
  }
  EXPECT_EQ(acquires, std::vector<std::string>{"acquire CONNECTIONLOSS"});
  EXPECT_EQ(cluster.trace.of("curator.create_null", client.id()).size(), 1u);
  std::vector<std::string> children = curator::LockInternals::getSortedChildren(
      curator::InterProcessMutex::LOCK_NAME, childrenOf(cluster.leaderTree(), "/locks"));
  ASSERT_EQ(children.size(), 2u);
  zk::SessionId session = client.framework().getZookeeperClient().getZooKeeper().getSessionId();
  for (const std::string& child : children) EXPECT_EQ(cluster.leaderTree().getNode("/locks/" + child)->stat.ephemeral_owner, session);
}

TEST(ProtectedCreateRetry, FindAndDeleteKeepsItsStartTimeSoItsRetrySleepsOutlastAReconnect) {
  Cluster cluster;
  auto& client = cluster.client("c1", shortSessions(40s), createProtectedNode);
  client.start();
  cluster.sim.run_for(5s);
  ASSERT_TRUE(client.when("create OK"));
  const std::string protectedId = client.results.at(0);
  const std::string path = client.results.at(1);
  cluster.sim.network().isolate(client.id());
  client.framework().findAndDeleteProtectedNodeInBackground("/locks", protectedId);
  cluster.sim.run_for(25s);  // past connectionTimeout (15 s), within the session (40 s)
  const sim::Instant healed = cluster.sim.now();
  cluster.sim.network().heal_all();
  cluster.sim.run_for(20s);
  ASSERT_EQ(cluster.leaderTree().getNode(path), nullptr);

  std::optional<sim::Instant> deleted, reconnected;
  for (const TraceRecorder::Event& event : cluster.trace.of("znode.delete")) {
    if (event.field("path") == path && !deleted) deleted = event.time;
  }
  for (const TraceRecorder::Event& event : cluster.trace.of("client.state", client.id())) {
    if (event.time >= healed && event.field("layer") == "zookeeper" && event.field("state") == "CONNECTED" && !reconnected) {
      reconnected = event.time;
    }
  }
  ASSERT_TRUE(deleted && reconnected);
  // The round that found the node had failed at once while disconnected (it is older than
  // connectionTimeout: CURATOR-52) and slept as the retry policy said; the reconnect did not cut
  // that sleep short, and the read went out when it ended.
  std::optional<sim::Instant> lastSleepEnd;
  for (const TraceRecorder::Event& retry : cluster.trace.of("curator.retry", client.id())) {
    if (retry.time < *deleted) lastSleepEnd = retry.time + std::chrono::milliseconds(retry.number("sleep_ms"));
  }
  ASSERT_TRUE(lastSleepEnd);
  EXPECT_GT(*lastSleepEnd, *reconnected);
  EXPECT_GE(*deleted, *lastSleepEnd);
  EXPECT_LT(*deleted - *lastSleepEnd, 100ms);
}

}  // namespace
}  // namespace curator_test
