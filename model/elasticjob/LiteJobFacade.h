// LiteJobFacade (3.0.4): what the executor asks of ElasticJob at each execution.
//
//   getShardingContexts(): shardingIfNecessary() (may block: a leader waits for running items, the
//   others for the leader's sharding), then getLocalShardingItems() through the cache, minus the
//   disabled items, then getJobShardingContext (minus the items whose running node exists).
//   Failover is off in the model, so its branches are left out.
#pragma once

#include <vector>

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/ExecutionContextService.h"
#include "model/elasticjob/ExecutionService.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

class LiteJobFacade {
 public:
  LiteJobFacade(ConfigurationService& configService, ShardingService& shardingService, ExecutionContextService& executionContextService,
                ExecutionService& executionService)
      : configService_(configService),
        shardingService_(shardingService),
        executionContextService_(executionContextService),
        executionService_(executionService) {}

  sim::Task<JobConfiguration> loadJobConfiguration(bool fromCache) { return configService_.load(fromCache); }
  sim::Task<void> checkJobExecutionEnvironment() { return configService_.checkMaxTimeDiffSecondsTolerable(); }
  sim::Task<ShardingContexts> getShardingContexts();
  sim::Task<bool> misfireIfRunning(std::vector<int> shardingItems) { return executionService_.misfireIfHasRunningItems(std::move(shardingItems)); }
  sim::Task<void> clearMisfire(std::vector<int> shardingItems) { return executionService_.clearMisfire(std::move(shardingItems)); }
  // misfire && !isNeedSharding() && some misfire node exists among the items.
  sim::Task<bool> isExecuteMisfired(std::vector<int> shardingItems);
  sim::Task<void> registerJobBegin(ShardingContexts shardingContexts) { return executionService_.registerJobBegin(std::move(shardingContexts)); }
  sim::Task<void> registerJobCompleted(ShardingContexts shardingContexts) {
    return executionService_.registerJobCompleted(std::move(shardingContexts));
  }

 private:
  ConfigurationService& configService_;
  ShardingService& shardingService_;
  ExecutionContextService& executionContextService_;
  ExecutionService& executionService_;
};

}  // namespace elasticjob
