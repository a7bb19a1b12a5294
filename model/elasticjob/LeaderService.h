// LeaderService (3.0.4, source 000's 选举 and source 001's 选举主节点): leadership of a job is the
// ephemeral node leader/election/instance, holding the leader's instance id.
//
//   electLeader()        executeInLeader("leader/election/latch", LeaderElectionExecutionCallback):
//                        take the latch (a mutex), then `if (!hasLeader()) fillEphemeralJobNode(
//                        leader/election/instance, localId)`, then release the latch. First come,
//                        first served; the others find a leader and do nothing.
//   hasLeader()          direct existence check
//   isLeader()           !isShutdown && localId.equals(getJobNodeData(...)): through the CACHE
//   isLeaderUntilBlock() while (!hasLeader() && serverService.hasAvailableServers()) { sleep 100 ms;
//                        if (!isShutdown && isAvailableServer(localIp)) electLeader(); }
//                        return isLeader()
//   removeLeader()       removeJobNodeIfExisted(leader/election/instance)
//
// Bug switch ej-no-has-leader-check drops the `if (!hasLeader())`: every latch holder overwrites
// the node (persistEphemeral deletes, then creates), and each deletion makes the others elect again.
//
// The trace: job.leader / job.not_leader follow what isLeader() would answer (the instance's
// belief), so a stale cache shows as a belief. That answer is the cached value when the cache holds
// the node, else ZooKeeper's, which the instance knows from its last direct read of the node (an
// isLeader() that missed the cache) and its own writes. The belief is recomputed at every isLeader(),
// at each of the job's cache events, and after the instance's own writes of the node: Curator's
// cache replaces an entry silently when the new stat has the same version (a node deleted and
// re-created while we were disconnected), and such a change shows at the next of these moments.
#pragma once

#include <string>

#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/JobEnvironment.h"
#include "model/elasticjob/ServerService.h"

namespace elasticjob {

class LeaderService {
 public:
  // localInstanceId: only for the trace, which must name the instance even after a shutdown.
  LeaderService(JobEnvironment& env, ServerService& serverService, std::string localInstanceId);

  sim::Task<void> electLeader();
  sim::Task<bool> isLeaderUntilBlock();
  // Through the cache, so usually answered at once (sim/eager.h).
  sim::Eager<bool> isLeader();
  sim::Task<bool> hasLeader();
  sim::Task<void> removeLeader();

  // ---- the belief, for the trace ----
  // The job's cache applied a change of leader/election/instance (called synchronously by it).
  void onLeaderNodeCached(DataChangedEvent::Type type, const std::string& data);
  // The job's cache applied any other change.
  void onJobCacheChanged() { refreshBelief(); }
  // Recomputes the belief and emits job.leader / job.not_leader when it changed.
  void refreshBelief();
  bool believesLeader() const { return belief_; }

 private:
  class LeaderElectionExecutionCallback final : public LeaderExecutionCallback {
   public:
    explicit LeaderElectionExecutionCallback(LeaderService& service) : service_(service) {}
    sim::Task<void> execute() override;

   private:
    LeaderService& service_;
  };
  bool computeBelief() const;
  sim::Task<bool> isLeaderDirectly();  // isLeader when the cache does not hold the node

  JobEnvironment& env_;
  ServerService& serverService_;
  LeaderElectionExecutionCallback callback_;
  std::string localInstanceId_;
  JobNodeStorage::CachedNodePath leaderInstancePath_;  // leader/election/instance, for the cached reads
  // ZooKeeper's answer as far as this instance knows it (its last direct read, its own writes, the
  // cache's deletion events): what isLeader() answers when the cache does not hold the node.
  bool directView_ = false;
  bool belief_ = false;
};

}  // namespace elasticjob
