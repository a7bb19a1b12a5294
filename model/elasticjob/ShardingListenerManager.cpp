#include "model/elasticjob/ShardingListenerManager.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

sim::Task<void> ShardingTotalCountChangedJobListener::onChange(DataChangedEvent event) {
  if (!paths_.isConfigPath(event.key)) co_return;
  int current = env_.registry.getCurrentShardingTotalCount(env_.jobName());
  if (current == 0) co_return;
  std::optional<JobConfiguration> config = JobConfiguration::unmarshal(event.value);
  if (!config) throw JobConfigurationException("unreadable configuration in a config event of " + env_.jobName());
  int newShardingTotalCount = config->shardingTotalCount;
  if (newShardingTotalCount == current) co_return;
  co_await shardingService_.setReshardingFlag();
  // The job may have been shut down while the flag call blocked; Java puts into the map regardless.
  env_.registry.setCurrentShardingTotalCount(env_.jobName(), newShardingTotalCount);
}

sim::Task<void> ListenServersChangedJobListener::onChange(DataChangedEvent event) {
  if (env_.registry.isShutdown(env_.jobName())) co_return;
  bool isInstanceChange = paths_.isInstancePath(event.key) && event.type != DataChangedEvent::Type::UPDATED;
  bool isServerChange = paths_.isServerPath(event.key);
  if (!isInstanceChange && !isServerChange) co_return;
  JobConfiguration config = co_await configService_.load(true);  // isStaticSharding()
  if (config.staticSharding) {
    std::vector<std::string> sharding = co_await env_.storage.getJobNodeChildrenKeys(std::string(ShardingNode::ROOT));
    if (!sharding.empty()) co_return;  // hasShardingInfo()
  }
  co_await shardingService_.setReshardingFlag();
}

}  // namespace elasticjob
