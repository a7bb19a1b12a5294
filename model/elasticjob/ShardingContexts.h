// ShardingContexts (elasticjob-api): what one execution runs. The item parameters map of the Java
// class is reduced to its keys: the model's jobs have no parameters.
#pragma once

#include <string>
#include <vector>

namespace elasticjob {

struct ShardingContexts {
  ShardingContexts() = default;
  std::string taskId;  // jobName@-@items@-@READY@-@jobInstanceId
  std::string jobName;
  int shardingTotalCount = 0;
  std::vector<int> items;  // getShardingItemParameters().keySet(), ascending
};

}  // namespace elasticjob
