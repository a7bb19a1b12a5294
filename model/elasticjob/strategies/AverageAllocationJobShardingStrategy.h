// ElasticJob's default strategy, AverageAllocationJobShardingStrategy (type AVG_ALLOCATION, 3.0.4).
//
// Each instance, in list order, gets a block of shardingTotalCount / n consecutive items; then the
// shardingTotalCount % n left-over items (the "aliquant", the highest-numbered ones) go one each to
// the first instances of the list. The Javadoc's examples, servers numbered in list order:
//   3 servers,  9 items: 1=[0,1,2]    2=[3,4,5]  3=[6,7,8]
//   3 servers,  8 items: 1=[0,1,6]    2=[2,3,7]  3=[4,5]
//   3 servers, 10 items: 1=[0,1,2,9]  2=[3,4,5]  3=[6,7,8]
// Because the list arrives in the same (descending id) order for every job, the same instances get
// the low items of every job, and removing one instance shifts the blocks of all those after it.
#pragma once

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class AverageAllocationJobShardingStrategy final : public JobShardingStrategy {
 public:
  std::string_view name() const override { return "average"; }
  std::string_view javaType() const override { return "AVG_ALLOCATION"; }
  std::string_view description() const override {
    return "ElasticJob's default: consecutive blocks in list order, the remainder one each to the first instances";
  }

  // The allocation itself, shared with the strategies that reorder the list and then delegate to it
  // (OdevitySortByName, RoundRobinByName, and sticky when nothing is kept).
  static ShardingResult allocate(const std::vector<JobInstance>& shardingUnits, int shardingTotalCount);

 protected:
  ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                              int shardingTotalCount, const ShardingResult* previous) const override;
};

}  // namespace elasticjob
