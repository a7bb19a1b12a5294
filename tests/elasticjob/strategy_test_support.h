// Helpers shared by the strategy tests: building instance lists and reading results.
#pragma once

#include <initializer_list>
#include <map>
#include <string>
#include <vector>

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob::testing {

inline std::vector<JobInstance> instances(std::initializer_list<const char*> ids) {
  std::vector<JobInstance> result;
  for (const char* id : ids) result.emplace_back(id);
  return result;
}

// "host0@-@0", "host1@-@0", ...: the ids ElasticJob's own strategy tests use.
inline std::vector<JobInstance> hosts(int count) {
  std::vector<JobInstance> result;
  for (int k = 0; k < count; k++) result.emplace_back("host" + std::to_string(k) + "@-@0");
  return result;
}

// The expected result, in map order.
inline ShardingResult expected(std::initializer_list<std::pair<const char*, std::vector<int>>> entries) {
  ShardingResult result;
  for (const auto& [id, items] : entries) result.push_back({JobInstance(id), items});
  return result;
}

// Owner id of each item.
inline std::map<int, std::string> ownerByItem(const ShardingResult& result) {
  std::map<int, std::string> owners;
  for (const InstanceItems& entry : result) {
    for (int item : entry.items) owners.emplace(item, entry.instance.jobInstanceId);
  }
  return owners;
}

// Items whose owner differs between `before` and `after`, over the items present in both.
inline int movedItems(const ShardingResult& before, const ShardingResult& after) {
  const std::map<int, std::string> ownersBefore = ownerByItem(before);
  int moved = 0;
  for (const auto& [item, owner] : ownerByItem(after)) {
    auto found = ownersBefore.find(item);
    if (found != ownersBefore.end() && found->second != owner) moved++;
  }
  return moved;
}

}  // namespace elasticjob::testing
