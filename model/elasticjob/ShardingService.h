// ShardingService (3.0.4, source 000's 分片): the resharding flag and the sharding itself.
//
//   setReshardingFlag()     if (!leaderService.isLeaderUntilBlock()) return; (PR #1472: leader only)
//                           createJobNodeIfNeeded(leader/sharding/necessary)
//   shardingIfNecessary()   run by EVERY instance at EVERY execution:
//     1. available = instanceService.getAvailableJobInstances()   (before any check)
//     2. if (!isNeedSharding() || available.isEmpty()) return
//     3. if (!leaderService.isLeaderUntilBlock()) { blockUntilShardingCompleted(); return }
//     4. waitingOtherShardingItemCompleted()      (every running node gone; no timeout)
//     5. configuration read directly; fillEphemeralJobNode(leader/sharding/processing, "")
//     6. resetShardingInfo(n): each sharding/i/instance removed, sharding/i created; extra
//        sharding/i (counted by children) removed
//     7. ONE transaction: [check "/"] + create sharding/i/instance = owner for every (instance, items)
//        of strategy.sharding(available, job, n) in map order + delete necessary + delete processing.
//        A NODEEXISTS or NONODE aborts it silently (RegExceptionHandler): every owner was already
//        deleted in step 6, so no item has an owner.
//   blockUntilShardingCompleted(): while (!isLeaderUntilBlock() && (necessary || processing)) sleep 100 ms
//   getShardingItems(id): the items whose sharding/i/instance (through the CACHE) is id, if the
//     instance's server is available; n from the cached configuration.
//
// Bug switch ej-any-node-sets-resharding-flag: setReshardingFlag without the leader check (before
// #1472, issue #1471).
//
// Trace: job.resharding_flag when this instance created the flag; job.sharding when the transaction
// committed (assignment, total, zxid, session); job.sharding_aborted when it failed silently;
// job.sharding_failed when the strategy threw.
#pragma once

#include <vector>

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/ExecutionService.h"
#include "model/elasticjob/InstanceService.h"
#include "model/elasticjob/LeaderService.h"
#include "model/elasticjob/ServerService.h"
#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class ShardingService {
 public:
  ShardingService(JobEnvironment& env, LeaderService& leaderService, ConfigurationService& configService, InstanceService& instanceService,
                  ServerService& serverService, ExecutionService& executionService)
      : env_(env),
        leaderService_(leaderService),
        configService_(configService),
        instanceService_(instanceService),
        serverService_(serverService),
        executionService_(executionService) {}

  sim::Task<void> setReshardingFlag();
  sim::Task<bool> isNeedSharding();
  sim::Task<void> shardingIfNecessary();
  sim::Task<std::vector<int>> getShardingItems(std::string jobInstanceId);
  sim::Task<std::vector<int>> getLocalShardingItems();
  sim::Task<bool> hasShardingInfoInOfflineServers();

  // JobShardingStrategyFactory.getStrategy(type): "" is AVG_ALLOCATION; also accepts electsim's names.
  static const JobShardingStrategy* getStrategy(const std::string& type);
  // "10.0.0.3@-@3:[0,1,6];10.0.0.2@-@2:[2,3,7]" in the strategy's order.
  static std::string describe(const ShardingResult& result);

 private:
  sim::Task<void> blockUntilShardingCompleted();
  sim::Task<void> waitingOtherShardingItemCompleted();
  sim::Task<void> resetShardingInfo(int shardingTotalCount);
  sim::Task<ShardingResult> previousAssignment(int shardingTotalCount);

  JobEnvironment& env_;
  LeaderService& leaderService_;
  ConfigurationService& configService_;
  InstanceService& instanceService_;
  ServerService& serverService_;
  ExecutionService& executionService_;
};

}  // namespace elasticjob
