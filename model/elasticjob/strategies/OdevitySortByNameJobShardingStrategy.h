// ElasticJob's OdevitySortByNameJobShardingStrategy (type ODEVITY, 3.0.4).
//
// It widens the job name's Java String.hashCode() to long and, when that is EVEN (h % 2 == 0),
// reverses the instance list (Collections.reverse, in place on the caller's list in Java); an odd
// hash keeps the list. Then AverageAllocationJobShardingStrategy. A negative odd hash gives h % 2 ==
// -1 and counts as odd, as in Java.
//
// The Javadoc says "IP address asc if job name' hashcode is odd; desc if even", which is only true
// if the list were ascending. ElasticJob passes it DESCENDING (see JobInstance.h), so in a real
// cluster an odd hash keeps descending order and an even hash gives ascending order. ElasticJob's
// own test pins the code, not the comment: job "0" (hashCode 48, even) with [host0, host1, host2]
// and 2 items gives host2=[0], host1=[1], host0=[]; job "1" (49, odd) gives host0=[0], host1=[1].
// Either way a job gets only two possible layouts, so the low items land on two instances at most.
#pragma once

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class OdevitySortByNameJobShardingStrategy final : public JobShardingStrategy {
 public:
  std::string_view name() const override { return "odevity"; }
  std::string_view javaType() const override { return "ODEVITY"; }
  std::string_view description() const override {
    return "ElasticJob: reverses the list when the job name's Java hashCode is even, then average";
  }

  // True when the strategy reverses the list for this job name.
  static bool reversesFor(std::string_view jobName);

 protected:
  ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                              int shardingTotalCount, const ShardingResult* previous) const override;
};

}  // namespace elasticjob
