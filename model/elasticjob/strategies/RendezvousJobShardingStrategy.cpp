#include "model/elasticjob/strategies/RendezvousJobShardingStrategy.h"

#include <cstdint>

#include "model/elasticjob/strategies/PortableHash.h"
#include "sim/assert.h"

namespace elasticjob {

ShardingResult RendezvousJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                                           int shardingTotalCount, const ShardingResult*) const {
  if (jobInstances.empty()) return {};
  std::vector<std::uint64_t> instanceHashes;
  instanceHashes.reserve(jobInstances.size());
  ShardingResult result;
  result.reserve(jobInstances.size());
  for (const JobInstance& each : jobInstances) {
    instanceHashes.push_back(portable_hash::ofString(each.jobInstanceId));
    result.push_back({each, {}});
  }
  const std::uint64_t jobHash = portable_hash::ofString(jobName);
  for (int item = 0; item < shardingTotalCount; item++) {
    // weight = mix64(itemHash ^ instanceHash): both inputs are already mixed, and mix64 is a
    // bijection with full avalanche, so per item the instances come out in an independent order.
    const std::uint64_t itemHash = portable_hash::ofItem(jobHash, item);
    std::size_t best = 0;
    std::uint64_t bestWeight = sim::mix64(itemHash ^ instanceHashes[0]);
    for (std::size_t index = 1; index < jobInstances.size(); index++) {
      const std::uint64_t weight = sim::mix64(itemHash ^ instanceHashes[index]);
      if (weight < bestWeight) continue;
      if (weight == bestWeight && jobInstances[index].jobInstanceId > jobInstances[best].jobInstanceId) continue;
      best = index;
      bestWeight = weight;
    }
    ELECTSIM_ASSERT(best < result.size());
    result[best].items.push_back(item);  // items ascending: they come in order
  }
  return result;
}

}  // namespace elasticjob
