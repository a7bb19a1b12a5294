// SchedulerFacade (3.0.4): shutdownInstance() (if leader, remove the leader node; then
// JobRegistry.shutdown) and the JobTriggerListener it creates (triggerMisfired: when the trigger
// has fired before, mark the local items misfired so the next execution re-runs them).
#pragma once

#include "model/elasticjob/ExecutionService.h"
#include "model/elasticjob/LeaderService.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

class SchedulerFacade {
 public:
  SchedulerFacade(JobEnvironment& env, LeaderService& leaderService, ShardingService& shardingService, ExecutionService& executionService)
      : env_(env), leaderService_(leaderService), shardingService_(shardingService), executionService_(executionService) {}

  sim::Task<void> shutdownInstance();
  // JobTriggerListener.triggerMisfired.
  sim::Task<void> triggerMisfired(bool hasPreviousFireTime);

 private:
  JobEnvironment& env_;
  LeaderService& leaderService_;
  ShardingService& shardingService_;
  ExecutionService& executionService_;
};

}  // namespace elasticjob
