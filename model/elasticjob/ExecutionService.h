// ExecutionService (3.0.4): the running and misfire marks of items.
//
// With monitorExecution (the default), registerJobBegin writes sharding/{item}/running = localId as
// an EPHEMERAL node (failover off), unconditionally (a second instance simply overwrites it), and
// registerJobCompleted deletes it, whoever wrote it. It is not a lock: the only guard it gives is
// hasRunningItems(), an existence check, and the node vanishes with its writer's session.
#pragma once

#include <vector>

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/JobEnvironment.h"
#include "model/elasticjob/ShardingContexts.h"

namespace elasticjob {

class ExecutionService {
 public:
  ExecutionService(JobEnvironment& env, ConfigurationService& configService) : env_(env), configService_(configService) {}

  sim::Task<void> registerJobBegin(ShardingContexts shardingContexts);
  sim::Task<void> registerJobCompleted(ShardingContexts shardingContexts);
  sim::Task<void> clearAllRunningInfo();
  sim::Task<void> clearRunningInfo(std::vector<int> items);
  sim::Task<bool> hasRunningItems(std::vector<int> items);
  // Over every item 0..shardingTotalCount-1 of the cached configuration.
  sim::Task<bool> hasRunningItems();
  sim::Task<bool> misfireIfHasRunningItems(std::vector<int> items);
  sim::Task<void> setMisfire(std::vector<int> items);
  sim::Task<std::vector<int>> getMisfiredJobItems(std::vector<int> items);
  sim::Task<void> clearMisfire(std::vector<int> items);
  sim::Task<std::vector<int>> getDisabledItems(std::vector<int> items);

 private:
  sim::Task<std::vector<int>> getAllItems();
  JobEnvironment& env_;
  ConfigurationService& configService_;
};

}  // namespace elasticjob
