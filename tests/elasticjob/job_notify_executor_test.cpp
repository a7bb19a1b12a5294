// JobNotifyExecutor, the job's ListenerNotify thread: a queued notification holds the cache's shared
// copy of the node and becomes a DataChangedEvent (the path without the namespace) only when it runs,
// as Curator runs the registry centre's whole cache listener on the executor.
#include <gtest/gtest.h>

#include "model/elasticjob/ListenerNotifierManager.h"
#include "tests/support/idle_node.h"

namespace elasticjob_test {
namespace {

using namespace std::chrono_literals;

using Process = test_support::IdleNode;

class Recorder final : public elasticjob::DataChangedEventListener {
 public:
  explicit Recorder(sim::Simulation& sim) : sim_(sim) {}
  std::vector<std::string> seen;
  sim::Eager<void> onChange(const elasticjob::DataChangedEvent& event) override {
    seen.push_back(std::string(elasticjob::dataChangedEventTypeName(event.type)) + " " + std::string(event.key) + " " + std::string(event.value));
    return slowly();  // holds the thread, as a listener's ZooKeeper call does
  }
  std::string_view name() const override { return "Recorder"; }

 private:
  sim::Task<void> slowly() { co_await sim_.sleep(10ms); }
  sim::Simulation& sim_;
};

curator::SharedChildData node(const std::string& path, const std::string& data, std::int32_t version) {
  zk::Stat stat;
  stat.version = version;
  return curator::SharedChildData::intern(curator::ChildData{path, stat, data});
}

TEST(JobNotifyExecutor, AQueuedNotificationHoldsTheNodeAndIsMadeIntoAnEventWhenItRuns) {
  sim::Simulation sim(1);
  Process& process = sim.add_node<Process>("p");
  process.start();
  elasticjob::JobNotifyExecutor executor(process, "J");
  executor.start();
  Recorder first(sim);
  Recorder second(sim);
  const std::size_t pooled = curator::SharedChildData::pooled();
  sim.schedule_callback(sim.now(), process.id(), [&] {
    // What ZookeeperRegistryCenter.watch's listeners queue for one change: the same copy, once per
    // listener. The cache's own reference is dropped at once (the node was deleted, say).
    curator::SharedChildData changed = node("/ns/J/sharding/0/instance", "i1", 3);
    executor.execute(first, elasticjob::DataChangedEvent::Type::UPDATED, changed, 3);
    executor.execute(second, elasticjob::DataChangedEvent::Type::UPDATED, changed, 3);
    executor.execute(first, elasticjob::DataChangedEvent::Type::ADDED, node("/ns", "", 0), 3);
  });
  sim.run_for(1ms);
  EXPECT_EQ(executor.pending(), 2u);  // the first is running
  EXPECT_EQ(curator::SharedChildData::pooled(), pooled + 2);
  sim.run_for(1s);
  EXPECT_EQ(first.seen, (std::vector<std::string>{"UPDATED /J/sharding/0/instance i1", "ADDED / "}));
  EXPECT_EQ(second.seen, (std::vector<std::string>{"UPDATED /J/sharding/0/instance i1"}));
  EXPECT_EQ(executor.pending(), 0u);
  EXPECT_EQ(curator::SharedChildData::pooled(), pooled);  // released once run
  executor.shutdown();
}

}  // namespace
}  // namespace elasticjob_test
