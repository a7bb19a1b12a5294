#include "model/elasticjob/strategies/OdevitySortByNameJobShardingStrategy.h"

#include <algorithm>
#include <cstdint>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "model/elasticjob/strategies/JavaString.h"

namespace elasticjob {

bool OdevitySortByNameJobShardingStrategy::reversesFor(std::string_view jobName) {
  const std::int64_t jobNameHash = javaStringHashCode(jobName);  // `long jobNameHash = jobName.hashCode()`
  return 0 == jobNameHash % 2;
}

ShardingResult OdevitySortByNameJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                                                  int shardingTotalCount, const ShardingResult*) const {
  // Java reverses the caller's list in place; ShardingService does not use the list afterwards, so
  // reversing a copy changes nothing observable.
  std::vector<JobInstance> shardingUnits = jobInstances;
  if (reversesFor(jobName)) std::reverse(shardingUnits.begin(), shardingUnits.end());
  return AverageAllocationJobShardingStrategy::allocate(shardingUnits, shardingTotalCount);
}

}  // namespace elasticjob
