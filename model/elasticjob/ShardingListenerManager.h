// ShardingListenerManager (3.0.4; source 000's 重新分片标记). Both listeners only set the flag; the
// leader reshards at its next execution.
//
// ShardingTotalCountChangedJobListener: on any event of /J/config while the registry's current count
//   is not 0: when the configuration's shardingTotalCount differs, setReshardingFlag() and remember
//   the new count.
// ListenServersChangedJobListener: when the job is not shut down and the event is an instances/...
//   ADDED or DELETED (the parent path matches too) or any event of servers/{IPv4} (enable, disable,
//   the re-persist of RECONNECTED), and not (staticSharding and sharding info exists):
//   setReshardingFlag(). Since #1472 a non-leader's call blocks in isLeaderUntilBlock and does nothing.
#pragma once

#include "model/elasticjob/ConfigurationService.h"
#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/ShardingService.h"

namespace elasticjob {

class ShardingTotalCountChangedJobListener final : public DataChangedEventListener {
 public:
  ShardingTotalCountChangedJobListener(JobEnvironment& env, const JobPaths& paths, ShardingService& shardingService)
      : env_(env), paths_(paths), shardingService_(shardingService) {}
  sim::Eager<void> onChange(const DataChangedEvent& event) override;
  std::string_view name() const override { return "ShardingTotalCountChangedJobListener"; }

 private:
  sim::Task<void> setReshardingFlag(int newShardingTotalCount);  // and remember the new count
  JobEnvironment& env_;
  const JobPaths& paths_;
  ShardingService& shardingService_;
};

class ListenServersChangedJobListener final : public DataChangedEventListener {
 public:
  ListenServersChangedJobListener(JobEnvironment& env, const JobPaths& paths, ConfigurationService& configService,
                                  ShardingService& shardingService)
      : env_(env), paths_(paths), configService_(configService), shardingService_(shardingService) {}
  sim::Eager<void> onChange(const DataChangedEvent& event) override;
  std::string_view name() const override { return "ListenServersChangedJobListener"; }

 private:
  sim::Task<void> setReshardingFlagUnlessStatic();  // onChange once the event is a membership change
  JobEnvironment& env_;
  const JobPaths& paths_;
  ConfigurationService& configService_;
  ShardingService& shardingService_;
};

}  // namespace elasticjob
