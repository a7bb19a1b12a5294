// CuratorCache as ElasticJob uses it: the initial NODE_CREATED events, then created / changed /
// deleted, reads from the cache, and the window in which a read returns what ZooKeeper no longer
// holds. Every test runs twice: over the persistent recursive watch (addWatch, what Curator 5
// does on a 3.6+ client) and over the one-shot emulation (live mode's C client has no addWatch).
#include "curator_cluster.h"
#include "model/curator/CuratorCache.h"
#include "model/zk/client/ZooKeeper.h"

namespace curator_test {
namespace {

using curator::ChildData;
using curator::CuratorCache;
using curator::CuratorCacheListener;

// A process caching /J, recording each event as "TYPE path data".
class CacheReader final : public sim::Node {
 public:
  CacheReader(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, curator::CuratorFrameworkConfig config)
      : Node(sim, std::move(name)), servers_(std::move(servers)), config_(config) {}

  CuratorCache& cache() { return *cache_; }
  curator::CuratorFramework& framework() { return *framework_; }
  std::vector<std::pair<sim::Instant, std::string>> events;
  int initialized = 0;
  std::optional<sim::Instant> when(const std::string& event) const {
    for (const auto& [time, entry] : events) {
      if (entry == event) return time;
    }
    return std::nullopt;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> result;
    for (const auto& [time, entry] : events) result.push_back(entry);
    return result;
  }
  std::string read(const std::string& path) const {
    std::optional<ChildData> data = cache_->get(path);
    return data ? data->data : "<none>";
  }

 protected:
  void on_start() override {
    framework_ = std::make_unique<curator::CuratorFramework>(*this, servers_, config_, sim().random().seed_for(name()));
    framework_->start();
    cache_ = std::make_unique<CuratorCache>(*framework_, "/J");
    CuratorCacheListener listener;
    listener.event = [this](CuratorCacheListener::Type type, const curator::SharedChildData& oldData, const curator::SharedChildData& data) {
      const ChildData& shown = data ? *data : *oldData;
      events.emplace_back(sim().now(), std::string(curator::cacheEventTypeName(type)) + " " + shown.path + " " + shown.data);
    };
    listener.initialized = [this] { initialized++; };
    cache_->addListener(std::move(listener));
    cache_->start();
  }
  void on_stop() override {
    cache_.reset();
    framework_.reset();
  }

 private:
  std::vector<sim::NodeId> servers_;
  curator::CuratorFrameworkConfig config_;
  std::unique_ptr<curator::CuratorFramework> framework_;
  std::unique_ptr<CuratorCache> cache_;
};

curator::CreateOptions withParents() {
  curator::CreateOptions options;
  options.creatingParentsIfNeeded = true;
  return options;
}

sim::Task<void> writeInitialTree(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  co_await client.create("/J/a/b", "ab", withParents());
  co_await client.create("/J/c", "c");
  co_await client.setData("/J", "root");
  self.record("tree written");
}

// Simulated handles, but without addWatch, as a client older than 3.6 (or the C client of 3.8).
class NoPersistentWatchersFactory final : public zk::ZookeeperFactory {
 public:
  std::unique_ptr<zk::ZooKeeper> newZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout,
                                              zk::Watcher watcher, std::uint64_t seed) override {
    return simulated_.newZooKeeper(owner, std::move(servers), sessionTimeout, std::move(watcher), seed);
  }
  bool hasPersistentWatchers() const override { return false; }

