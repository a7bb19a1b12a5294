// ReconcileService (3.0.4): a Guava AbstractScheduledService on its own thread, run every minute
// (newFixedDelaySchedule(0, 1, MINUTES)); every reconcileIntervalMinutes (default 10) counted from
// its construction it flags a resharding when no flag is set and some item's owner is not an online
// instance (an unowned item counts). Since #1472 the leader-only gate is setReshardingFlag's.
// An exception out of runOneIteration fails the service: it stops for good (Guava).
// With ej-any-node-sets-resharding-flag (before #1472) the service checks isLeaderUntilBlock itself.
#pragma once

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/LeaderService.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

class ReconcileService {
 public:
  ReconcileService(JobEnvironment& env, ConfigurationService& configService, LeaderService& leaderService, ShardingService& shardingService);
  ReconcileService(const ReconcileService&) = delete;
  ReconcileService& operator=(const ReconcileService&) = delete;

  bool isRunning() const { return running_; }
  void startAsync();
  void stopAsync();

 private:
  sim::Task<void> run();
  sim::Task<void> runOneIteration();

  JobEnvironment& env_;
  ConfigurationService& configService_;
  LeaderService& leaderService_;
  ShardingService& shardingService_;
  sim::Instant lastReconcileTime_;
  bool running_ = false;
};

}  // namespace elasticjob
