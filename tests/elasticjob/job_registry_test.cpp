// JobRegistry (3.0.4): a job counts as shut down until both its schedule controller and its instance
// are registered, and again once shutdown(job) has taken them out; shutdown drops the running flag
// and the sharding count with them, and the job can be registered anew afterwards.
#include <gtest/gtest.h>

#include "model/elasticjob/JobRegistry.h"
#include "model/elasticjob/JobScheduleController.h"
#include "tests/support/idle_node.h"

namespace elasticjob_test {
namespace {

using namespace std::chrono_literals;

using Process = test_support::IdleNode;

class CountingJob final : public elasticjob::QuartzJob {
 public:
  int pluginShutdowns = 0;
  sim::Task<void> execute(sim::Instant) override { co_return; }
  sim::Task<void> triggerMisfired(bool) override { co_return; }
  sim::Task<void> pluginShutdown() override {
    pluginShutdowns++;
    co_return;
  }
};

struct Fixture {
  sim::Simulation sim{1};
  Process& process = sim.add_node<Process>("p");
  elasticjob::ListenerNotifierManager notifiers{process};
  elasticjob::JobRegistry registry{notifiers};
  CountingJob job;
  elasticjob::JobScheduleController controller{process, "J", job};
  Fixture() { process.start(); }

  void shutdown(const std::string& jobName) {
    sim.schedule_callback(sim.now(), process.id(), [this, jobName] { process.spawn(registry.shutdown(jobName)); });
    sim.run_for(1s);
  }
};

TEST(JobRegistry, AJobIsShutDownUntilItsControllerAndItsInstanceAreBothRegistered) {
  Fixture f;
  EXPECT_TRUE(f.registry.isShutdown("J"));
  f.registry.registerJob("J", f.controller);
  EXPECT_TRUE(f.registry.isShutdown("J"));  // no instance yet
  EXPECT_EQ(f.registry.getJobScheduleController("J"), &f.controller);
  f.registry.addJobInstance("J", elasticjob::JobInstance("i1"));
  EXPECT_FALSE(f.registry.isShutdown("J"));
  ASSERT_NE(f.registry.getJobInstance("J"), nullptr);
  EXPECT_EQ(f.registry.getJobInstance("J")->jobInstanceId, "i1");
  EXPECT_TRUE(f.registry.isShutdown("K"));  // another job
  EXPECT_EQ(f.registry.getJobInstance("K"), nullptr);
}

TEST(JobRegistry, ShutdownTakesEverythingOfTheJobOutAndTheJobCanBeRegisteredAgain) {
  Fixture f;
  f.registry.registerJob("J", f.controller);
  f.registry.addJobInstance("J", elasticjob::JobInstance("i1"));
  f.registry.setJobRunning("J", true);
  f.registry.setCurrentShardingTotalCount("J", 7);
  f.registry.registerJob("K", f.controller);
  f.registry.addJobInstance("K", elasticjob::JobInstance("i1"));
  EXPECT_TRUE(f.registry.isJobRunning("J"));
  EXPECT_EQ(f.registry.getCurrentShardingTotalCount("J"), 7);

  f.shutdown("J");
  EXPECT_EQ(f.job.pluginShutdowns, 1);  // Quartz's shutdown runs the plugin
  EXPECT_TRUE(f.registry.isShutdown("J"));
  EXPECT_EQ(f.registry.getJobScheduleController("J"), nullptr);
  EXPECT_EQ(f.registry.getJobInstance("J"), nullptr);
  EXPECT_FALSE(f.registry.isJobRunning("J"));
  EXPECT_EQ(f.registry.getCurrentShardingTotalCount("J"), 0);
  EXPECT_FALSE(f.registry.isShutdown("K"));  // untouched

  f.shutdown("J");  // again: nothing left to shut down
  EXPECT_EQ(f.job.pluginShutdowns, 1);
  f.shutdown("never-registered");

  f.registry.registerJob("J", f.controller);
  f.registry.addJobInstance("J", elasticjob::JobInstance("i2"));
  EXPECT_FALSE(f.registry.isShutdown("J"));
  EXPECT_EQ(f.registry.getJobInstance("J")->jobInstanceId, "i2");
  EXPECT_FALSE(f.registry.isJobRunning("J"));  // the old flag did not come back
}

// A job's services keep its entry (JobEnvironment::isShutdown): taken before anything is
// registered, it answers as the name does through registration, other jobs' entries, shutdown and
// registration anew.
TEST(JobRegistry, AJobsEntryTakenEarlyAnswersAsItsNameDoesThroughoutItsLife) {
  Fixture f;
  const elasticjob::JobRegistry::Job& entry = f.registry.entry("J");
  auto agrees = [&] { return elasticjob::JobRegistry::isShutdown(entry) == f.registry.isShutdown("J"); };
  EXPECT_TRUE(elasticjob::JobRegistry::isShutdown(entry));
  EXPECT_TRUE(f.registry.isShutdown("J"));  // an empty entry reads as no entry
  f.registry.registerJob("J", f.controller);
  EXPECT_TRUE(elasticjob::JobRegistry::isShutdown(entry));
  for (int job = 0; job < 100; job++) f.registry.registerJob("other-" + std::to_string(job), f.controller);  // rehashes
  f.registry.addJobInstance("J", elasticjob::JobInstance("i1"));
  EXPECT_FALSE(elasticjob::JobRegistry::isShutdown(entry));
  EXPECT_TRUE(agrees());
  f.shutdown("J");
  EXPECT_TRUE(elasticjob::JobRegistry::isShutdown(entry));
  EXPECT_TRUE(agrees());
  f.registry.registerJob("J", f.controller);
  f.registry.addJobInstance("J", elasticjob::JobInstance("i2"));
  EXPECT_FALSE(elasticjob::JobRegistry::isShutdown(entry));
  EXPECT_EQ(&f.registry.entry("J"), &entry);
}

}  // namespace
}  // namespace elasticjob_test
