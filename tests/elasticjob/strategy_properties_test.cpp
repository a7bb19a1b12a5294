// RapidCheck properties of every strategy: coverage for any instance list, job name and item count;
// minimal movement for sticky; only the leaver's items move for consistent-hash and rendezvous.
#include <gtest/gtest.h>
// rapidcheck/gtest.h needs gtest.h first.
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <limits>

#include "model/elasticjob/strategies/JavaString.h"
#include "model/elasticjob/strategies/JobShardingStrategy.h"
#include "model/elasticjob/strategies/RoundRobinByNameJobShardingStrategy.h"
#include "tests/elasticjob/strategy_test_support.h"

namespace {

using namespace elasticjob;
using elasticjob::testing::movedItems;
using elasticjob::testing::ownerByItem;

constexpr std::size_t instances_max = 50;
constexpr int items_max = 500;

// 1..50 distinct ids "ip@-@pid", with arbitrary bytes on both sides.
std::vector<JobInstance> genInstances() {
  const auto ids = *rc::gen::unique<std::vector<std::string>>(
      rc::gen::map(rc::gen::pair(rc::gen::nonEmpty(rc::gen::string<std::string>()), rc::gen::inRange(0, 100000)),
                   [](const std::pair<std::string, int>& parts) { return parts.first + "@-@" + std::to_string(parts.second); }));
  std::vector<JobInstance> result;
  for (const std::string& id : ids) {
    if (result.size() == instances_max) break;
    result.emplace_back(id);
  }
  if (result.empty()) result.emplace_back("127.0.0.1@-@0");
  return result;
}

// Any string, sometimes one whose hashCode() is Integer.MIN_VALUE.
std::string genJobName() {
  return *rc::gen::weightedOneOf<std::string>(
      {{9, rc::gen::string<std::string>()}, {1, rc::gen::element<std::string>("polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES")}});
}

bool rotateThrows(const JobShardingStrategy& strategy, const std::string& jobName, std::size_t instanceCount) {
  if (strategy.javaType() != "ROUND_ROBIN") return false;
  return RoundRobinByNameJobShardingStrategy::offsetFor(jobName, static_cast<int>(instanceCount)) < 0;
}

// Every item 0..total-1 exactly once, only to listed instances, every instance exactly once.
void checkCoverage(const ShardingResult& result, const std::vector<JobInstance>& jobInstances, int total) {
  RC_ASSERT(result.size() == jobInstances.size());
  std::vector<std::string> listed, entries;
  for (const JobInstance& each : jobInstances) listed.push_back(each.jobInstanceId);
  std::vector<int> items;
  for (const InstanceItems& entry : result) {
    entries.push_back(entry.instance.jobInstanceId);
    RC_ASSERT(std::is_sorted(entry.items.begin(), entry.items.end()));
    items.insert(items.end(), entry.items.begin(), entry.items.end());
  }
  std::sort(listed.begin(), listed.end());
  std::sort(entries.begin(), entries.end());
  RC_ASSERT(entries == listed);
  std::sort(items.begin(), items.end());
  std::vector<int> all(static_cast<std::size_t>(total));
  for (int item = 0; item < total; item++) all[static_cast<std::size_t>(item)] = item;
  RC_ASSERT(items == all);
}

bool balanced(const ShardingResult& result) {
  std::size_t least = std::numeric_limits<std::size_t>::max(), most = 0;
  for (const InstanceItems& entry : result) {
    least = std::min(least, entry.items.size());
    most = std::max(most, entry.items.size());
  }
  return most - least <= 1;
}

RC_GTEST_PROP(StrategyProperties, EveryItemExactlyOnceToListedInstances, ()) {
  const std::vector<JobInstance> jobInstances = genInstances();
  const int total = *rc::gen::inRange(0, items_max + 1);
  const std::string jobName = genJobName();
  for (const JobShardingStrategy* strategy : allStrategies()) {
    if (rotateThrows(*strategy, jobName, jobInstances.size())) {
      RC_ASSERT(javaStringHashCode(jobName) == std::numeric_limits<std::int32_t>::min());
      RC_ASSERT_THROWS_AS((void)strategy->sharding(jobInstances, jobName, total), ShardingStrategyFailure);
      continue;
    }
    checkCoverage(strategy->sharding(jobInstances, jobName, total), jobInstances, total);
  }
}

RC_GTEST_PROP(StrategyProperties, ElasticJobsStrategiesAreBalanced, ()) {
  const std::vector<JobInstance> jobInstances = genInstances();
  const int total = *rc::gen::inRange(0, items_max + 1);
  const std::string jobName = *rc::gen::string<std::string>();
  for (const JobShardingStrategy* strategy : allStrategies()) {
    if (strategy->javaType().empty() || rotateThrows(*strategy, jobName, jobInstances.size())) continue;
    RC_ASSERT(balanced(strategy->sharding(jobInstances, jobName, total)));
  }
}

// A previous assignment as ZooKeeper could hold it: each item owned by a listed instance, a gone
// one, or nobody; some items beyond the current count.
ShardingResult genPrevious(const std::vector<JobInstance>& jobInstances) {
  const int previousTotal = *rc::gen::inRange(0, items_max + 1);
  ShardingResult previous;
  for (const JobInstance& each : jobInstances) previous.push_back({each, {}});
  previous.push_back({JobInstance("gone@-@1"), {}});
  const int ownerChoices = static_cast<int>(previous.size()) + 1;  // the last: unassigned
  for (int item = 0; item < previousTotal; item++) {
    const int owner = *rc::gen::inRange(0, ownerChoices);
    if (owner < static_cast<int>(previous.size())) previous[static_cast<std::size_t>(owner)].items.push_back(item);
  }
  return previous;
}

// The fewest items any balanced result must take from kept owners: give the total % n extra slots
// to the instances that keep the most; the rest is surplus.
int minimumTaken(const ShardingResult& previous, const std::vector<JobInstance>& jobInstances, int total) {
  std::vector<int> kept;
  for (const JobInstance& each : jobInstances) {
    const std::vector<int>* items = findItems(previous, each.jobInstanceId);
    kept.push_back(items == nullptr ? 0 : static_cast<int>(std::count_if(items->begin(), items->end(), [total](int item) { return item < total; })));
  }
  std::sort(kept.rbegin(), kept.rend());
  const int n = static_cast<int>(jobInstances.size());
  int taken = 0;
  for (int rank = 0; rank < n; rank++) taken += std::max(0, kept[static_cast<std::size_t>(rank)] - (total / n + (rank < total % n ? 1 : 0)));
  return taken;
}

RC_GTEST_PROP(StrategyProperties, StickyBalancesWithTheFewestMoves, ()) {
  const JobShardingStrategy& sticky = *findStrategy("sticky");
  const std::vector<JobInstance> jobInstances = genInstances();
  const int total = *rc::gen::inRange(0, items_max + 1);
  const ShardingResult previous = genPrevious(jobInstances);
  const ShardingResult after = sticky.sharding(jobInstances, "job", total, &previous);
  checkCoverage(after, jobInstances, total);
  RC_ASSERT(balanced(after));
  // Items that stayed on a listed owner move only if taken; moving between two listed owners is
  // all that counts as a move here (orphans have no listed owner to move from).
  int movedBetweenListed = 0;
  const auto ownersAfter = ownerByItem(after);
  for (const auto& [item, owner] : ownerByItem(previous)) {
    if (item >= total || findItems(after, owner) == nullptr) continue;
    if (ownersAfter.at(item) != owner) movedBetweenListed++;
  }
  RC_ASSERT(movedBetweenListed == minimumTaken(previous, jobInstances, total));
}

RC_GTEST_PROP(StrategyProperties, StickyMovesTheMinimumOnALeaveAndAJoin, ()) {
  const JobShardingStrategy& sticky = *findStrategy("sticky");
  std::vector<JobInstance> jobInstances = genInstances();
  RC_PRE(jobInstances.size() >= 2);
  const int total = *rc::gen::inRange(0, items_max + 1);
  const ShardingResult arbitrary = genPrevious(jobInstances);
  const ShardingResult current = sticky.sharding(jobInstances, "job", total, &arbitrary);  // any balanced state
  // Leave: any instance; exactly its items move.
  const std::size_t leaver = *rc::gen::inRange<std::size_t>(0, jobInstances.size());
  std::vector<JobInstance> rest = jobInstances;
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(leaver));
  const ShardingResult afterLeave = sticky.sharding(rest, "job", total, &current);
  const int leaverCount = static_cast<int>(findItems(current, jobInstances[leaver].jobInstanceId)->size());
  RC_ASSERT(movedItems(current, afterLeave) == leaverCount);
  // Join: exactly total / (n+1) items move, all to the newcomer.
  jobInstances.emplace_back("newcomer@-@1");
  const ShardingResult afterJoin = sticky.sharding(jobInstances, "job", total, &current);
  RC_ASSERT(movedItems(current, afterJoin) == total / static_cast<int>(jobInstances.size()));
  RC_ASSERT(static_cast<int>(findItems(afterJoin, "newcomer@-@1")->size()) == total / static_cast<int>(jobInstances.size()));
}

RC_GTEST_PROP(StrategyProperties, HashingStrategiesMoveOnlyTheLeaversItems, ()) {
  std::vector<JobInstance> jobInstances = genInstances();
  RC_PRE(jobInstances.size() >= 2);
  const int total = *rc::gen::inRange(0, items_max + 1);
  const std::string jobName = *rc::gen::string<std::string>();
  const std::size_t leaver = *rc::gen::inRange<std::size_t>(0, jobInstances.size());
  std::vector<JobInstance> rest = jobInstances;
  rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(leaver));
  for (const char* name : {"consistent-hash", "rendezvous"}) {
    const JobShardingStrategy& strategy = *findStrategy(name);
    const ShardingResult before = strategy.sharding(jobInstances, jobName, total);
    const ShardingResult afterLeave = strategy.sharding(rest, jobName, total);
    const int leaverCount = static_cast<int>(findItems(before, jobInstances[leaver].jobInstanceId)->size());
    RC_ASSERT(movedItems(before, afterLeave) == leaverCount);
    // The reverse, the same instance joining, moves exactly those items back to it.
    RC_ASSERT(movedItems(afterLeave, before) == leaverCount);
  }
}

}  // namespace
