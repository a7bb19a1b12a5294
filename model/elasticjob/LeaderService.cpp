#include "model/elasticjob/LeaderService.h"

#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/JobSites.h"

namespace elasticjob {

LeaderService::LeaderService(JobEnvironment& env, ServerService& serverService, std::string localInstanceId)
    : env_(env),
      serverService_(serverService),
      callback_(*this),
      localInstanceId_(std::move(localInstanceId)),
      leaderInstancePath_(env.storage.cachedNodePath(LeaderNode::INSTANCE)) {
  ELECTSIM_ASSERT(!localInstanceId_.empty());
}

sim::Task<void> LeaderService::electLeader() {
  co_await env_.storage.executeInLeader(std::string(LeaderNode::LATCH), callback_);
}

sim::Task<void> LeaderService::LeaderElectionExecutionCallback::execute() {
  JobEnvironment& env = service_.env_;
  // The optimistic check (source 000: "相当于乐观锁"): the first latch holder created the node; the
  // ones after it find it and leave it alone.
  if (!env.bugs.no_has_leader_check) {
    bool hasLeader = co_await service_.hasLeader();
    if (hasLeader) {
      env.sim().trace().observe(env.node.id(), "why.job_latch", {{"job", env.jobName()}, {"outcome", "leader node exists"}});
      co_return;
    }
  }
  // getJobInstance(jobName).getJobInstanceId() of a job shut down meanwhile throws; executeInLeader
  // wraps it in a RegException. There is no isShutdown check: a job shut down after this read still
  // creates the node (docs/elasticjob-model.md, "A leader node created during shutdownInstance").
  std::string localId = env.requireLocalInstanceId("LeaderElectionExecutionCallback");
  zk::Code code = co_await env.storage.fillEphemeralJobNode(std::string(LeaderNode::INSTANCE), localId);
  co_await sim::reach(env.sim(), env.node.id(), sites::leader_node_written, {"job", env.jobName()}, {"code", zk::code_name(code)});
  env.sim().trace().observe(env.node.id(), "why.job_latch",
                            {{"job", env.jobName()}, {"outcome", code == zk::Code::ok ? "created" : "create failed"}, {"code", zk::code_name(code)},
                             {"checked", !env.bugs.no_has_leader_check}});
  if (code == zk::Code::ok) {
    service_.directView_ = true;
    service_.refreshBelief();
  }
}

sim::Task<bool> LeaderService::isLeaderUntilBlock() {
  std::int64_t polls = 0;
  while (true) {
    bool hasLeaderNow = co_await hasLeader();
    if (hasLeaderNow) break;
    bool available = co_await serverService_.hasAvailableServers();
    if (!available) break;
    ELECTSIM_ASSERT(++polls < polls_max);
    // "Leader is electing, waiting for 100 ms": the sleep comes before the first attempt.
    co_await env_.sim().sleep(waitingShortTime);
    if (env_.isShutdown()) continue;
    bool localAvailable = co_await serverService_.isAvailableServer(env_.localIp());
    if (localAvailable) {
      env_.sim().trace().observe(env_.node.id(), "why.job_election", {{"job", env_.jobName()}, {"kind", "on-demand"}, {"polls", polls}});
      co_await electLeader();
    }
  }
  co_return co_await isLeader();
}

sim::Eager<bool> LeaderService::isLeader() {
  if (env_.isShutdown()) return false;
  // getJobNodeData goes through the cache: a cached leader node is answered at once, as
  // ZookeeperRegistryCenter.get answers it, with no coroutine.
  if (const std::string* cachedLeader = env_.storage.getCachedOnly(leaderInstancePath_)) {
    bool answer = *cachedLeader == env_.localInstanceIdView();
    refreshBelief();
    return answer;
  }
  return isLeaderDirectly();
}

sim::Task<bool> LeaderService::isLeaderDirectly() {
  // isLeader() evaluates getJobInstance(jobName).getJobInstanceId() before the read and checks
  // isShutdown only before both (the caller did): a job shut down during the read still compares.
  std::string localId = env_.requireLocalInstanceId("LeaderService.isLeader");
  std::optional<std::string> leader = co_await env_.storage.getJobNodeData(LeaderNode::INSTANCE);
  bool answer = leader && *leader == localId;
  directView_ = answer;  // a direct read: ZooKeeper's value just now
  refreshBelief();
  co_return answer;
}

sim::Task<bool> LeaderService::hasLeader() { return env_.storage.isJobNodeExisted(LeaderNode::INSTANCE); }

sim::Task<void> LeaderService::removeLeader() {
  co_await env_.storage.removeJobNodeIfExisted(std::string(LeaderNode::INSTANCE));
  directView_ = false;
  refreshBelief();
}

void LeaderService::onLeaderNodeCached(DataChangedEvent::Type type, const std::string& data) {
  if (type == DataChangedEvent::Type::DELETED || data != env_.localInstanceIdView()) directView_ = false;
  refreshBelief();
}

bool LeaderService::computeBelief() const {
  if (env_.isShutdown()) return false;
  const std::string* cached = env_.storage.getCachedOnly(leaderInstancePath_);
  if (cached) return *cached == env_.localInstanceIdView();
  return directView_;
}

void LeaderService::refreshBelief() {
  bool belief = computeBelief();
  if (belief == belief_) return;
  belief_ = belief;
  if (!belief) {
    // Why the belief ends, for the narration (an observation: not hashed).
    const std::string* cached = env_.storage.getCachedOnly(leaderInstancePath_);
    const char* why = env_.isShutdown() ? "shutdown"
                    : cached == nullptr ? "gone"
                                        : "other";
    env_.sim().trace().observe(env_.node.id(), "why.job_belief", {{"job", env_.jobName()}, {"reason", why}, {"holder", cached == nullptr ? std::string_view() : std::string_view(*cached)}});
  }
  env_.sim().trace().emit(env_.node.id(), belief ? "job.leader" : "job.not_leader", {{"job", env_.jobName()}, {"id", localInstanceId_}});
}

}  // namespace elasticjob
