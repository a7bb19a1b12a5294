// ZookeeperRegistryCenter and JobNodeStorage against a simulated ensemble: which reads are direct
// and which cached, the descending children order, RegExceptionHandler's swallowed codes, silent
// transaction aborts, and executeInLeader as a mutex.
#include <gtest/gtest.h>

#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/JobConfiguration.h"
#include "model/elasticjob/JobNodeStorage.h"
#include "model/elasticjob/RegExceptionHandler.h"
#include "tests/elasticjob/elasticjob_cluster.h"

namespace elasticjob_test {
namespace {

// A process with a registry centre, running a script once connected.
class RegistryNode final : public sim::Node {
 public:
  using Script = sim::Task<void> (*)(RegistryNode&);
  RegistryNode(sim::Simulation& sim, std::string name, elasticjob::ZookeeperConfiguration config, Script script)
      : Node(sim, std::move(name)), config_(std::move(config)), script_(script) {}
  elasticjob::ZookeeperRegistryCenter& regCenter() { return *regCenter_; }
  std::vector<std::string> results;
  bool done = false;

 protected:
  void on_start() override {
    regCenter_ = std::make_unique<elasticjob::ZookeeperRegistryCenter>(*this, config_, sim().random().seed_for(name()));
    spawn(run());
  }
  void on_stop() override { regCenter_.reset(); }

