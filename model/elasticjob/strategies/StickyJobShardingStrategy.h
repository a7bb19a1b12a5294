// electsim's "sticky" strategy (no ElasticJob counterpart; the idea of Kafka's StickyAssignor): it
// reads `previous`, the assignment currently in ZooKeeper (sharding/{item}/instance), and
//  1. keeps every item on its previous owner while that owner is still in the list and the item
//     still exists (item < shardingTotalCount);
//  2. picks the balanced target loads closest to the kept ones: every instance gets total / n, and
//     the total % n extra items go to the instances that keep the most (ties: list order);
//  3. takes the surplus (the highest-numbered items) from instances above their target and, with the
//     orphaned items (owner gone, or new items), gives them in ascending order to the instances
//     below target, in list order.
// So loads differ by at most one, and no balanced assignment moves fewer items: each instance above
// its target must lose at least the surplus, and step 2 minimises the total surplus. From a balanced
// previous assignment a leave moves exactly the leaver's items, and a join exactly
// total / (n+1) items (what the newcomer must receive).
// When nothing is kept (no previous assignment, or none of its owners is left) there is nothing to
// preserve and the result is AverageAllocationJobShardingStrategy's, so a fresh job looks as it does
// in ElasticJob, low items on the first instances included.
// Cost: O(previous items + total + n log n).
#pragma once

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class StickyJobShardingStrategy final : public JobShardingStrategy {
 public:
  std::string_view name() const override { return "sticky"; }
  std::string_view javaType() const override { return ""; }
  std::string_view description() const override {
    return "keeps items on their previous owners, moves the fewest needed to balance within one; else average";
  }
  bool usesPrevious() const override { return true; }

 protected:
  ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                              int shardingTotalCount, const ShardingResult* previous) const override;
};

}  // namespace elasticjob
