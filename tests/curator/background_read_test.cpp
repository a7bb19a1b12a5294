// Background reads handed to a callback (CuratorFramework::getDataInBackground, which CuratorCache
// uses for every node it reads): sent only when an attempt can start at once, answered when an
// awaiting coroutine would be, and, after a failed first attempt, retried exactly as the awaited
// background read is: the two finish at the same instant with the same result.
#include "curator_cluster.h"
#include "model/curator/CuratorCache.h"

namespace curator_test {
namespace {

using curator::Call;

std::string describe(const zk::DataResult& result) { return std::string(zk::code_name(result.code)) + " " + result.data; }

sim::Task<void> writeA(CuratorNode& self) {
  co_await self.framework().blockUntilConnected();
  co_await self.framework().create("/a", "1");
  self.record("written");
}

sim::Task<void> awaitedBackgroundRead(CuratorNode& self) {
  zk::DataResult result = co_await self.framework().getData("/a", {}, Call::inBackground);
  self.record("awaited " + describe(result));
}

sim::Task<void> retriedRead(CuratorNode& self, sim::Instant start, zk::Code failed) {
  zk::DataResult result = co_await self.framework().backgroundGetData("/a", start, failed);
  self.record("callback " + describe(result));
}

struct ReadCluster : Cluster {
  CuratorNode& node = client("reader", shortSessions(6s), writeA);
  std::vector<std::pair<sim::Instant, std::string>> firstAttempts;
  ReadCluster() {
    node.start();
    sim.run_for(2s);
    EXPECT_TRUE(node.when("written"));
  }
  // In the node's own event: a read with a callback, and (if `awaitedToo`, in the next event of
  // the same instant) the same read awaited, as Curator's background queue would start it.
  void readInBackground(bool withCallback, bool awaited) {
    sim.schedule_callback(sim.now(), node.id(), [this, withCallback, awaited] {
      const sim::Instant start = sim.now();
      if (withCallback) {
        const bool sent = node.framework().getDataInBackground("/a", [this, start](zk::DataResult result) {
          firstAttempts.emplace_back(sim.now(), describe(result));
          if (result.code == zk::Code::ok) {
            node.record("callback " + describe(result));
          } else {
            node.spawn(retriedRead(node, start, result.code));
          }
        });
        node.record(sent ? "sent" : "not sent");
      }
      if (awaited) node.spawn(awaitedBackgroundRead(node));
    });
  }
  std::optional<std::pair<sim::Instant, std::string>> logged(const std::string& prefix) const {
    for (const auto& [time, entry] : node.log) {
      if (entry.rfind(prefix, 0) == 0) return std::make_pair(time, entry.substr(prefix.size()));
    }
    return std::nullopt;
  }
};

TEST(BackgroundRead, AConnectedReadIsSentAtOnceAndAnsweredAsTheAwaitedReadIs) {
  ReadCluster cluster;
  const std::uint64_t reads = cluster.node.framework().requestCounts().getData;
  const sim::Instant asked = cluster.sim.now();
  cluster.readInBackground(true, true);
  cluster.sim.run_for(1s);
  EXPECT_TRUE(cluster.node.when("sent"));
  EXPECT_EQ(cluster.node.framework().requestCounts().getData, reads + 2);
  ASSERT_EQ(cluster.firstAttempts.size(), 1u);
  EXPECT_GT(cluster.firstAttempts[0].first, asked);  // a round trip later, not inline
  auto callback = cluster.logged("callback ");
  auto awaited = cluster.logged("awaited ");
  ASSERT_TRUE(callback && awaited);
  EXPECT_EQ(callback->second, "OK 1");
  EXPECT_EQ(awaited->second, "OK 1");
  EXPECT_LE(callback->first, awaited->first);  // one connection: the replies come in request order
}

TEST(BackgroundRead, NothingIsSentWhileDisconnected) {
  ReadCluster cluster;
  cluster.sim.network().isolate(cluster.node.id());
  cluster.sim.run_for(5s);  // the client gives the server up (readTimeout 4 s): SUSPENDED
  ASSERT_FALSE(cluster.node.framework().getZookeeperClient().isConnected());
  const std::uint64_t reads = cluster.node.framework().requestCounts().getData;
  cluster.readInBackground(true, false);
  cluster.sim.run_for(100ms);
  EXPECT_TRUE(cluster.node.when("not sent"));
  EXPECT_TRUE(cluster.firstAttempts.empty());
  EXPECT_EQ(cluster.node.framework().requestCounts().getData, reads);
}

TEST(BackgroundRead, AHandleClosedAlreadyAnswersACallbackAtOnce) {
  ReadCluster cluster;
  std::vector<std::string> answers;
  cluster.sim.schedule_callback(cluster.sim.now(), cluster.node.id(), [&] {
    zk::ZooKeeper& handle = cluster.node.framework().getZookeeperClient().getZooKeeper();
    ASSERT_TRUE(handle.hasCallbacks());
    handle.injectSessionExpiration();
    handle.getData("/a", {}, [&](zk::DataResult result) { answers.push_back(describe(result)); });
    // As an awaiter would find its reply ready: before the call returns.
    EXPECT_EQ(answers, std::vector<std::string>{"SESSIONEXPIRED "});
  });
  cluster.sim.run_for(1s);
  EXPECT_EQ(answers.size(), 1u);
}

// A first attempt lost with the connection: the retries go on from the failure, counting the
// connection timeout from when the read began. The same run (same seed, so the same backoff
// draws) with the read awaited instead ends at the same instant with the same result. The
// network is cut right after the read is asked for; `heal`: when it comes back.
void expectTheSameEndEitherWay(std::optional<sim::Duration> heal, const std::string& expected) {
  std::optional<std::pair<sim::Instant, std::string>> ends[2];
  std::uint64_t reads[2] = {0, 0};
  for (bool withCallback : {true, false}) {
    ReadCluster cluster;
    cluster.readInBackground(withCallback, !withCallback);
    cluster.sim.network().isolate(cluster.node.id());
    if (heal) {
      cluster.sim.run_for(*heal);
      if (withCallback) {
        ASSERT_EQ(cluster.firstAttempts.size(), 1u);
        EXPECT_EQ(cluster.firstAttempts[0].second, "CONNECTIONLOSS ");
        EXPECT_FALSE(cluster.logged("callback "));  // retrying
      }
      cluster.sim.network().heal_all();
    }
    cluster.sim.run_for(60s);
    ends[withCallback ? 0 : 1] = cluster.logged(withCallback ? "callback " : "awaited ");
    reads[withCallback ? 0 : 1] = cluster.node.framework().requestCounts().getData;
  }
  ASSERT_TRUE(ends[0] && ends[1]);
  EXPECT_EQ(ends[0]->second, expected);
  EXPECT_EQ(ends[1]->second, expected);
  EXPECT_EQ(sim::nanos(ends[0]->first), sim::nanos(ends[1]->first));
  EXPECT_EQ(reads[0], reads[1]);
}

TEST(BackgroundRead, AFirstAttemptLostWithTheConnectionIsRetriedAsTheAwaitedReadIs) { expectTheSameEndEitherWay(6s, "OK 1"); }

TEST(BackgroundRead, ARetriedReadGivesUpWhenTheAwaitedReadDoes) { expectTheSameEndEitherWay(std::nullopt, "CONNECTIONLOSS "); }

// A cache whose reads are in flight when it is destroyed (ElasticJob evicts a shut-down job's
// cache): the replies that come afterwards find no cache, and nothing runs on it.
class CacheOwner final : public sim::Node {
 public:
  CacheOwner(sim::Simulation& sim, std::vector<sim::NodeId> servers) : Node(sim, "owner"), servers_(std::move(servers)) {}
  // The cache goes first: it closes through its framework (a run may end with the node still up).
  ~CacheOwner() override { cache.reset(); }
  curator::CuratorFramework& framework() { return *framework_; }
  std::unique_ptr<curator::CuratorCache> cache;
  int events = 0;
  bool initialized = false;

