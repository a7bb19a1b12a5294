#include "model/elasticjob/strategies/StickyJobShardingStrategy.h"

#include <algorithm>
#include <iterator>
#include <map>
#include <numeric>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "sim/assert.h"

namespace elasticjob {

namespace {

constexpr int no_owner = -1;

// Step 1: owner (index into jobInstances) of each item 0..total-1 that stays where it was.
std::vector<int> keptOwners(const std::vector<JobInstance>& jobInstances, int shardingTotalCount, const ShardingResult& previous) {
  std::map<std::string_view, int> indexById;
  for (std::size_t index = 0; index < jobInstances.size(); index++) {
    indexById.emplace(jobInstances[index].jobInstanceId, static_cast<int>(index));
  }
  std::vector<int> owners(static_cast<std::size_t>(shardingTotalCount), no_owner);
  for (const InstanceItems& entry : previous) {
    auto found = indexById.find(entry.instance.jobInstanceId);
    if (found == indexById.end()) continue;  // the owner left: its items are orphans
    for (int item : entry.items) {
      ELECTSIM_ASSERT(item >= 0);
      if (item >= shardingTotalCount) continue;  // the count shrank: the item no longer exists
      ELECTSIM_ASSERT(owners[static_cast<std::size_t>(item)] == no_owner);
      owners[static_cast<std::size_t>(item)] = found->second;
    }
  }
  return owners;
}

// Step 2: target loads, total/n each, the total%n extras to the instances that keep the most.
std::vector<int> targetLoads(const std::vector<std::vector<int>>& kept, int shardingTotalCount) {
  const int instanceCount = static_cast<int>(kept.size());
  std::vector<int> byKeptDescending(kept.size());
  std::iota(byKeptDescending.begin(), byKeptDescending.end(), 0);
  // Most kept first, ties in list order: std::sort with the index as tie-break gives stable_sort's
  // order without its temporary buffer (nothrow new, which the engine's allocation counter in
  // sim/frame_pool.cpp does not replace; ASan then reports a new/free mismatch).
  std::sort(byKeptDescending.begin(), byKeptDescending.end(), [&kept](int left, int right) {
    if (kept[left].size() != kept[right].size()) return kept[left].size() > kept[right].size();
    return left < right;
  });
  std::vector<int> targets(kept.size(), shardingTotalCount / instanceCount);
  for (int rank = 0; rank < shardingTotalCount % instanceCount; rank++) targets[byKeptDescending[rank]]++;
  return targets;
}

}  // namespace

ShardingResult StickyJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string&,
                                                       int shardingTotalCount, const ShardingResult* previous) const {
  if (jobInstances.empty()) return {};
  if (previous == nullptr) return AverageAllocationJobShardingStrategy::allocate(jobInstances, shardingTotalCount);
  const std::vector<int> owners = keptOwners(jobInstances, shardingTotalCount, *previous);
  std::vector<std::vector<int>> kept(jobInstances.size());
  std::vector<int> pool;  // items to hand out, orphans first
  for (int item = 0; item < shardingTotalCount; item++) {
    const int owner = owners[static_cast<std::size_t>(item)];
    if (owner == no_owner) {
      pool.push_back(item);
    } else {
      kept[static_cast<std::size_t>(owner)].push_back(item);  // ascending
    }
  }
  if (pool.size() == static_cast<std::size_t>(shardingTotalCount)) {
    return AverageAllocationJobShardingStrategy::allocate(jobInstances, shardingTotalCount);  // nothing kept
  }
  const std::vector<int> targets = targetLoads(kept, shardingTotalCount);
  ELECTSIM_ASSERT(std::accumulate(targets.begin(), targets.end(), 0) == shardingTotalCount);
  // Step 3: take the surplus, highest items first, then fill those below target in list order.
  for (std::size_t index = 0; index < kept.size(); index++) {
    while (static_cast<int>(kept[index].size()) > targets[index]) {
      pool.push_back(kept[index].back());
      kept[index].pop_back();
    }
  }
  std::sort(pool.begin(), pool.end());
  std::size_t next = 0;
  for (std::size_t index = 0; index < kept.size(); index++) {
    const std::size_t missing = static_cast<std::size_t>(targets[index]) - kept[index].size();
    ELECTSIM_ASSERT(next + missing <= pool.size());
    if (missing == 0) continue;
    std::vector<int> merged;  // both runs ascending (std::merge, not inplace_merge: see targetLoads)
    merged.reserve(kept[index].size() + missing);
    std::merge(kept[index].begin(), kept[index].end(), pool.begin() + static_cast<std::ptrdiff_t>(next),
               pool.begin() + static_cast<std::ptrdiff_t>(next + missing), std::back_inserter(merged));
    kept[index] = std::move(merged);
    next += missing;
  }
  ELECTSIM_ASSERT(next == pool.size());
  ShardingResult result;
  result.reserve(jobInstances.size());
  for (std::size_t index = 0; index < jobInstances.size(); index++) result.push_back({jobInstances[index], std::move(kept[index])});
  return result;
}

}  // namespace elasticjob
