// ElasticJob's RoundRobinByNameJobShardingStrategy (type ROUND_ROBIN, 3.0.4), "rotate" on electsim's
// command line. Its test is still called RotateServerByNameJobShardingStrategyTest (the 2.x class
// name, RotateServerByNameJobShardingStrategy, which the alias below keeps greppable).
//
// offset = Math.abs(jobName.hashCode()) % n; with offset 0 the list is used as given, otherwise
// position i of the new list is instance (i + offset) % n of the old one: the list rotated left by
// offset. Then AverageAllocationJobShardingStrategy. Tests from ElasticJob, [host0, host1, host2],
// 2 items: "1" (49 % 3 = 1) gives host1=[0], host2=[1], host0=[]; "2" (50 % 3 = 2) gives host2=[0],
// host0=[1], host1=[]; "3" (51 % 3 = 0) gives host0=[0], host1=[1], host2=[].
//
// Java's int arithmetic is reproduced, including its failure. Math.abs(Integer.MIN_VALUE) is
// Integer.MIN_VALUE, and Java's % keeps the dividend's sign, so for a job name whose hashCode() is
// MIN_VALUE ("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES") the offset is MIN_VALUE % n:
// 0 when n is a power of two (no rotation), negative otherwise (n=3: -2, n=5: -3, n=6: -2). The
// first lookup is then shardingUnits.get(offset % n) = get(offset), a negative index, and the list
// (a LinkedList in ShardingService) throws IndexOutOfBoundsException "Index: -2, Size: 3". Here that
// is a ShardingStrategyFailure. In ElasticJob it escapes ShardingService.shardingIfNecessary after
// every sharding/{item}/instance was deleted: no item has an owner until the instance count becomes a
// power of two. An empty list divides by zero (ArithmeticException) in Java; ShardingService never
// passes one, but a direct call here fails the same way.
#pragma once

#include "model/elasticjob/strategies/JobShardingStrategy.h"

namespace elasticjob {

class RoundRobinByNameJobShardingStrategy final : public JobShardingStrategy {
 public:
  std::string_view name() const override { return "rotate"; }
  std::string_view javaType() const override { return "ROUND_ROBIN"; }
  std::string_view description() const override {
    return "ElasticJob: rotates the list by Math.abs(hashCode) % n, then average (throws when hashCode is MIN_VALUE and the instance count is not a power of two)";
  }

  // Java's `Math.abs(jobName.hashCode()) % shardingUnitsSize`; negative for MIN_VALUE hashes unless
  // the size is a power of two. `shardingUnitsSize` > 0.
  static int offsetFor(std::string_view jobName, int shardingUnitsSize);

 protected:
  ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                              int shardingTotalCount, const ShardingResult* previous) const override;
};

// The class's 2.x name, still the name of its 3.0.4 test.
using RotateServerByNameJobShardingStrategy = RoundRobinByNameJobShardingStrategy;

}  // namespace elasticjob
