#include "model/elasticjob/ElectionListenerManager.h"

namespace elasticjob {

namespace {
constexpr std::string_view DISABLED = "DISABLED";
}

sim::Task<void> LeaderElectionJobListener::onChange(DataChangedEvent event) {
  if (env_.registry.isShutdown(env_.jobName())) co_return;
  // isActiveElection(...) || isPassiveElection(...), in Java's order (short-circuit).
  bool elect = co_await isActiveElection(event);
  if (!elect) elect = co_await isPassiveElection(event);
  if (elect) co_await leaderService_.electLeader();
}

sim::Task<bool> LeaderElectionJobListener::isActiveElection(DataChangedEvent event) {
  bool hasLeader = co_await leaderService_.hasLeader();
  if (hasLeader) co_return false;
  co_return paths_.isLocalServerPath(event.key) && event.value != DISABLED;
}

sim::Task<bool> LeaderElectionJobListener::isPassiveElection(DataChangedEvent event) {
  if (env_.registry.getJobInstance(env_.jobName()) == nullptr) co_return false;
  // isLeaderCrashed: named "crashed", true for any removal of the leader node (source 001).
  if (!paths_.isLeaderInstancePath(event.key) || event.type != DataChangedEvent::Type::DELETED) co_return false;
  co_return co_await serverService_.isAvailableServer(env_.localIp());
}

sim::Task<void> LeaderAbdicationJobListener::onChange(DataChangedEvent event) {
  bool isLeader = co_await leaderService_.isLeader();
  if (!isLeader) co_return;
  if (paths_.isLocalServerPath(event.key) && event.value == DISABLED) co_await leaderService_.removeLeader();
}

}  // namespace elasticjob
