#include "model/elasticjob/strategies/JobShardingStrategy.h"

#include <algorithm>
#include <array>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "model/elasticjob/strategies/ConsistentHashJobShardingStrategy.h"
#include "model/elasticjob/strategies/OdevitySortByNameJobShardingStrategy.h"
#include "model/elasticjob/strategies/RendezvousJobShardingStrategy.h"
#include "model/elasticjob/strategies/RoundRobinByNameJobShardingStrategy.h"
#include "model/elasticjob/strategies/StickyJobShardingStrategy.h"
#include "sim/assert.h"

namespace elasticjob {

namespace {

// Instance ids must be distinct: in ZooKeeper they are the children of /J/instances. (Java would
// not fail on a duplicate: LinkedHashMap.put would overwrite the first entry's items, losing them.)
std::vector<std::string_view> sortedIds(const std::vector<JobInstance>& jobInstances) {
  std::vector<std::string_view> ids;
  ids.reserve(jobInstances.size());
  for (const JobInstance& each : jobInstances) ids.push_back(each.jobInstanceId);
  std::sort(ids.begin(), ids.end());
  ELECTSIM_ASSERT_MSG(std::adjacent_find(ids.begin(), ids.end()) == ids.end(), "duplicate job instance id");
  return ids;
}

// `previous` as read from sharding/{item}/instance: one owner per item, no negative item.
void checkPrevious(const ShardingResult& previous) {
  std::vector<int> items;
  for (const InstanceItems& entry : previous) items.insert(items.end(), entry.items.begin(), entry.items.end());
  std::sort(items.begin(), items.end());
  ELECTSIM_ASSERT_MSG(items.empty() || items.front() >= 0, "negative item in the previous assignment");
  ELECTSIM_ASSERT_MSG(std::adjacent_find(items.begin(), items.end()) == items.end(), "item owned twice in the previous assignment");
}

// Every listed instance has exactly one entry and nothing else has one; every item is assigned once.
void checkResult(const ShardingResult& result, const std::vector<std::string_view>& ids, int shardingTotalCount) {
  ELECTSIM_ASSERT(result.size() == ids.size());
  std::vector<std::string_view> resultIds;
  resultIds.reserve(result.size());
  std::vector<bool> assigned(static_cast<std::size_t>(shardingTotalCount), false);
  std::size_t assignedCount = 0;
  for (const InstanceItems& entry : result) {
    resultIds.push_back(entry.instance.jobInstanceId);
    for (int item : entry.items) {
      ELECTSIM_ASSERT(item >= 0);
      ELECTSIM_ASSERT(item < shardingTotalCount);
      ELECTSIM_ASSERT(!assigned[static_cast<std::size_t>(item)]);
      assigned[static_cast<std::size_t>(item)] = true;
      assignedCount++;
    }
  }
  ELECTSIM_ASSERT(assignedCount == static_cast<std::size_t>(shardingTotalCount));
  std::sort(resultIds.begin(), resultIds.end());
  ELECTSIM_ASSERT(resultIds == ids);
}

}  // namespace

const std::vector<int>* findItems(const ShardingResult& result, std::string_view jobInstanceId) {
  for (const InstanceItems& entry : result) {
    if (entry.instance.jobInstanceId == jobInstanceId) return &entry.items;
  }
  return nullptr;
}

ShardingResult JobShardingStrategy::sharding(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                             int shardingTotalCount, const ShardingResult* previous) const {
  ELECTSIM_ASSERT(shardingTotalCount >= 0);
  const std::vector<std::string_view> ids = sortedIds(jobInstances);
  if (previous != nullptr) checkPrevious(*previous);
  ShardingResult result = shardingImpl(jobInstances, jobName, shardingTotalCount, previous);
  if (jobInstances.empty()) {
    ELECTSIM_ASSERT(result.empty());
  } else {
    checkResult(result, ids, shardingTotalCount);
  }
  return result;
}

std::span<const JobShardingStrategy* const> allStrategies() {
  static const AverageAllocationJobShardingStrategy average;
  static const OdevitySortByNameJobShardingStrategy odevity;
  static const RoundRobinByNameJobShardingStrategy rotate;
  static const ConsistentHashJobShardingStrategy consistentHash;
  static const RendezvousJobShardingStrategy rendezvous;
  static const StickyJobShardingStrategy sticky;
  static const std::array<const JobShardingStrategy*, 6> strategies{&average, &odevity, &rotate, &consistentHash, &rendezvous, &sticky};
  return strategies;
}

const JobShardingStrategy* findStrategy(std::string_view name) {
  for (const JobShardingStrategy* each : allStrategies()) {
    if (each->name() == name) return each;
  }
  return nullptr;
}

const JobShardingStrategy* findStrategyByJavaType(std::string_view type) {
  if (type.empty()) type = "AVG_ALLOCATION";  // JobShardingStrategyFactory's default
  for (const JobShardingStrategy* each : allStrategies()) {
    if (!each->javaType().empty() && each->javaType() == type) return each;
  }
  return nullptr;
}

}  // namespace elasticjob
