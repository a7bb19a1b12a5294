// RegistryCenterConnectionStateListener (3.0.4):
//   UNAVAILABLE (SUSPENDED or LOST) -> pauseJob(): Quartz stops firing; an execution in progress
//                                      carries on (#114, #507, #1549)
//   RECONNECTED -> persistOnline(isEnableServer(localIp)) (an UPDATED servers event everywhere),
//                  instanceService.persistOnline() (the ephemeral instance node again),
//                  clearRunningInfo(getLocalShardingItems()), resumeJob() (Quartz's misfire rule)
// No re-election on reconnect: leadership comes back through the events these writes cause.
#pragma once

#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/ExecutionService.h"
#include "model/elasticjob/InstanceService.h"
#include "model/elasticjob/ServerService.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

class RegistryCenterConnectionStateListener final : public ConnectionStateChangedEventListener {
 public:
  RegistryCenterConnectionStateListener(JobEnvironment& env, ServerService& serverService, InstanceService& instanceService,
                                        ShardingService& shardingService, ExecutionService& executionService)
      : env_(env),
        serverService_(serverService),
        instanceService_(instanceService),
        shardingService_(shardingService),
        executionService_(executionService) {}
  sim::Task<void> onStateChanged(RegistryCenterState newState) override;

 private:
  JobEnvironment& env_;
  ServerService& serverService_;
  InstanceService& instanceService_;
  ShardingService& shardingService_;
  ExecutionService& executionService_;
};

}  // namespace elasticjob
