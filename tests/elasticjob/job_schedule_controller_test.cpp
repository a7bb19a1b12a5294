// JobScheduleController over Quartz 2.3.2's RAMJobStore: pauseJob is scheduler.pauseAll(), which
// pauses the trigger groups that exist. Before scheduleJob there is none, so a pause then (a
// connection lost while the instance is still starting) pauses nothing and the job fires once
// scheduled; after it, fires stop until resumeJob.
#include <gtest/gtest.h>

#include "model/elasticjob/JobScheduleController.h"
#include "tests/support/idle_node.h"

namespace elasticjob_test {
namespace {

using namespace std::chrono_literals;

class CountingJob final : public elasticjob::QuartzJob {
 public:
  std::vector<sim::Instant> fires;
  sim::Task<void> execute(sim::Instant fireTime) override {
    fires.push_back(fireTime);
    co_return;
  }
  sim::Task<void> triggerMisfired(bool) override { co_return; }
  sim::Task<void> pluginShutdown() override { co_return; }
};

struct Fixture {
  sim::Simulation sim{1};
  test_support::IdleNode& process = sim.add_node<test_support::IdleNode>("p");
  CountingJob job;
  elasticjob::JobScheduleController controller{process, "J", job};
  Fixture() { process.start(); }
  // Runs `action` as the process, now.
  void as_process(std::function<void()> action) {
    sim.schedule_callback(sim.now(), process.id(), std::move(action));
    sim.run_for(0ms);
  }
};

TEST(JobScheduleController, APauseBeforeTheJobIsScheduledPausesNothing) {
  Fixture f;
  f.as_process([&f] { f.controller.pauseJob(); });
  EXPECT_FALSE(f.controller.isPaused());  // getTriggerState of a trigger not stored: NONE
  f.as_process([&f] { f.controller.scheduleJob(5s); });
  EXPECT_FALSE(f.controller.isPaused());
  f.sim.run_for(12s);
  // Fires at 0, 5 and 10 s (the first fire time is the one after start - 1 s).
  EXPECT_EQ(f.job.fires.size(), 3u);
}

TEST(JobScheduleController, APauseAfterSchedulingStopsTheFiresUntilResumed) {
  Fixture f;
  f.as_process([&f] { f.controller.scheduleJob(5s); });
  f.sim.run_for(1s);
  EXPECT_EQ(f.job.fires.size(), 1u);
  f.as_process([&f] { f.controller.pauseJob(); });
  EXPECT_TRUE(f.controller.isPaused());
  f.sim.run_for(10s);
  EXPECT_EQ(f.job.fires.size(), 1u);
  f.as_process([&f] { f.process.spawn(f.controller.resumeJob()); });
  EXPECT_FALSE(f.controller.isPaused());
  f.sim.run_for(10s);
  EXPECT_GE(f.job.fires.size(), 2u);
}

}  // namespace
}  // namespace elasticjob_test
