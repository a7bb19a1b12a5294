#include "model/elasticjob/ListenerManager.h"

#include <array>

#include "model/elasticjob/JobServices.h"

namespace elasticjob {

ListenerManager::ListenerManager(JobEnvironment& env, const JobPaths& paths, JobServices& services)
    : env_(env),
      leaderElectionJobListener_(env, paths, services.leaderService, services.serverService),
      leaderAbdicationJobListener_(paths, services.leaderService),
      shardingTotalCountChangedJobListener_(env, paths, services.shardingService),
      listenServersChangedJobListener_(env, paths, services.configService, services.shardingService),
      instanceShutdownStatusJobListener_(env, paths, services.instanceService, services.schedulerFacade),
      regCenterConnectionStateListener_(env, services.serverService, services.instanceService, services.shardingService,
                                        services.executionService) {}

void ListenerManager::startAllListeners(sim::Rng& random) {
  // new ListenerManager(...) registers the job's notify executor.
  ListenerNotifierManager& notifiers = env_.registry.getListenerNotifierManager();
  notifiers.registerJobNotifyExecutor(env_.jobName());
  JobNotifyExecutor* executor = notifiers.getJobNotifyExecutor(env_.jobName());
  ELECTSIM_ASSERT(executor != nullptr);
  // Election, Sharding, ..., Shutdown managers, in startAllListeners' order; the cache then runs
  // them per event in its map's order, a fixed permutation (Fisher-Yates from the seed).
  std::array<DataChangedEventListener*, 5> listeners{&leaderElectionJobListener_, &leaderAbdicationJobListener_,
                                                     &shardingTotalCountChangedJobListener_, &listenServersChangedJobListener_,
                                                     &instanceShutdownStatusJobListener_};
  for (std::uint32_t i = static_cast<std::uint32_t>(listeners.size()) - 1; i > 0; i--) std::swap(listeners[i], listeners[random.pick(i + 1)]);
  std::string order;
  for (DataChangedEventListener* listener : listeners) {
    env_.storage.addDataListener(*listener, *executor);
    order += (order.empty() ? "" : ",") + std::string(listener->name());
  }
  env_.sim().trace().emit(env_.node.id(), "job.listeners", {{"job", env_.jobName()}, {"order", order}});
  env_.storage.addConnectionStateListener(regCenterConnectionStateListener_);
}

void ListenerManager::removeAllListeners() {
  // SetUpFacade.tearDown (3.0.4, #2211).
  env_.storage.getRegCenter().removeConnStateListener(env_.storage.getJobNodePath().getRootPath());
  env_.storage.getRegCenter().removeDataListeners(env_.storage.getJobNodePath().getRootPath());
}

}  // namespace elasticjob