 private:
  sim::Task<void> run() {
    bool connected = co_await regCenter_->init();
    EXPECT_TRUE(connected);
    co_await script_(*this);
    done = true;
  }
  elasticjob::ZookeeperConfiguration config_;
  Script script_;
  std::unique_ptr<elasticjob::ZookeeperRegistryCenter> regCenter_;
};

sim::Task<void> childrenDescending(RegistryNode& node) {
  elasticjob::ZookeeperRegistryCenter& reg = node.regCenter();
  std::vector<std::string> ids{"10.0.0.1@-@5", "192.168.1.2@-@100", "10.0.0.10@-@5", "10.0.0.1@-@100", "192.168.1.10@-@200", "10.0.0.1@-@99"};
  for (const std::string& id : ids) co_await reg.persist("/job/instances/" + id, "");
  std::vector<std::string> children = co_await reg.getChildrenKeys("/job/instances");
  for (std::string& child : children) node.results.push_back(child);
}

TEST(RegistryCenter, ChildrenComeInDescendingStringOrderAsJavaSortsThem) {
  Cluster cluster;
  auto& node = cluster.sim.add_node<RegistryNode>("r", cluster.zookeeper(), childrenDescending);
  node.start();
  cluster.sim.run_for(10s);
  ASSERT_TRUE(node.done);
  // The digest's JVM-checked order: not numeric, neither for IPs nor for pids.
  EXPECT_EQ(node.results, (std::vector<std::string>{"192.168.1.2@-@100", "192.168.1.10@-@200", "10.0.0.1@-@99", "10.0.0.1@-@5",
                                                    "10.0.0.1@-@100", "10.0.0.10@-@5"}));
}

sim::Task<void> cachedAndDirectReads(RegistryNode& node) {
  elasticjob::ZookeeperRegistryCenter& reg = node.regCenter();
  co_await reg.persist("/job/config", "v1");
  reg.addCacheData("/job");
  co_await node.sim().sleep(1s);  // the cache loads
  const std::string* cached = reg.getCachedOnly("/job/config");
  node.results.push_back(cached != nullptr ? *cached : "<none>");
  // A path the cache does not hold is read directly: the root never matches the key "/job/".
  std::optional<std::string> root = co_await reg.get("/job");
  node.results.push_back(root.value_or("<null>"));
  std::optional<std::string> missing = co_await reg.get("/job/nothing");
  node.results.push_back(missing.value_or("<null>"));
  bool exists = co_await reg.isExisted("/job/nothing");
  node.results.push_back(exists ? "exists" : "absent");
}

TEST(RegistryCenter, GetReadsTheCacheAndFallsBackToZooKeeper) {
  Cluster cluster;
  auto& node = cluster.sim.add_node<RegistryNode>("r", cluster.zookeeper(), cachedAndDirectReads);
  node.start();
  cluster.sim.run_for(10s);
  ASSERT_TRUE(node.done);
  EXPECT_EQ(node.results, (std::vector<std::string>{"v1", "", "<null>", "absent"}));
}

sim::Task<void> silentAbort(RegistryNode& node) {
  elasticjob::ZookeeperRegistryCenter& reg = node.regCenter();
  co_await reg.persist("/job/sharding/0/instance", "a@-@1");
  elasticjob::JobNodeStorage storage(reg, "job");
  std::vector<elasticjob::TransactionOperation> operations;
  operations.push_back(elasticjob::TransactionOperation::opAdd("/job/sharding/1/instance", "b@-@2"));
  operations.push_back(elasticjob::TransactionOperation::opDelete("/job/leader/sharding/necessary"));  // NONODE
  zk::MultiResult result = co_await storage.executeInTransaction(std::move(operations));  // swallowed, no throw
  node.results.push_back(std::string(zk::code_name(result.code)));
  bool written = co_await reg.isExisted("/job/sharding/1/instance");
  node.results.push_back(written ? "written" : "nothing written");
}

TEST(RegistryCenter, AFailingTransactionIsAbortedSilently) {
  Cluster cluster;
  auto& node = cluster.sim.add_node<RegistryNode>("r", cluster.zookeeper(), silentAbort);
  node.start();
  cluster.sim.run_for(10s);
  ASSERT_TRUE(node.done);
  EXPECT_EQ(node.results, (std::vector<std::string>{"NONODE", "nothing written"}));
}

sim::Task<void> connectionLoss(RegistryNode& node) {
  elasticjob::ZookeeperRegistryCenter& reg = node.regCenter();
  co_await reg.persist("/job/config", "v1");
  node.sim().network().isolate(node.id());
  // Curator notices the loss (read timeout), retries, then CONNECTIONLOSS reaches ElasticJob:
  // isExisted answers false and the children are empty, as if nothing were there.
  bool exists = co_await reg.isExisted("/job/config");
  node.results.push_back(exists ? "exists" : "absent");
  std::vector<std::string> children = co_await reg.getChildrenKeys("/job");
  node.results.push_back(std::to_string(children.size()));
}

TEST(RegistryCenter, ConnectionLossIsSwallowedIntoWrongAnswers) {
  Cluster cluster;
  // One retry, so that Curator gives up with CONNECTIONLOSS before the 6 s session is LOST (with
  // the default three, the retries outlast the session and the call throws RegException(SESSIONEXPIRED)).
  elasticjob::ZookeeperConfiguration config = cluster.zookeeper();
  config.maxRetries = 1;
  auto& node = cluster.sim.add_node<RegistryNode>("r", config, connectionLoss);
  node.start();
  cluster.sim.run_for(90s);
  ASSERT_TRUE(node.done);
  EXPECT_EQ(node.results, (std::vector<std::string>{"absent", "0"}));
}

TEST(RegExceptionHandler, IgnoresConnectionLossNoNodeAndNodeExistsOnly) {
  EXPECT_NO_THROW(elasticjob::RegExceptionHandler::handleException(zk::Code::connection_loss, "x"));
  EXPECT_NO_THROW(elasticjob::RegExceptionHandler::handleException(zk::Code::no_node, "x"));
  EXPECT_NO_THROW(elasticjob::RegExceptionHandler::handleException(zk::Code::node_exists, "x"));
  EXPECT_THROW(elasticjob::RegExceptionHandler::handleException(zk::Code::session_expired, "x"), elasticjob::RegException);
  EXPECT_THROW(elasticjob::RegExceptionHandler::handleException(zk::Code::not_empty, "x"), elasticjob::RegException);
}

// A callback that records when it runs inside executeInLeader.
class RecordingCallback final : public elasticjob::LeaderExecutionCallback {
 public:
  explicit RecordingCallback(RegistryNode& node) : node_(node) {}
  sim::Task<void> execute() override {
    node_.results.push_back("in " + sim::format_instant(node_.sim().now()));
    co_await node_.sim().sleep(1s);
    node_.results.push_back("out " + sim::format_instant(node_.sim().now()));
  }

