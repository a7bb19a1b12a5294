// A job instance as ElasticJob names it: org.apache.shardingsphere.elasticjob.infra.handler.sharding.JobInstance
// (3.0.4). The id is "ip@-@pid"; equality and hashing use the id only (Lombok
// @EqualsAndHashCode(of = "jobInstanceId")), so that is all a sharding strategy ever looks at.
//
// Simplifications: the Java class also carries `labels` (nullable, unused by every strategy) and a
// `serverIp` field. Since 3.0.3 that field is read back from the instance znode, where the instance
// itself wrote its own IP, which is the part of its id before "@-@"; getServerIp() derives it so.
//
// The order matters: ShardingService hands a strategy the list InstanceService.getAvailableJobInstances()
// built from ZookeeperRegistryCenter.getChildrenKeys, which sorts the children in DESCENDING string
// order (Comparator.reverseOrder()), then drops instances whose server is not ENABLED. So with the
// default strategy the instance with the greatest id string gets item 0 (and "10.0.0.9" sorts above
// "10.0.0.10"). sortLikeGetChildrenKeys reproduces that order for the model.
#pragma once

#include <compare>
#include <string>
#include <string_view>
#include <vector>

namespace elasticjob {

struct JobInstance {
  // JobInstance.DELIMITER.
  static constexpr std::string_view DELIMITER = "@-@";

  std::string jobInstanceId;

  explicit JobInstance(std::string id) : jobInstanceId(std::move(id)) {}

  // The part before the first "@-@" (Java: jobInstanceId.split("@-@")[0]); the whole id when it has
  // no delimiter, which a real instance never does.
  std::string_view getServerIp() const;

  friend bool operator==(const JobInstance&, const JobInstance&) = default;
  friend std::strong_ordering operator<=>(const JobInstance&, const JobInstance&) = default;
};

// True when `id` looks like ElasticJob's "ip@-@pid": a delimiter with something on both sides.
bool isWellFormedJobInstanceId(std::string_view id);

// Sorts as ZookeeperRegistryCenter.getChildrenKeys does: descending string order. Java compares
// UTF-16 code units and we compare bytes; the two orders agree for ASCII ids (all real ones).
void sortLikeGetChildrenKeys(std::vector<JobInstance>& jobInstances);

}  // namespace elasticjob
