// SetUpFacade (3.0.4): what a job does on startup, after its cache was started.
//
//   registerStartUpInfo(enabled): startAllListeners; electLeader (no availability check, so the
//   first process becomes leader even if disabled, then abdicates); persistOnline(server);
//   persistOnline(instance); reconcile service started; removeOfflineServers.
//   With ej-any-node-sets-resharding-flag (before #1472) setReshardingFlag() comes after the
//   instance is persisted, and every instance creates the flag.
//   tearDown(): listeners removed, reconcile stopped (the JobScheduler.shutdown API only).
#pragma once

#include "model/elasticjob/JobServices.h"
#include "model/elasticjob/ListenerManager.h"

namespace elasticjob {

class SetUpFacade {
 public:
  SetUpFacade(JobEnvironment& env, JobServices& services, ListenerManager& listenerManager)
      : env_(env), services_(services), listenerManager_(listenerManager) {}

  sim::Task<void> registerStartUpInfo(bool enabled, sim::Rng& random);
  void tearDown();

 private:
  JobEnvironment& env_;
  JobServices& services_;
  ListenerManager& listenerManager_;
};

}  // namespace elasticjob
