// The named sites of the ElasticJob model (sim/site.h; `electsim sites` lists them), each next to the
// ElasticJob 3.0.x step it mirrors (elasticjob-lite-core, org/apache/shardingsphere/elasticjob/lite/
// internal/).
#pragma once

#include <array>

#include "sim/site.h"

namespace elasticjob::sites {

using sim::Site;
using sim::SiteRole;

inline constexpr Site leader_node_written{
    "job.leader_node_written", SiteRole::instance, true,
    "LeaderService.LeaderElectionExecutionCallback.execute: fillEphemeralJobNode(LeaderNode.INSTANCE, ...) (election/LeaderService.java)",
    "the elected instance wrote leader/election/instance with its id; it still holds the election latch", "job code"};
inline constexpr Site resharding_flag_set{
    "job.resharding_flag_set", SiteRole::instance, true,
    "ShardingService.setReshardingFlag: createJobNodeIfNeeded(ShardingNode.NECESSARY) (sharding/ShardingService.java)",
    "sharding/necessary exists (or already did); the leader has not resharded yet", "job"};
inline constexpr Site processing_flag_set{
    "job.processing_flag_set", SiteRole::instance, true,
    "ShardingService.shardingIfNecessary: fillEphemeralJobNode(ShardingNode.PROCESSING, \"\") (sharding/ShardingService.java)",
    "the leader marked sharding as in progress (an ephemeral node); the old assignment is not reset yet", "job"};
inline constexpr Site sharding_result_written{
    "job.sharding_result_written", SiteRole::instance, true,
    "ShardingService.shardingIfNecessary: the PersistShardingInfoTransactionExecutionCallback transaction (sharding/ShardingService.java)",
    "the leader's sharding transaction returned: the new owners, and necessary and processing deleted, if it committed", "job code"};

inline constexpr std::array<const Site*, 4> all{&leader_node_written, &resharding_flag_set, &processing_flag_set, &sharding_result_written};

}  // namespace elasticjob::sites
