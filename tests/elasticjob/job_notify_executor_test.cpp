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

// Records every call, across listeners, in one log.
class Logger final : public elasticjob::DataChangedEventListener {
 public:
  Logger(std::string name, std::vector<std::string>& log) : name_(std::move(name)), log_(log) {}
  sim::Eager<void> onChange(const elasticjob::DataChangedEvent& event) override {
    log_.push_back(name_ + " " + std::string(elasticjob::dataChangedEventTypeName(event.type)) + " " + std::string(event.key));
    return sim::Eager<void>::done();
  }
  std::string_view name() const override { return name_; }

 private:
  std::string name_;
  std::vector<std::string>& log_;
};

TEST(JobNotifyExecutor, ConsecutiveNotificationsOfOneChangeShareAnEntryAndRunInOrder) {
  // One change queues a notification for each listener in turn: one entry holds the run, and the
  // listeners are called one by one in the order they were queued, as separate tasks would be.
  sim::Simulation sim(1);
  Process& process = sim.add_node<Process>("p");
  process.start();
  elasticjob::JobNotifyExecutor executor(process, "J");
  std::vector<std::string> log;
  Logger a("a", log), b("b", log), c("c", log);
  using Type = elasticjob::DataChangedEvent::Type;
  curator::SharedChildData first = node("/ns/J/servers/ip", "", 1);
  curator::SharedChildData second = node("/ns/J/instances/x", "", 1);
  executor.execute(a, Type::UPDATED, first, 3);
  executor.execute(b, Type::UPDATED, first, 3);
  executor.execute(c, Type::UPDATED, first, 3);
  EXPECT_EQ(executor.entries(), 1u);
  executor.execute(a, Type::ADDED, second, 3);  // another change: an entry of its own
  executor.execute(c, Type::ADDED, second, 3);  // not the next listener after a: its own entry
  executor.execute(b, Type::UPDATED, first, 3);  // the first change again, after others
  executor.execute(a, Type::DELETED, second, 3);
  executor.execute(b, Type::UPDATED, second, 3);  // the next listener, the same node, another type
  EXPECT_EQ(executor.entries(), 6u);
  EXPECT_EQ(executor.pending(), 8u);
  executor.start();
  sim.run_for(1s);
  EXPECT_EQ(log, (std::vector<std::string>{"a UPDATED /J/servers/ip", "b UPDATED /J/servers/ip", "c UPDATED /J/servers/ip",
                                          "a ADDED /J/instances/x", "c ADDED /J/instances/x", "b UPDATED /J/servers/ip",
                                          "a DELETED /J/instances/x", "b UPDATED /J/instances/x"}));
  EXPECT_EQ(executor.pending(), 0u);
  EXPECT_EQ(executor.entries(), 0u);
  executor.shutdown();
}

}  // namespace
}  // namespace elasticjob_test
