// JobScheduler (3.0.4) with ScheduleJobBootstrap.schedule(): one job on one instance. It owns the
// job's services, listeners, executor and Quartz controller, and is the QuartzJob the controller
// calls back (LiteJob.execute, JobTriggerListener, JobShutdownHookPlugin).
//
//   init()        the constructor's work: setUpJobConfiguration (config and root node), the
//                 controller registered (JobRegistry.registerJob), then registerStartUpInfo:
//                 registerRegistryCenter (the cache starts), addJobInstance,
//                 setCurrentShardingTotalCount, SetUpFacade.registerStartUpInfo(!disabled)
//   schedule()    the cron trigger, scheduler started
//   shutdown()    the JobScheduler.shutdown() API: tearDown, shutdownInstance, executor shutdown
//   shutdownHook() the JVM shutdown hook the plugin registers: Quartz shutdown(cleanShutdown = true),
//                 which waits for the running execution, then the plugin: if isLeader()
//                 removeLeader(); removeInstance(): the leader node goes first, then the instance
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/elasticjob/JobScheduleController.h"
#include "model/elasticjob/JobServices.h"
#include "model/elasticjob/ListenerManager.h"
#include "model/elasticjob/SetUpFacade.h"

namespace elasticjob {

// A job as the application declares it.
struct JobSettings {
  JobSettings() = default;
  JobConfiguration config;
  ExecutionTime executionTime;
  std::string jobClassName = "electsim.SimulatedJob";
};

class JobScheduler final : public QuartzJob {
 public:
  JobScheduler(sim::Node& node, ZookeeperRegistryCenter& regCenter, JobRegistry& registry, JobSettings settings, std::string jobInstanceId,
               ElasticJobBugs bugs, sim::Rng& random);
  ~JobScheduler() override;
  JobScheduler(const JobScheduler&) = delete;
  JobScheduler& operator=(const JobScheduler&) = delete;

  sim::Task<void> init();
  void schedule();
  sim::Task<void> shutdown();
  sim::Task<void> shutdownHook();

  sim::Task<void> execute(sim::Instant fireTime) override;
  sim::Task<void> triggerMisfired(bool hasPreviousFireTime) override;
  sim::Task<void> pluginShutdown() override;

  const std::string& jobName() const { return settings_.config.jobName; }
  const JobConfiguration& jobConfig() const { return jobConfig_; }
  JobServices& services() { return services_; }
  JobScheduleController& controller() { return controller_; }
  bool believesLeader() const { return services_.leaderService.believesLeader(); }
  bool initialized() const { return initialized_; }

 private:
  void installLeaderBeliefListener();

  sim::Node& node_;
  ZookeeperRegistryCenter& regCenter_;
  JobRegistry& registry_;
  JobSettings settings_;
  std::string jobInstanceId_;
  sim::Rng& random_;
  JobConfiguration jobConfig_;
  JobNodeStorage storage_;
  JobEnvironment env_;
  JobPaths paths_;
  JobServices services_;
  ElasticJobExecutor jobExecutor_;
  ListenerManager listenerManager_;
  SetUpFacade setUpFacade_;
  JobScheduleController controller_;
  std::optional<std::uint64_t> beliefListener_;
  bool initialized_ = false;
};

}  // namespace elasticjob
