// One of each ElasticJob service for one job, wired together (Java builds them from (regCenter,
// jobName) wherever needed; their state is all in ZooKeeper and the JobRegistry, so one instance of
// each per job is equivalent).
#pragma once

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/ElasticJobExecutor.h"
#include "model/elasticjob/ExecutionContextService.h"
#include "model/elasticjob/ExecutionService.h"
#include "model/elasticjob/InstanceService.h"
#include "model/elasticjob/LeaderService.h"
#include "model/elasticjob/LiteJobFacade.h"
#include "model/elasticjob/ReconcileService.h"
#include "model/elasticjob/SchedulerFacade.h"
#include "model/elasticjob/ServerService.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

struct JobServices {
  JobServices(JobEnvironment& env, std::string localInstanceId)
      : configService(env),
        serverService(env),
        instanceService(env, serverService),
        leaderService(env, serverService, std::move(localInstanceId)),
        executionService(env, configService),
        shardingService(env, leaderService, configService, instanceService, serverService, executionService),
        executionContextService(env, configService),
        reconcileService(env, configService, leaderService, shardingService),
        schedulerFacade(env, leaderService, shardingService, executionService),
        jobFacade(configService, shardingService, executionContextService, executionService) {}

  ConfigurationService configService;
  ServerService serverService;
  InstanceService instanceService;
  LeaderService leaderService;
  ExecutionService executionService;
  ShardingService shardingService;
  ExecutionContextService executionContextService;
  ReconcileService reconcileService;
  SchedulerFacade schedulerFacade;
  LiteJobFacade jobFacade;
};

}  // namespace elasticjob
