// electsim's "rendezvous" strategy (highest random weight hashing; Thaler and Ravishankar, 1996; no
// ElasticJob counterpart): item i of job J goes to the instance with the highest
// weight(J, i, instance id); equal weights (possible, never seen) go to the smaller id. A weight
// depends on nothing but those three, so:
//  - a leave moves exactly the leaver's items (each to its second-highest instance);
//  - a join moves only the items for which the newcomer now has the highest weight, about
//    total/(n+1) of them;
//  - item 0 of different jobs lands on different instances.
// Balance is that of throwing total balls into n bins (uneven for few items), and the cost is
// O(n) per item, O(n * total) a call, the slowest of the strategies for large clusters.
#pragma once

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class RendezvousJobShardingStrategy final : public JobShardingStrategy {
 public:
  std::string_view name() const override { return "rendezvous"; }
  std::string_view javaType() const override { return ""; }
  std::string_view description() const override {
    return "highest random weight: each item goes to the instance with the highest hash(job, item, instance)";
  }

 protected:
  ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                              int shardingTotalCount, const ShardingResult* previous) const override;
};

}  // namespace elasticjob
