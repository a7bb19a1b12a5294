// ListenerManager (3.0.4): registers the job's data listeners on its cache (each event goes to the
// ListenerNotify executor once per listener) and the connection-state listener.
//
// Java keeps a cache's listeners in a ConcurrentHashMap keyed by the listener object, so the order
// in which the listeners of one event run is arbitrary but fixed for the life of the process. The
// model draws that order from the instance's random stream at each start. The managers that act
// only with failover, one-off triggers, rescheduling or distribute-once listeners are not modelled.
#pragma once

#include "model/elasticjob/ElectionListenerManager.h"
#include "model/elasticjob/RegistryCenterConnectionStateListener.h"
#include "model/elasticjob/ShardingListenerManager.h"
#include "model/elasticjob/ShutdownListenerManager.h"
#include "sim/random.h"

namespace elasticjob {

struct JobServices;

class ListenerManager {
 public:
  ListenerManager(JobEnvironment& env, const JobPaths& paths, JobServices& services);
  ListenerManager(const ListenerManager&) = delete;
  ListenerManager& operator=(const ListenerManager&) = delete;

  void startAllListeners(sim::Rng& random);
  void removeAllListeners();

 private:
  JobEnvironment& env_;
  LeaderElectionJobListener leaderElectionJobListener_;
  LeaderAbdicationJobListener leaderAbdicationJobListener_;
  ShardingTotalCountChangedJobListener shardingTotalCountChangedJobListener_;
  ListenServersChangedJobListener listenServersChangedJobListener_;
  InstanceShutdownStatusJobListener instanceShutdownStatusJobListener_;
  RegistryCenterConnectionStateListener regCenterConnectionStateListener_;
};

}  // namespace elasticjob
