#include "model/elasticjob/ExecutionService.h"

namespace elasticjob {

sim::Task<void> ExecutionService::registerJobBegin(ShardingContexts shardingContexts) {
  env_.registry.setJobRunning(env_.jobName(), true);
  JobConfiguration jobConfiguration = co_await configService_.load(true);
  if (!jobConfiguration.monitorExecution) co_return;
  std::string jobInstanceId = env_.requireLocalInstanceId("ExecutionService.registerJobBegin");
  for (int each : shardingContexts.items) {
    if (jobConfiguration.failover) {
      co_await env_.storage.fillJobNode(ShardingNode::getRunningNode(each), jobInstanceId);
    } else {
      co_await env_.storage.fillEphemeralJobNode(ShardingNode::getRunningNode(each), jobInstanceId);
    }
  }
}

sim::Task<void> ExecutionService::registerJobCompleted(ShardingContexts shardingContexts) {
  env_.registry.setJobRunning(env_.jobName(), false);
  JobConfiguration jobConfiguration = co_await configService_.load(true);
  if (!jobConfiguration.monitorExecution) co_return;
  for (int each : shardingContexts.items) co_await env_.storage.removeJobNodeIfExisted(ShardingNode::getRunningNode(each));
}

sim::Task<void> ExecutionService::clearAllRunningInfo() {
  std::vector<int> items = co_await getAllItems();
  co_await clearRunningInfo(std::move(items));
}

sim::Task<void> ExecutionService::clearRunningInfo(std::vector<int> items) {
  for (int each : items) co_await env_.storage.removeJobNodeIfExisted(ShardingNode::getRunningNode(each));
}

sim::Task<bool> ExecutionService::hasRunningItems(std::vector<int> items) {
  JobConfiguration jobConfig = co_await configService_.load(true);
  if (!jobConfig.monitorExecution) co_return false;
  for (int each : items) {
    bool running = co_await env_.storage.isJobNodeExisted(ShardingNode::getRunningNode(each));
    if (running) co_return true;
  }
  co_return false;
}

sim::Task<bool> ExecutionService::hasRunningItems() {
  std::vector<int> items = co_await getAllItems();
  co_return co_await hasRunningItems(std::move(items));
}

sim::Task<std::vector<int>> ExecutionService::getAllItems() {
  JobConfiguration jobConfig = co_await configService_.load(true);
  std::vector<int> result;
  result.reserve(static_cast<std::size_t>(jobConfig.shardingTotalCount));
  for (int i = 0; i < jobConfig.shardingTotalCount; i++) result.push_back(i);
  co_return result;
}

sim::Task<bool> ExecutionService::misfireIfHasRunningItems(std::vector<int> items) {
  bool running = co_await hasRunningItems(items);
  if (!running) co_return false;
  co_await setMisfire(std::move(items));
  co_return true;
}

sim::Task<void> ExecutionService::setMisfire(std::vector<int> items) {
  for (int each : items) co_await env_.storage.createJobNodeIfNeeded(ShardingNode::getMisfireNode(each));
}

sim::Task<std::vector<int>> ExecutionService::getMisfiredJobItems(std::vector<int> items) {
  std::vector<int> result;
  for (int each : items) {
    bool misfired = co_await env_.storage.isJobNodeExisted(ShardingNode::getMisfireNode(each));
    if (misfired) result.push_back(each);
  }
  co_return result;
}

sim::Task<void> ExecutionService::clearMisfire(std::vector<int> items) {
  for (int each : items) co_await env_.storage.removeJobNodeIfExisted(ShardingNode::getMisfireNode(each));
}

sim::Task<std::vector<int>> ExecutionService::getDisabledItems(std::vector<int> items) {
  std::vector<int> result;
  for (int each : items) {
    bool disabled = co_await env_.storage.isJobNodeExisted(ShardingNode::getDisabledNode(each));
    if (disabled) result.push_back(each);
  }
  co_return result;
}

}  // namespace elasticjob
