#include "model/elasticjob/ShardingService.h"

#include <algorithm>

#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/JobSites.h"

namespace elasticjob {

const JobShardingStrategy* ShardingService::getStrategy(const std::string& type) {
  if (const JobShardingStrategy* byType = findStrategyByJavaType(type)) return byType;
  return findStrategy(type);
}

std::string ShardingService::describe(const ShardingResult& result) {
  std::string text;
  for (const InstanceItems& entry : result) {
    if (!text.empty()) text += ";";
    text += entry.instance.jobInstanceId + ":[";
    for (std::size_t i = 0; i < entry.items.size(); i++) text += (i == 0 ? "" : ",") + std::to_string(entry.items[i]);
    text += "]";
  }
  return text;
}

sim::Task<void> ShardingService::setReshardingFlag() {
  if (!env_.bugs.any_node_sets_resharding_flag) {
    bool leader = co_await leaderService_.isLeaderUntilBlock();
    if (!leader) co_return;
  }
  bool created = co_await env_.storage.createJobNodeIfNeeded(std::string(ShardingNode::NECESSARY));
  co_await sim::reach(env_.sim(), env_.node.id(), sites::resharding_flag_set, {"job", env_.jobName()});
  if (created) {
    env_.sim().trace().emit(env_.node.id(), "job.resharding_flag", {{"job", env_.jobName()}, {"id", env_.localInstanceIdView()}});
  }
}

sim::Task<bool> ShardingService::isNeedSharding() {
  co_return co_await env_.storage.isJobNodeExisted(ShardingNode::NECESSARY);
}

sim::Task<void> ShardingService::shardingIfNecessary() {
  std::vector<JobInstance> availableJobInstances = co_await instanceService_.getAvailableJobInstances();
  bool needSharding = co_await isNeedSharding();
  if (!needSharding || availableJobInstances.empty()) co_return;
  bool leader = co_await leaderService_.isLeaderUntilBlock();
  if (!leader) {
    co_await blockUntilShardingCompleted();
    co_return;
  }
  co_await waitingOtherShardingItemCompleted();
  JobConfiguration jobConfig = co_await configService_.load(false);
  int shardingTotalCount = jobConfig.shardingTotalCount;
  const JobShardingStrategy* strategy = getStrategy(jobConfig.jobShardingStrategyType);
  if (strategy == nullptr) {
    throw JobConfigurationException("Cannot find sharding strategy using type '" + jobConfig.jobShardingStrategyType + "'.");
  }
  // electsim's sticky strategy reads the assignment it replaces (before step 6 deletes it).
  ShardingResult previous;
  if (strategy->usesPrevious()) previous = co_await previousAssignment(shardingTotalCount);
  co_await env_.storage.fillEphemeralJobNode(std::string(ShardingNode::PROCESSING), "");
  co_await sim::reach(env_.sim(), env_.node.id(), sites::processing_flag_set, {"job", env_.jobName()});
  co_await resetShardingInfo(shardingTotalCount);
  ShardingResult shardingResults;
  try {
    shardingResults = strategy->sharding(availableJobInstances, env_.jobName(), shardingTotalCount, strategy->usesPrevious() ? &previous : nullptr);
  } catch (const ShardingStrategyFailure& failure) {
    // The exception leaves processing set, necessary set and no owners (digest §4.4).
    env_.sim().trace().emit(env_.node.id(), "job.sharding_failed", {{"job", env_.jobName()}, {"message", failure.what()}});
    throw JobSystemException(failure.what());
  }
  std::vector<TransactionOperation> operations;
  const JobNodePath& path = env_.storage.getJobNodePath();
  for (const InstanceItems& entry : shardingResults) {
    for (int shardingItem : entry.items) {
      operations.push_back(TransactionOperation::opAdd(path.getFullPath(ShardingNode::getInstanceNode(shardingItem)), entry.instance.jobInstanceId));
    }
  }
  operations.push_back(TransactionOperation::opDelete(path.getFullPath(ShardingNode::NECESSARY)));
  operations.push_back(TransactionOperation::opDelete(path.getFullPath(ShardingNode::PROCESSING)));
  zk::MultiResult result = co_await env_.storage.executeInTransaction(std::move(operations));
  co_await sim::reach(env_.sim(), env_.node.id(), sites::sharding_result_written, {"job", env_.jobName()}, {"code", zk::code_name(result.code)});
  if (result.code == zk::Code::ok) {
    env_.sim().trace().emit(env_.node.id(), "job.sharding",
                            {{"job", env_.jobName()},
                             {"id", env_.localInstanceIdView()},
                             {"assignment", describe(shardingResults)},
                             {"total", shardingTotalCount},
                             {"zxid", env_.storage.getRegCenter().getLastZxid()},
                             {"session", env_.storage.getRegCenter().getSessionId()}});
  } else {
    env_.sim().trace().emit(env_.node.id(), "job.sharding_aborted",
                            {{"job", env_.jobName()}, {"id", env_.localInstanceIdView()}, {"code", zk::code_name(result.code)}});
  }
}

sim::Task<void> ShardingService::blockUntilShardingCompleted() {
  std::int64_t polls = 0;
  while (true) {
    bool leader = co_await leaderService_.isLeaderUntilBlock();
    if (leader) break;
    bool pending = co_await env_.storage.isJobNodeExisted(ShardingNode::NECESSARY);
    if (!pending) pending = co_await env_.storage.isJobNodeExisted(ShardingNode::PROCESSING);
    if (!pending) break;
    ELECTSIM_ASSERT(++polls < polls_max);
    co_await env_.sim().sleep(waitingShortTime);  // "sleep short time until sharding completed"
  }
}

sim::Task<void> ShardingService::waitingOtherShardingItemCompleted() {
  std::int64_t polls = 0;
  while (true) {
    bool running = co_await executionService_.hasRunningItems();
    if (!running) break;
    ELECTSIM_ASSERT(++polls < polls_max);
    co_await env_.sim().sleep(waitingShortTime);  // "sleep short time until other job completed"
  }
}

sim::Task<void> ShardingService::resetShardingInfo(int shardingTotalCount) {
  for (int i = 0; i < shardingTotalCount; i++) {
    co_await env_.storage.removeJobNodeIfExisted(ShardingNode::getInstanceNode(i));
    co_await env_.storage.createJobNodeIfNeeded(ShardingNode::getItemNode(i));
  }
  std::vector<std::string> children = co_await env_.storage.getJobNodeChildrenKeys(std::string(ShardingNode::ROOT));
  int actualShardingTotalCount = static_cast<int>(children.size());
  if (actualShardingTotalCount > shardingTotalCount) {
    for (int i = shardingTotalCount; i < actualShardingTotalCount; i++) {
      co_await env_.storage.removeJobNodeIfExisted(ShardingNode::getItemNode(i));
    }
  }
}

sim::Task<ShardingResult> ShardingService::previousAssignment(int shardingTotalCount) {
  ShardingResult previous;
  for (int i = 0; i < shardingTotalCount; i++) {
    std::optional<std::string> owner = co_await env_.storage.getJobNodeData(ShardingNode::getInstanceNode(i));
    if (!owner || owner->empty()) continue;
    auto found = std::find_if(previous.begin(), previous.end(), [&](const InstanceItems& entry) { return entry.instance.jobInstanceId == *owner; });
    if (found == previous.end()) {
      previous.push_back(InstanceItems{JobInstance(*owner), {}});
      found = previous.end() - 1;
    }
    found->items.push_back(i);
  }
  co_return previous;
}

sim::Task<std::vector<int>> ShardingService::getShardingItems(std::string jobInstanceId) {
  std::optional<std::string> data = co_await env_.storage.getJobNodeData(InstanceNode::getInstancePath(jobInstanceId));
  // YamlEngine.unmarshal(null, ...) throws a NullPointerException (not guarded in 3.0.4).
  if (!data) throw NullPointerException("NullPointerException: no instance node for " + jobInstanceId);
  std::optional<JobInstance> jobInstance = InstanceService::unmarshal(*data);
  if (!jobInstance) throw NullPointerException("NullPointerException: unreadable instance node for " + jobInstanceId);
  bool available = co_await serverService_.isAvailableServer(std::string(jobInstance->getServerIp()));
  if (!available) co_return std::vector<int>{};
  JobConfiguration config = co_await configService_.load(true);
  std::vector<int> result;
  for (int i = 0; i < config.shardingTotalCount; i++) {
    std::optional<std::string> owner = co_await env_.storage.getJobNodeData(ShardingNode::getInstanceNode(i));
    if (owner && *owner == jobInstance->jobInstanceId) result.push_back(i);
  }
  co_return result;
}

sim::Task<std::vector<int>> ShardingService::getLocalShardingItems() {
  if (env_.isShutdown()) co_return std::vector<int>{};
  bool available = co_await serverService_.isAvailableServer(env_.localIp());
  if (!available) co_return std::vector<int>{};
  // getJobInstance(jobName).getJobInstanceId() of a job shut down during the availability check throws.
  std::string id = env_.requireLocalInstanceId("ShardingService.getLocalShardingItems");
  co_return co_await getShardingItems(std::move(id));
}

sim::Task<bool> ShardingService::hasShardingInfoInOfflineServers() {
  std::vector<std::string> onlineInstances = co_await env_.storage.getJobNodeChildrenKeys(std::string(InstanceNode::ROOT));
  JobConfiguration config = co_await configService_.load(true);
  for (int i = 0; i < config.shardingTotalCount; i++) {
    std::optional<std::string> owner = co_await env_.storage.getJobNodeData(ShardingNode::getInstanceNode(i));
    // onlineInstances.contains(null) is false: an item without an owner counts as offline.
    if (!owner || std::find(onlineInstances.begin(), onlineInstances.end(), *owner) == onlineInstances.end()) co_return true;
  }
  co_return false;
}

}  // namespace elasticjob
