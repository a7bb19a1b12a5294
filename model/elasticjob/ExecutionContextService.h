// ExecutionContextService (3.0.4): turns the items an instance believes it owns into the execution's
// ShardingContexts. The configuration is read directly, and with monitorExecution every item whose
// running node exists (a direct check, whoever wrote it) is dropped.
#pragma once

#include <vector>

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/JobEnvironment.h"
#include "model/elasticjob/ShardingContexts.h"

namespace elasticjob {

class ExecutionContextService {
 public:
  ExecutionContextService(JobEnvironment& env, ConfigurationService& configService) : env_(env), configService_(configService) {}

  sim::Task<ShardingContexts> getJobShardingContext(std::vector<int> shardingItems);

 private:
  JobEnvironment& env_;
  ConfigurationService& configService_;
};

}  // namespace elasticjob
