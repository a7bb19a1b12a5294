// ElectionListenerManager (3.0.4; source 000's 重新选举, source 001's second election trigger and
// third way a leader node is removed).
//
// LeaderElectionJobListener: electLeader() when the job is not shut down and
//   - active election: !hasLeader() (direct) and the event is our own servers/{ip} with data other
//     than DISABLED (whatever the event type), or
//   - passive election: the event is leader/election/instance DELETED and our server is available
//     (isAvailableServer: ENABLED and an instance prefix-matches our ip).
// LeaderAbdicationJobListener: removeLeader() when isLeader() (cache) and the event is our own
//   servers/{ip} with data DISABLED.
#pragma once

#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/JobNodePath.h"
#include "model/elasticjob/LeaderService.h"
#include "model/elasticjob/ServerService.h"

namespace elasticjob {

class LeaderElectionJobListener final : public DataChangedEventListener {
 public:
  LeaderElectionJobListener(JobEnvironment& env, const JobPaths& paths, LeaderService& leaderService, ServerService& serverService)
      : env_(env), paths_(paths), leaderService_(leaderService), serverService_(serverService) {}
  sim::Eager<void> onChange(const DataChangedEvent& event) override;
  std::string_view name() const override { return "LeaderElectionJobListener"; }

 private:
  sim::Task<void> electIfNeeded(const DataChangedEvent& event);  // onChange once not shut down
  sim::Task<bool> isActiveElection(const DataChangedEvent& event);
  sim::Eager<bool> isPassiveElection(const DataChangedEvent& event);
  JobEnvironment& env_;
  const JobPaths& paths_;
  LeaderService& leaderService_;
  ServerService& serverService_;
};

class LeaderAbdicationJobListener final : public DataChangedEventListener {
 public:
  LeaderAbdicationJobListener(const JobPaths& paths, LeaderService& leaderService) : paths_(paths), leaderService_(leaderService) {}
  sim::Eager<void> onChange(const DataChangedEvent& event) override;
  std::string_view name() const override { return "LeaderAbdicationJobListener"; }

 private:
  sim::Eager<void> abdicateIfDisabled(bool isLeader, const DataChangedEvent& event);
  sim::Task<void> abdicateAfterDirectRead(sim::Eager<bool> isLeader, const DataChangedEvent& event);
  const JobPaths& paths_;
  LeaderService& leaderService_;
};

}  // namespace elasticjob
