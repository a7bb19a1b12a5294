#include "model/elasticjob/ShardingListenerManager.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

sim::Eager<void> ShardingTotalCountChangedJobListener::onChange(const DataChangedEvent& event) {
  if (!paths_.isConfigPath(event.key)) return sim::Eager<void>::done();
  int current = env_.registry.getCurrentShardingTotalCount(env_.jobName());
  if (current == 0) return sim::Eager<void>::done();
  std::optional<JobConfiguration> config = JobConfiguration::unmarshal(event.value);
  if (!config) throw JobConfigurationException("unreadable configuration in a config event of " + env_.jobName());
  int newShardingTotalCount = config->shardingTotalCount;
  if (newShardingTotalCount == current) return sim::Eager<void>::done();
  return setReshardingFlag(newShardingTotalCount);
}

sim::Task<void> ShardingTotalCountChangedJobListener::setReshardingFlag(int newShardingTotalCount) {
  co_await shardingService_.setReshardingFlag();
  // The job may have been shut down while the flag call blocked; Java puts into the map regardless.
  env_.registry.setCurrentShardingTotalCount(env_.jobName(), newShardingTotalCount);
}

sim::Eager<void> ListenServersChangedJobListener::onChange(const DataChangedEvent& event) {
  if (env_.isShutdown()) return sim::Eager<void>::done();
  bool isInstanceChange = paths_.isInstancePath(event.key) && event.type != DataChangedEvent::Type::UPDATED;
  bool isServerChange = paths_.isServerPath(event.key);
  if (!isInstanceChange && !isServerChange) return sim::Eager<void>::done();
  return setReshardingFlagUnlessStatic();
}

sim::Task<void> ListenServersChangedJobListener::setReshardingFlagUnlessStatic() {
  JobConfiguration config = co_await configService_.load(true);  // isStaticSharding()
  if (config.staticSharding) {
    std::vector<std::string> sharding = co_await env_.storage.getJobNodeChildrenKeys(std::string(ShardingNode::ROOT));
    if (!sharding.empty()) co_return;  // hasShardingInfo()
  }
  co_await shardingService_.setReshardingFlag();
}

}  // namespace elasticjob
