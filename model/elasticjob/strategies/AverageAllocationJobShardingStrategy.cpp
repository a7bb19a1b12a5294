#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"

#include "sim/assert.h"

namespace elasticjob {

namespace {

// shardingAliquot: instance k of the list gets [k*per, (k+1)*per), per = total / n.
ShardingResult shardingAliquot(const std::vector<JobInstance>& shardingUnits, int shardingTotalCount) {
  ELECTSIM_ASSERT(!shardingUnits.empty());
  const int unitCount = static_cast<int>(shardingUnits.size());
  const int itemCountPerSharding = shardingTotalCount / unitCount;
  ShardingResult result;
  result.reserve(shardingUnits.size());
  for (int count = 0; count < unitCount; count++) {
    std::vector<int> shardingItems;
    shardingItems.reserve(static_cast<std::size_t>(itemCountPerSharding) + 1);  // room for an aliquant item
    for (int item = count * itemCountPerSharding; item < (count + 1) * itemCountPerSharding; item++) shardingItems.push_back(item);
    result.push_back({shardingUnits[static_cast<std::size_t>(count)], std::move(shardingItems)});
  }
  return result;
}

// addAliquant: the total % n highest items, one each to the first entries of the (ordered) map.
void addAliquant(const std::vector<JobInstance>& shardingUnits, int shardingTotalCount, ShardingResult& shardingResults) {
  const int unitCount = static_cast<int>(shardingUnits.size());
  const int aliquant = shardingTotalCount % unitCount;
  ELECTSIM_ASSERT(aliquant < unitCount);
  ELECTSIM_ASSERT(shardingResults.size() == shardingUnits.size());
  for (int count = 0; count < aliquant; count++) {
    shardingResults[static_cast<std::size_t>(count)].items.push_back(shardingTotalCount / unitCount * unitCount + count);
  }
}

}  // namespace

ShardingResult AverageAllocationJobShardingStrategy::allocate(const std::vector<JobInstance>& shardingUnits, int shardingTotalCount) {
  ELECTSIM_ASSERT(shardingTotalCount >= 0);
  if (shardingUnits.empty()) return {};  // Collections.emptyMap()
  ShardingResult result = shardingAliquot(shardingUnits, shardingTotalCount);
  addAliquant(shardingUnits, shardingTotalCount, result);
  return result;
}

ShardingResult AverageAllocationJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string&,
                                                                  int shardingTotalCount, const ShardingResult*) const {
  return allocate(jobInstances, shardingTotalCount);
}

}  // namespace elasticjob
