#include "model/elasticjob/SchedulerFacade.h"

namespace elasticjob {

sim::Task<void> SchedulerFacade::shutdownInstance() {
  env_.sim().trace().emit(env_.node.id(), "job.shutdown", {{"job", env_.jobName()}, {"how", "shutdownInstance"}});
  bool isLeader = co_await leaderService_.isLeader();
  if (isLeader) co_await leaderService_.removeLeader();
  co_await env_.registry.shutdown(env_.jobName());
  leaderService_.refreshBelief();  // isShutdown: no longer the leader
}

sim::Task<void> SchedulerFacade::triggerMisfired(bool hasPreviousFireTime) {
  if (!hasPreviousFireTime) co_return;
  std::vector<int> items = co_await shardingService_.getLocalShardingItems();
  co_await executionService_.setMisfire(std::move(items));
}

}  // namespace elasticjob
