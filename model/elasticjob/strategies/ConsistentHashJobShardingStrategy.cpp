#include "model/elasticjob/strategies/ConsistentHashJobShardingStrategy.h"

#include <algorithm>
#include <cstdint>

#include "model/elasticjob/strategies/PortableHash.h"
#include "sim/assert.h"

namespace elasticjob {

namespace {

struct RingPoint {
  std::uint64_t position;
  std::uint32_t instanceIndex;  // into the caller's list
};

// The ring, sorted by position; equal positions (never seen with 64-bit hashes, but possible) are
// ordered by instance id so that the ring does not depend on the order of the list.
std::vector<RingPoint> buildRing(const std::vector<JobInstance>& jobInstances) {
  constexpr int points = ConsistentHashJobShardingStrategy::virtual_nodes_per_instance;
  std::vector<RingPoint> ring;
  ring.reserve(jobInstances.size() * points);
  for (std::size_t index = 0; index < jobInstances.size(); index++) {
    const std::uint64_t instanceHash = portable_hash::ofString(jobInstances[index].jobInstanceId);
    for (int virtualNode = 0; virtualNode < points; virtualNode++) {
      ring.push_back({portable_hash::ofVirtualNode(instanceHash, virtualNode), static_cast<std::uint32_t>(index)});
    }
  }
  std::sort(ring.begin(), ring.end(), [&jobInstances](const RingPoint& left, const RingPoint& right) {
    if (left.position != right.position) return left.position < right.position;
    return jobInstances[left.instanceIndex].jobInstanceId < jobInstances[right.instanceIndex].jobInstanceId;
  });
  return ring;
}

}  // namespace

ShardingResult ConsistentHashJobShardingStrategy::shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                                               int shardingTotalCount, const ShardingResult*) const {
  if (jobInstances.empty()) return {};
  const std::vector<RingPoint> ring = buildRing(jobInstances);
  ELECTSIM_ASSERT(ring.size() == jobInstances.size() * virtual_nodes_per_instance);
  ShardingResult result;
  result.reserve(jobInstances.size());
  for (const JobInstance& each : jobInstances) result.push_back({each, {}});
  const std::uint64_t jobHash = portable_hash::ofString(jobName);
  for (int item = 0; item < shardingTotalCount; item++) {
    const std::uint64_t position = portable_hash::ofItem(jobHash, item);
    auto successor = std::lower_bound(ring.begin(), ring.end(), position,
                                      [](const RingPoint& point, std::uint64_t value) { return point.position < value; });
    if (successor == ring.end()) successor = ring.begin();  // past the last point: wrap around
    result[successor->instanceIndex].items.push_back(item);  // items ascending: they come in order
  }
  return result;
}

}  // namespace elasticjob
