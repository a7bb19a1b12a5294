#include "model/elasticjob/ElectionListenerManager.h"

namespace elasticjob {

namespace {
constexpr std::string_view DISABLED = "DISABLED";
}

sim::Eager<void> LeaderElectionJobListener::onChange(const DataChangedEvent& event) {
  if (env_.isShutdown()) return sim::Eager<void>::done();
  return electIfNeeded(event);
}

sim::Task<void> LeaderElectionJobListener::electIfNeeded(const DataChangedEvent& event) {
  // isActiveElection(...) || isPassiveElection(...), in Java's order (short-circuit).
  bool elect = co_await isActiveElection(event);
  const char* kind = "active";  // for the narration's observation below
  if (!elect) {
    elect = co_await isPassiveElection(event);
    kind = "passive";
  }
  if (elect) {
    // Why this instance runs an election (an observation: not hashed).
    env_.sim().trace().observe(env_.node.id(), "why.job_election",
                               {{"job", env_.jobName()}, {"kind", kind}, {"path", event.key}, {"value", event.value},
                                {"deleted", event.type == DataChangedEvent::Type::DELETED}});
    co_await leaderService_.electLeader();
  }
}

sim::Task<bool> LeaderElectionJobListener::isActiveElection(const DataChangedEvent& event) {
  bool hasLeader = co_await leaderService_.hasLeader();
  if (hasLeader) co_return false;
  co_return paths_.isLocalServerPath(event.key) && event.value != DISABLED;
}

sim::Eager<bool> LeaderElectionJobListener::isPassiveElection(const DataChangedEvent& event) {
  if (env_.getJobInstance() == nullptr) return false;
  // isLeaderCrashed: named "crashed", true for any removal of the leader node (source 001).
  if (!paths_.isLeaderInstancePath(event.key) || event.type != DataChangedEvent::Type::DELETED) return false;
  return serverService_.isAvailableServer(env_.localIp());
}

sim::Eager<void> LeaderAbdicationJobListener::onChange(const DataChangedEvent& event) {
  sim::Eager<bool> isLeader = leaderService_.isLeader();  // through the cache: nearly always ready
  if (isLeader.ready()) return abdicateIfDisabled(isLeader.take(), event);
  return abdicateAfterDirectRead(std::move(isLeader), event);
}

sim::Eager<void> LeaderAbdicationJobListener::abdicateIfDisabled(bool isLeader, const DataChangedEvent& event) {
  if (isLeader && paths_.isLocalServerPath(event.key) && event.value == DISABLED) return leaderService_.removeLeader();
  return sim::Eager<void>::done();
}

sim::Task<void> LeaderAbdicationJobListener::abdicateAfterDirectRead(sim::Eager<bool> isLeader, const DataChangedEvent& event) {
  bool leader = co_await std::move(isLeader);
  co_await abdicateIfDisabled(leader, event);
}

}  // namespace elasticjob