 private:
  RegistryNode& node_;
};

sim::Task<void> mutexHolder(RegistryNode& node) {
  RecordingCallback callback(node);
  co_await node.regCenter().executeInLeader("/job/leader/election/latch", callback);
}

TEST(RegistryCenter, ExecuteInLeaderIsAMutexOverTheLatch) {
  Cluster cluster;
  auto& a = cluster.sim.add_node<RegistryNode>("a", cluster.zookeeper(), mutexHolder);
  auto& b = cluster.sim.add_node<RegistryNode>("b", cluster.zookeeper(), mutexHolder);
  a.start();
  b.start();
  cluster.sim.run_for(20s);
  ASSERT_TRUE(a.done);
  ASSERT_TRUE(b.done);
  ASSERT_EQ(a.results.size(), 2u);
  ASSERT_EQ(b.results.size(), 2u);
  // One holder after the other: the second enters after the first left, and the latch is released.
  auto at = [](const std::string& entry) { return *sim::parse_duration(entry.substr(entry.find(' ') + 1)); };
  bool aFirst = at(a.results[0]) < at(b.results[0]);
  const auto& first = aFirst ? a.results : b.results;
  const auto& second = aFirst ? b.results : a.results;
  EXPECT_GE(at(second[0]), at(first[1]));
  const zk::DataNode* latch = cluster.tree().getNode("/electsim/job/leader/election/latch");
  ASSERT_NE(latch, nullptr);
  EXPECT_TRUE(latch->children.empty());
}

TEST(JobConfiguration, YamlRoundTripAndCron) {
  elasticjob::JobConfiguration config;
  config.jobName = "order-sync";
  config.shardingTotalCount = 12;
  config.fireInterval = 5s;
  config.jobShardingStrategyType = "ODEVITY";
  std::string yaml = config.marshal();
  EXPECT_NE(yaml.find("cron: 0/5 * * * * ?\n"), std::string::npos);
  std::optional<elasticjob::JobConfiguration> parsed = elasticjob::JobConfiguration::unmarshal(yaml);
  ASSERT_TRUE(parsed.has_value());
  EXPECT_EQ(parsed->shardingTotalCount, 12);
  EXPECT_EQ(parsed->fireInterval, 5s);
  EXPECT_EQ(parsed->jobShardingStrategyType, "ODEVITY");
  EXPECT_TRUE(parsed->monitorExecution);
  EXPECT_EQ(elasticjob::JobConfiguration::cronFor(1500ms), "@every 1.5s");
  EXPECT_EQ(elasticjob::JobConfiguration::intervalFromCron("@every 1.5s"), 1500ms);
  EXPECT_FALSE(elasticjob::JobConfiguration::unmarshal("nonsense").has_value());
}

TEST(JobPaths, PredicatesOfTheListeners) {
  elasticjob::JobPaths paths("order-sync", "10.0.0.1@-@1", "10.0.0.1");
  EXPECT_TRUE(paths.isServerPath("/order-sync/servers/10.0.0.1"));
  EXPECT_TRUE(paths.isServerPath("/order-sync/servers/192.168.1.254"));
  EXPECT_FALSE(paths.isServerPath("/order-sync/servers"));
  EXPECT_FALSE(paths.isServerPath("/order-sync/servers/10.0.0.256"));
  EXPECT_FALSE(paths.isServerPath("/order-sync/servers/10.0.0.01"));
  EXPECT_TRUE(paths.isLocalServerPath("/order-sync/servers/10.0.0.1"));
  EXPECT_FALSE(paths.isLocalServerPath("/order-sync/servers/10.0.0.12"));
  EXPECT_TRUE(paths.isInstancePath("/order-sync/instances"));  // startsWith: the parent matches too
  EXPECT_TRUE(paths.isInstancePath("/order-sync/instances/10.0.0.2@-@2"));
  EXPECT_TRUE(paths.isLocalInstancePath("/order-sync/instances/10.0.0.1@-@1"));
  EXPECT_TRUE(paths.isLeaderInstancePath("/order-sync/leader/election/instance"));
  EXPECT_TRUE(paths.isConfigPath("/order-sync/config"));
}

}  // namespace
}  // namespace elasticjob_test