 protected:
  void on_start() override {
    framework_ = std::make_unique<curator::CuratorFramework>(*this, servers_, shortSessions(6s), sim().random().seed_for(name()));
    framework_->start();
    cache = std::make_unique<curator::CuratorCache>(*framework_, "/a");
    curator::CuratorCacheListener listener;
    listener.event = [this](curator::CuratorCacheListener::Type, const curator::SharedChildData&, const curator::SharedChildData&) { events++; };
    listener.initialized = [this] { initialized = true; };
    cache->addListener(std::move(listener));
    cache->start();
  }
  void on_stop() override {
    cache.reset();
    framework_.reset();
  }

 private:
  std::vector<sim::NodeId> servers_;
  std::unique_ptr<curator::CuratorFramework> framework_;
};

// Until the cache's first read (of its root, once the watch is added) is on its way.
void runUntilTheCacheReads(ReadCluster& cluster, CacheOwner& owner) {
  for (int step = 0; step < 10'000 && owner.framework().requestCounts().getData == 0; step++) cluster.sim.run_for(100us);
}

TEST(BackgroundRead, ACacheDestroyedWithReadsInFlightIsNotCalledBack) {
  ReadCluster cluster;
  CacheOwner& owner = cluster.sim.add_node<CacheOwner>(cluster.ensemble.nodes());
  owner.start();
  runUntilTheCacheReads(cluster, owner);
  const curator::CuratorFramework::RequestCounts sent = owner.framework().requestCounts();
  ASSERT_GE(sent.getData, 1u);
  ASSERT_EQ(sent.getChildren, 0u);
  ASSERT_EQ(owner.events, 0);
  owner.cache.reset();
  cluster.sim.run_for(2s);  // the replies come, and are dropped
  EXPECT_EQ(owner.events, 0);
  // A reply handled would have stored /a (NODE_CREATED) and listed its children.
  EXPECT_EQ(owner.framework().requestCounts().total(), sent.total());
}

// The cache's own read, its first attempt lost with the connection: the callback hands it to its
// retries, which read the node once the connection is back, so the read is counted down and the
// cache reports itself initialized (a failure dropped there would leave it uninitialized for good;
// the rebuild after the reconnect reads the node again, with its own count).
TEST(BackgroundRead, ACacheReadLostWithTheConnectionIsRetriedAndTheCacheInitializes) {
  ReadCluster cluster;
  CacheOwner& owner = cluster.sim.add_node<CacheOwner>(cluster.ensemble.nodes());
  owner.start();
  runUntilTheCacheReads(cluster, owner);
  ASSERT_GE(owner.framework().requestCounts().getData, 1u);
  cluster.sim.network().isolate(owner.id());
  cluster.sim.run_for(6s);
  EXPECT_FALSE(owner.initialized);
  EXPECT_EQ(owner.events, 0);
  cluster.sim.network().heal_all();
  cluster.sim.run_for(30s);
  EXPECT_TRUE(owner.initialized);
  EXPECT_EQ(owner.events, 1);  // /a stored once
}

}  // namespace
}  // namespace curator_test
