#include "model/elasticjob/SetUpFacade.h"

namespace elasticjob {

sim::Task<void> SetUpFacade::registerStartUpInfo(bool enabled, sim::Rng& random) {
  listenerManager_.startAllListeners(random);
  // Why this instance runs an election, for the narration (an observation: not hashed).
  env_.sim().trace().observe(env_.node.id(), "why.job_election", {{"job", env_.jobName()}, {"kind", "startup"}});
  co_await services_.leaderService.electLeader();
  co_await services_.serverService.persistOnline(enabled);
  co_await services_.instanceService.persistOnline();
  // 3.0.0-alpha and 2.x: shardingService.setReshardingFlag() here; #1472 removed it ("no need ...
  // because the listeners have already started").
  if (env_.bugs.any_node_sets_resharding_flag) co_await services_.shardingService.setReshardingFlag();
  if (!services_.reconcileService.isRunning()) services_.reconcileService.startAsync();
  co_await services_.serverService.removeOfflineServers();
}

void SetUpFacade::tearDown() {
  listenerManager_.removeAllListeners();
  if (services_.reconcileService.isRunning()) services_.reconcileService.stopAsync();
}

}  // namespace elasticjob
