#include "model/elasticjob/strategies/RoundRobinByNameJobShardingStrategy.h"

#include <cstdint>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "model/elasticjob/strategies/JavaString.h"
#include "sim/assert.h"

namespace elasticjob {

namespace {

// rotateServerList: fails exactly where java.util.LinkedList.get would.
std::vector<JobInstance> rotateServerList(const std::vector<JobInstance>& shardingUnits, const std::string& jobName) {
  const int shardingUnitsSize = static_cast<int>(shardingUnits.size());
  if (shardingUnitsSize == 0) {
    throw ShardingStrategyFailure("java.lang.ArithmeticException: / by zero (RoundRobinByNameJobShardingStrategy with no job instance)");
  }
  const int offset = RoundRobinByNameJobShardingStrategy::offsetFor(jobName, shardingUnitsSize);
  if (0 == offset) return shardingUnits;
  std::vector<JobInstance> result;
  result.reserve(shardingUnits.size());
  for (int i = 0; i < shardingUnitsSize; i++) {
    const int index = (i + offset) % shardingUnitsSize;
    if (index < 0) {
      // Only a negative offset gets here, at i = 0, before anything was added.
      ELECTSIM_ASSERT(offset < 0);
      ELECTSIM_ASSERT(i == 0);
      throw ShardingStrategyFailure("java.lang.IndexOutOfBoundsException: Index: " + std::to_string(index) +
                                    ", Size: " + std::to_string(shardingUnitsSize) + " (RoundRobinByNameJobShardingStrategy: \"" +
                                    jobName + "\".hashCode() is Integer.MIN_VALUE, Math.abs leaves it negative, offset " +
                                    std::to_string(offset) + ")");
    }
    result.push_back(shardingUnits[static_cast<std::size_t>(index)]);
  }
  return result;
}

}  // namespace

int RoundRobinByNameJobShardingStrategy::offsetFor(std::string_view jobName, int shardingUnitsSize) {
  ELECTSIM_ASSERT(shardingUnitsSize > 0);
  const int offset = javaMathAbs(javaStringHashCode(jobName)) % shardingUnitsSize;
  ELECTSIM_ASSERT(offset > -shardingUnitsSize);
  ELECTSIM_ASSERT(offset < shardingUnitsSize);
  return offset;
}

ShardingResult RoundRobinByNameJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                                                 int shardingTotalCount, const ShardingResult*) const {
  return AverageAllocationJobShardingStrategy::allocate(rotateServerList(jobInstances, jobName), shardingTotalCount);
}

}  // namespace elasticjob
