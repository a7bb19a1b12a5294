#include "model/elasticjob/ExecutionContextService.h"

#include <algorithm>

namespace elasticjob {

sim::Task<ShardingContexts> ExecutionContextService::getJobShardingContext(std::vector<int> shardingItems) {
  JobConfiguration jobConfig = co_await configService_.load(false);
  if (jobConfig.monitorExecution) {
    // removeRunningIfMonitorExecution
    std::vector<int> runningShardingItems;
    for (int each : shardingItems) {
      bool running = co_await env_.storage.isJobNodeExisted(ShardingNode::getRunningNode(each));
      if (running) runningShardingItems.push_back(each);
    }
    std::erase_if(shardingItems, [&](int item) {
      return std::find(runningShardingItems.begin(), runningShardingItems.end(), item) != runningShardingItems.end();
    });
  }
  std::sort(shardingItems.begin(), shardingItems.end());  // a HashMap's keys of small ints iterate in order
  ShardingContexts result;
  result.jobName = jobConfig.jobName;
  result.shardingTotalCount = jobConfig.shardingTotalCount;
  std::string itemsText;
  for (int item : shardingItems) itemsText += (itemsText.empty() ? "" : ",") + std::to_string(item);
  // buildTaskId: 3.0.4 checks the registry entry here (null == jobInstance || ...), unlike the
  // unchecked reads that throw (JobEnvironment::requireLocalInstance).
  std::string id = env_.localInstanceId();
  result.taskId = jobConfig.jobName + "@-@" + itemsText + "@-@READY@-@" + (id.empty() ? std::string("127.0.0.1@-@1") : id);
  result.items = std::move(shardingItems);
  co_return result;
}

}  // namespace elasticjob
