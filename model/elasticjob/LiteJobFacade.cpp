#include "model/elasticjob/LiteJobFacade.h"

#include <algorithm>

namespace elasticjob {

sim::Task<ShardingContexts> LiteJobFacade::getShardingContexts() {
  JobConfiguration config = co_await configService_.load(true);
  ELECTSIM_ASSERT(!config.failover);  // failover is not modelled
  co_await shardingService_.shardingIfNecessary();
  std::vector<int> shardingItems = co_await shardingService_.getLocalShardingItems();
  std::vector<int> disabled = co_await executionService_.getDisabledItems(shardingItems);
  std::erase_if(shardingItems, [&](int item) { return std::find(disabled.begin(), disabled.end(), item) != disabled.end(); });
  co_return co_await executionContextService_.getJobShardingContext(std::move(shardingItems));
}

sim::Task<bool> LiteJobFacade::isExecuteMisfired(std::vector<int> shardingItems) {
  JobConfiguration config = co_await configService_.load(true);
  if (!config.misfire) co_return false;
  bool needSharding = co_await shardingService_.isNeedSharding();
  if (needSharding) co_return false;
  std::vector<int> misfired = co_await executionService_.getMisfiredJobItems(std::move(shardingItems));
  co_return !misfired.empty();
}

}  // namespace elasticjob
