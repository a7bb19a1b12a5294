// The sharding strategy interface, after ElasticJob's
// org.apache.shardingsphere.elasticjob.infra.handler.sharding.JobShardingStrategy (3.0.4):
//   Map<JobInstance, List<Integer>> sharding(List<JobInstance> jobInstances, String jobName, int shardingTotalCount)
// plus the registry of the strategies electsim knows (ElasticJob's three and three of our own).
//
// The Java result is a LinkedHashMap, and ShardingService walks it in insertion order when it writes
// sharding/{item}/instance, so ShardingResult is an ordered list, one entry per instance, an entry
// present even when its item list is empty.
#pragma once

#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "model/elasticjob/strategies/JobInstance.h"

namespace elasticjob {

struct InstanceItems {
  JobInstance instance;
  std::vector<int> items;  // ascending for every strategy here

  friend bool operator==(const InstanceItems&, const InstanceItems&) = default;
};

// Entries in the order of the Java LinkedHashMap (for ElasticJob's strategies: the order of the list
// that AverageAllocationJobShardingStrategy received, after any reverse or rotation).
using ShardingResult = std::vector<InstanceItems>;

// The items of `jobInstanceId` in `result`, or nullptr when it has no entry.
const std::vector<int>* findItems(const ShardingResult& result, std::string_view jobInstanceId);

// What the Java strategy would throw. RoundRobinByNameJobShardingStrategy throws
// IndexOutOfBoundsException when the job name's hashCode() is Integer.MIN_VALUE and the instance
// count is not a power of two, and ArithmeticException for an empty list. In ElasticJob the
// exception escapes ShardingService.shardingIfNecessary after the old owners were already deleted;
// the model must let it do the same. The message starts with the Java exception's toString().
class ShardingStrategyFailure : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class JobShardingStrategy {
 public:
  virtual ~JobShardingStrategy() = default;

  // The name used on the command line and in scenario files ("average", "sticky", ...).
  virtual std::string_view name() const = 0;
  // ElasticJob's SPI type (TypedSPI.getType(), e.g. "AVG_ALLOCATION"); empty for electsim's own.
  virtual std::string_view javaType() const = 0;
  // One line for `electsim strategies`.
  virtual std::string_view description() const = 0;
  // True when the strategy reads `previous` (only "sticky").
  virtual bool usesPrevious() const { return false; }

  // JobShardingStrategy.sharding. `jobInstances` in the order ElasticJob would pass them (see
  // JobInstance.h), ids distinct; `shardingTotalCount` >= 0; `previous` is the assignment currently
  // in ZooKeeper, each item at most once (items >= shardingTotalCount are allowed: the count shrank).
  // With at least one instance, every item 0..shardingTotalCount-1 appears exactly once and every
  // instance has an entry. With none, the result is empty (ElasticJob's strategies return an empty
  // map; ShardingService never calls a strategy with an empty list). Throws ShardingStrategyFailure
  // where the Java strategy throws.
  //
  // Non-virtual so that these checks run around every strategy (TIGER_STYLE: assert arguments and
  // results); a strategy implements shardingImpl.
  ShardingResult sharding(const std::vector<JobInstance>& jobInstances, const std::string& jobName, int shardingTotalCount,
                          const ShardingResult* previous = nullptr) const;

 protected:
  virtual ShardingResult shardingImpl(const std::vector<JobInstance>& jobInstances, const std::string& jobName,
                                      int shardingTotalCount, const ShardingResult* previous) const = 0;
};

// Every strategy, ElasticJob's three first, in the order `electsim strategies` lists them.
std::span<const JobShardingStrategy* const> allStrategies();

// By command-line name; nullptr when unknown.
const JobShardingStrategy* findStrategy(std::string_view name);

// By ElasticJob type, as JobShardingStrategyFactory.getStrategy(type) does: an empty type gives the
// default AVG_ALLOCATION; nullptr when unknown (Java throws JobConfigurationException there).
const JobShardingStrategy* findStrategyByJavaType(std::string_view type);

}  // namespace elasticjob
