#include "model/elasticjob/ReconcileService.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

ReconcileService::ReconcileService(JobEnvironment& env, ConfigurationService& configService, LeaderService& leaderService,
                                   ShardingService& shardingService)
    : env_(env),
      configService_(configService),
      leaderService_(leaderService),
      shardingService_(shardingService),
      lastReconcileTime_(env.sim().now()) {}

void ReconcileService::startAsync() {
  if (running_) return;
  running_ = true;
  env_.node.spawn(run());
}

void ReconcileService::stopAsync() { running_ = false; }

sim::Task<void> ReconcileService::run() {
  while (running_) {
    try {
      co_await runOneIteration();
    } catch (const ElasticJobException& error) {
      env_.sim().trace().emit(env_.node.id(), "job.error", {{"job", env_.jobName()}, {"where", "ReconcileService"}, {"message", error.what()}});
      running_ = false;  // Service.State.FAILED
      co_return;
    }
    co_await env_.sim().sleep(std::chrono::minutes(1));
  }
}

sim::Task<void> ReconcileService::runOneIteration() {
  JobConfiguration config = co_await configService_.load(true);
  sim::Duration interval = std::chrono::minutes(config.reconcileIntervalMinutes);
  if (config.reconcileIntervalMinutes <= 0 || env_.sim().now() - lastReconcileTime_ < interval) co_return;
  lastReconcileTime_ = env_.sim().now();
  if (env_.bugs.any_node_sets_resharding_flag) {
    bool leader = co_await leaderService_.isLeaderUntilBlock();  // 3.0.0-alpha's own gate
    if (!leader) co_return;
  }
  bool needSharding = co_await shardingService_.isNeedSharding();
  if (needSharding) co_return;
  bool offline = co_await shardingService_.hasShardingInfoInOfflineServers();
  if (!offline) co_return;
  JobConfiguration current = co_await configService_.load(true);
  if (current.staticSharding) {
    std::vector<std::string> sharding = co_await env_.storage.getJobNodeChildrenKeys(std::string(ShardingNode::ROOT));
    if (!sharding.empty()) co_return;
  }
  // "job status node has inconsistent value,start reconciling..."
  env_.sim().trace().emit(env_.node.id(), "job.reconcile", {{"job", env_.jobName()}});
  co_await shardingService_.setReshardingFlag();
}

}  // namespace elasticjob