 private:
  zk::SimulatedZookeeperFactory simulated_;
};

enum class Watches { persistent, oneShot };

class CuratorCacheTest : public ::testing::TestWithParam<Watches> {};

struct CacheCluster : Cluster {
  CuratorNode& writer;
  CacheReader* reader = nullptr;
  Watches watches;
  CacheCluster(CuratorNode::Script script, Watches readerWatches)
      : writer(client("writer", shortSessions(6s), script)), watches(readerWatches) {
    writer.start();
  }
  CacheReader& startReader(sim::Duration sessionTimeout = 6s, std::string name = "reader") {
    curator::CuratorFrameworkConfig config = shortSessions(sessionTimeout);
    if (watches == Watches::oneShot) config.zookeeperFactory = std::make_shared<NoPersistentWatchersFactory>();
    reader = &sim.add_node<CacheReader>(std::move(name), ensemble.nodes(), config);
    reader->start();
    return *reader;
  }
  // The watches the reader's server holds, (data, child) table entries: only the reader watches.
  std::pair<std::size_t, std::size_t> readerWatches() {
    auto& handle = dynamic_cast<zk::SimulatedZooKeeper&>(reader->framework().getZookeeperClient().getZooKeeper());
    const auto& nodes = ensemble.nodes();
    const auto index = std::find(nodes.begin(), nodes.end(), handle.cnxn().currentServer()) - nodes.begin();
    const zk::DataTree& tree = ensemble.server(static_cast<zk::ServerId>(index + 1)).getZkDb().getDataTree();
    return {tree.dataWatches().size(), tree.childWatches().size()};
  }
};

TEST_P(CuratorCacheTest, TheInitialLoadGivesNodeCreatedForEveryExistingNodeThenInitialized) {
  CacheCluster cluster(writeInitialTree, GetParam());
  cluster.sim.run_for(2s);
  ASSERT_TRUE(cluster.writer.when("tree written"));
  CacheReader& reader = cluster.startReader();
  cluster.sim.run_for(2s);
  std::vector<std::string> names = reader.names();
  std::sort(names.begin(), names.end());
  EXPECT_EQ(names, (std::vector<std::string>{"NODE_CREATED /J root", "NODE_CREATED /J/a ", "NODE_CREATED /J/a/b ab",
                                             "NODE_CREATED /J/c c"}));
  EXPECT_EQ(reader.events.front().second, "NODE_CREATED /J root");  // the root first
  EXPECT_EQ(reader.initialized, 1);
  EXPECT_EQ(reader.cache().size(), 4u);
  EXPECT_EQ(reader.read("/J/a/b"), "ab");
  EXPECT_EQ(reader.read("/J/nothing"), "<none>");
}

sim::Task<void> writeChanges(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  co_await client.create("/J", "root");
  co_await self.sim().sleep(2s);  // the reader loads meanwhile
  co_await client.create("/J/x", "1");
  co_await self.sim().sleep(100ms);
  co_await client.setData("/J/x", "2");
  co_await self.sim().sleep(100ms);
  co_await client.setData("/J/x", "3");
  co_await self.sim().sleep(100ms);
  co_await client.deleteNode("/J/x");
  co_await self.sim().sleep(100ms);
  co_await client.create("/J/y/z", "z", withParents());
  self.record("changes written");
}

TEST_P(CuratorCacheTest, CreatedChangedAndDeletedEventsFollowTheTree) {
  CacheCluster cluster(writeChanges, GetParam());
  cluster.sim.run_for(500ms);
  CacheReader& reader = cluster.startReader();
  cluster.sim.run_for(5s);
  ASSERT_TRUE(cluster.writer.when("changes written"));
  EXPECT_EQ(reader.names(), (std::vector<std::string>{"NODE_CREATED /J root", "NODE_CREATED /J/x 1", "NODE_CHANGED /J/x 2",
                                                      "NODE_CHANGED /J/x 3", "NODE_DELETED /J/x 3", "NODE_CREATED /J/y ",
                                                      "NODE_CREATED /J/y/z z"}));
  EXPECT_EQ(reader.initialized, 1);
  EXPECT_EQ(reader.read("/J/x"), "<none>");
  EXPECT_EQ(reader.read("/J/y/z"), "z");
}

sim::Task<void> updateOnce(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  co_await client.create("/J/x", "old", withParents());
  co_await self.sim().sleep(3s);
  co_await client.setData("/J/x", "new");
  self.record("set new");
  co_await self.sim().sleep(3s);
  co_await client.deleteNode("/J/x");
  self.record("deleted");
}

TEST_P(CuratorCacheTest, AReadThroughTheCacheReturnsWhatZooKeeperNoLongerHolds) {
  CacheCluster cluster(updateOnce, GetParam());
  cluster.sim.run_for(500ms);
  CacheReader& reader = cluster.startReader();
  auto applied = [&cluster](const std::string& kind) {
    for (const TraceRecorder::Event& event : cluster.trace.events) {
      if (event.kind == kind && event.field("path") == "/J/x") return true;
    }
    return false;
  };
  // Step to the first server applying the setData: from here ZooKeeper holds "new".
  while (!applied("znode.set")) cluster.sim.step();
  sim::Instant changed = cluster.sim.now();
  EXPECT_EQ(reader.read("/J/x"), "old");
  while (reader.read("/J/x") == "old") cluster.sim.step();
  EXPECT_EQ(reader.read("/J/x"), "new");
  // The stale window: the reader's server applies the txn and sends the notification, then a
  // getData round trip. A few milliseconds on a quiet network; a partition stretches it (below).
  sim::Duration window = cluster.sim.now() - changed;
  EXPECT_GT(window, 0ms);
  EXPECT_LE(window, 30ms);
  ASSERT_TRUE(cluster.writer.when("set new"));
  // A deletion: the cache serves the last value until NodeDeleted arrives (no read needed).
  while (!applied("znode.delete")) cluster.sim.step();
  sim::Instant deleted = cluster.sim.now();
  EXPECT_EQ(reader.read("/J/x"), "new");
  while (reader.read("/J/x") == "new") cluster.sim.step();
  EXPECT_EQ(reader.read("/J/x"), "<none>");
  EXPECT_GT(cluster.sim.now() - deleted, 0ms);
  EXPECT_LE(cluster.sim.now() - deleted, 20ms);
}

sim::Task<void> changeDuringPartition(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  co_await client.create("/J/keep", "1", withParents());
  co_await client.create("/J/gone", "1");
  co_await self.sim().sleep(5s);  // the reader is cut off from here on
  co_await client.setData("/J/keep", "2");
  co_await client.deleteNode("/J/gone");
  co_await client.create("/J/new", "n");
  self.record("changed");
}

TEST_P(CuratorCacheTest, APartitionedReaderServesStaleDataUntilItReconnects) {
  CacheCluster cluster(changeDuringPartition, GetParam());
  cluster.sim.run_for(500ms);
  CacheReader& reader = cluster.startReader(20s);
  cluster.sim.run_for(3s);
  ASSERT_EQ(reader.read("/J/keep"), "1");
  cluster.sim.network().isolate(reader.id());
  cluster.sim.run_for(10s);
  ASSERT_TRUE(cluster.writer.when("changed"));
  EXPECT_EQ(reader.read("/J/keep"), "1");  // ZooKeeper says 2
  EXPECT_EQ(reader.read("/J/gone"), "1");  // ZooKeeper deleted it
  EXPECT_EQ(reader.read("/J/new"), "<none>");
  cluster.sim.network().heal_all();
  cluster.sim.run_for(5s);
  // Same session: the re-registered watches fire and the rebuild on RECONNECTED re-reads.
  EXPECT_EQ(reader.read("/J/keep"), "2");
  EXPECT_EQ(reader.read("/J/gone"), "<none>");
  EXPECT_EQ(reader.read("/J/new"), "n");
}

TEST_P(CuratorCacheTest, AfterASessionLossTheRebuildCatchesUpOnANewSession) {
  CacheCluster cluster(changeDuringPartition, GetParam());
  cluster.sim.run_for(500ms);
  CacheReader& reader = cluster.startReader(6s);
  cluster.sim.run_for(3s);
  cluster.sim.network().isolate(reader.id());
  cluster.sim.run_for(20s);  // SUSPENDED, LOST, a new handle
  ASSERT_EQ(reader.framework().getZookeeperClient().getInstanceIndex(), 2);
  EXPECT_EQ(reader.read("/J/gone"), "1");
  cluster.sim.network().heal_all();
  cluster.sim.run_for(5s);
  EXPECT_EQ(reader.read("/J/keep"), "2");
  EXPECT_EQ(reader.read("/J/gone"), "<none>");
  EXPECT_EQ(reader.read("/J/new"), "n");
  EXPECT_TRUE(reader.when("NODE_DELETED /J/gone 1"));
  // The watches are on the new handle: later changes still arrive.
  ASSERT_TRUE(reader.when("NODE_CREATED /J/new n"));
}

sim::Task<void> writeWideTree(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  for (int i = 0; i < 10; i++) co_await client.create("/J/sharding/" + std::to_string(i) + "/instance", "i", withParents());
  self.record("tree written");
}

TEST_P(CuratorCacheTest, ThePersistentWatchIsOneWatchPerCacheWhereTheEmulationWatchesEveryNodeTwice) {
  CacheCluster cluster(writeWideTree, GetParam());
  cluster.sim.run_for(2s);
  ASSERT_TRUE(cluster.writer.when("tree written"));
  CacheReader& reader = cluster.startReader();
  cluster.sim.run_for(3s);
  ASSERT_EQ(reader.cache().size(), 22u);  // /J, /J/sharding, 10 items and their instance nodes
  auto [data, child] = cluster.readerWatches();
  if (GetParam() == Watches::persistent) {
    // DataTree.addWatch puts the recursive watch in both tables (3.8).
    EXPECT_EQ(data, 1u);
    EXPECT_EQ(child, 1u);
  } else {
    EXPECT_EQ(data, 22u);
    EXPECT_EQ(child, 22u);
  }
}

TEST_P(CuratorCacheTest, TwoCachesOfOneTreeHoldOneCopyOfEachNodeVersion) {
  CacheCluster cluster(writeInitialTree, GetParam());
  cluster.sim.run_for(2s);
  ASSERT_TRUE(cluster.writer.when("tree written"));
  const std::size_t before = curator::SharedChildData::pooled();
  CacheReader& first = cluster.startReader(6s, "first");
  CacheReader& second = cluster.startReader(6s, "second");
  cluster.sim.run_for(2s);
  ASSERT_EQ(first.cache().size(), 4u);
  ASSERT_EQ(second.cache().size(), 4u);
  for (const char* path : {"/J", "/J/a", "/J/a/b", "/J/c"}) {
    ASSERT_NE(first.cache().find(path), nullptr) << path;
    EXPECT_EQ(first.cache().find(path), second.cache().find(path)) << path;
  }
  EXPECT_EQ(curator::SharedChildData::pooled(), before + 4);
  EXPECT_EQ(second.read("/J/a/b"), "ab");
}

sim::Task<void> changeManyTimes(CuratorNode& self) {
  curator::CuratorFramework& client = self.framework();
  co_await client.blockUntilConnected();
  co_await client.create("/J/x", "0", withParents());
  co_await self.sim().sleep(2s);
  for (int i = 1; i <= 5; i++) {
    co_await client.setData("/J/x", std::to_string(i));
    co_await self.sim().sleep(200ms);
  }
  co_await client.create("/J/x/y", "y");
  self.record("changed");
}

TEST(CuratorCache, APersistentWatchFiresForEveryChangeWithoutBeingRegisteredAgain) {
  CacheCluster cluster(changeManyTimes, Watches::persistent);
  cluster.sim.run_for(500ms);
  CacheReader& reader = cluster.startReader();
  cluster.sim.run_for(5s);
  ASSERT_TRUE(cluster.writer.when("changed"));
  EXPECT_EQ(reader.names(), (std::vector<std::string>{"NODE_CREATED /J ", "NODE_CREATED /J/x 0", "NODE_CHANGED /J/x 1",
                                                      "NODE_CHANGED /J/x 2", "NODE_CHANGED /J/x 3", "NODE_CHANGED /J/x 4",
                                                      "NODE_CHANGED /J/x 5", "NODE_CREATED /J/x/y y"}));
  // Two addWatch calls, both before the changes: PersistentWatcher.start resets, and so does the
  // CONNECTED state that follows (Curator does the same when started before it connects). The
  // reads carry no watch; nothing is registered again while the node changes five times.
  const auto& counts = reader.framework().requestCounts();
  EXPECT_EQ(counts.addWatch, 2u);
  EXPECT_EQ(counts.exists, 0u);
  std::vector<std::string> registrations;
  for (const TraceRecorder::Event& event : cluster.trace.events) {
    if (event.kind == "watch.register") registrations.push_back(event.field("table") + " " + event.field("path"));
  }
  EXPECT_EQ(registrations, (std::vector<std::string>{"persistent_recursive /J", "persistent_recursive /J"}));
}

INSTANTIATE_TEST_SUITE_P(Watches, CuratorCacheTest, ::testing::Values(Watches::persistent, Watches::oneShot),
                         [](const ::testing::TestParamInfo<Watches>& info) {
                           return info.param == Watches::persistent ? "persistent" : "oneShot";
                         });

}  // namespace
}  // namespace curator_test
