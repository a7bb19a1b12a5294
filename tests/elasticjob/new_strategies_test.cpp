// electsim's own strategies: consistent-hash, rendezvous, sticky. Examples here; the general
// claims (coverage, minimal movement) are RapidCheck properties in strategy_properties_test.cpp.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "model/elasticjob/strategies/ConsistentHashJobShardingStrategy.h"
#include "model/elasticjob/strategies/RendezvousJobShardingStrategy.h"
#include "model/elasticjob/strategies/StickyJobShardingStrategy.h"
#include "tests/elasticjob/strategy_test_support.h"

namespace {

using namespace elasticjob;
using elasticjob::testing::expected;
using elasticjob::testing::hosts;
using elasticjob::testing::movedItems;
using elasticjob::testing::ownerByItem;

const AverageAllocationJobShardingStrategy average;
const ConsistentHashJobShardingStrategy consistentHash;
const RendezvousJobShardingStrategy rendezvous;
const StickyJobShardingStrategy sticky;

std::vector<std::size_t> loads(const ShardingResult& result) {
  std::vector<std::size_t> sizes;
  for (const InstanceItems& entry : result) sizes.push_back(entry.items.size());
  return sizes;
}

// --- consistent-hash and rendezvous: behaviour shared by both ---------------------------------------

class HashingStrategy : public ::testing::TestWithParam<const JobShardingStrategy*> {};

TEST_P(HashingStrategy, OwnersDoNotDependOnTheListOrder) {
  std::vector<JobInstance> list = hosts(7);
  const ShardingResult forward = GetParam()->sharding(list, "order-sync", 200);
  std::reverse(list.begin(), list.end());
  const ShardingResult backward = GetParam()->sharding(list, "order-sync", 200);
  EXPECT_EQ(ownerByItem(forward), ownerByItem(backward));
  EXPECT_EQ(backward.front().instance.jobInstanceId, "host6@-@0");  // entries follow the list
}

TEST_P(HashingStrategy, ALeaveMovesOnlyTheLeaversItems) {
  const std::vector<JobInstance> list = hosts(10);
  const ShardingResult before = GetParam()->sharding(list, "order-sync", 1000);
  const std::vector<JobInstance> rest(list.begin(), list.end() - 1);
  const ShardingResult after = GetParam()->sharding(rest, "order-sync", 1000);
  const std::vector<int>& leaverItems = *findItems(before, "host9@-@0");
  EXPECT_GT(leaverItems.size(), 0u);
  EXPECT_EQ(movedItems(before, after), static_cast<int>(leaverItems.size()));
  const std::set<int> leaver(leaverItems.begin(), leaverItems.end());
  for (const auto& [item, owner] : ownerByItem(before)) {
    if (leaver.count(item) == 0) {
      EXPECT_EQ(ownerByItem(after).at(item), owner) << item;
    }
  }
}

TEST_P(HashingStrategy, AJoinMovesItemsOnlyToTheNewcomer) {
  std::vector<JobInstance> list = hosts(10);
  const ShardingResult before = GetParam()->sharding(list, "order-sync", 1000);
  list.emplace_back("host10@-@0");
  const ShardingResult after = GetParam()->sharding(list, "order-sync", 1000);
  const std::map<int, std::string> ownersBefore = ownerByItem(before);
  int moved = 0;
  for (const auto& [item, owner] : ownerByItem(after)) {
    if (owner == ownersBefore.at(item)) continue;
    EXPECT_EQ(owner, "host10@-@0");
    moved++;
  }
  EXPECT_EQ(static_cast<std::size_t>(moved), findItems(after, "host10@-@0")->size());
  EXPECT_GT(moved, 40);   // about 1000/11 = 91
  EXPECT_LT(moved, 180);
}

TEST_P(HashingStrategy, ItemZeroOfDifferentJobsLandsOnDifferentInstances) {
  std::set<std::string> owners;
  for (int job = 0; job < 100; job++) {
    owners.insert(ownerByItem(GetParam()->sharding(hosts(10), "job-" + std::to_string(job), 8)).at(0));
  }
  EXPECT_GE(owners.size(), 8u);  // average gives 1
}

TEST_P(HashingStrategy, RoughlyBalancedWithManyItems) {
  const std::vector<std::size_t> sizes = loads(GetParam()->sharding(hosts(10), "order-sync", 10000));
  EXPECT_GT(*std::min_element(sizes.begin(), sizes.end()), 700u);  // mean 1000
  EXPECT_LT(*std::max_element(sizes.begin(), sizes.end()), 1300u);
}

TEST_P(HashingStrategy, EmptyListAndZeroItems) {
  EXPECT_TRUE(GetParam()->sharding({}, "j", 5).empty());
  EXPECT_EQ(GetParam()->sharding(hosts(2), "j", 0), expected({{"host0@-@0", {}}, {"host1@-@0", {}}}));
}

INSTANTIATE_TEST_SUITE_P(NewStrategies, HashingStrategy, ::testing::Values(&consistentHash, &rendezvous),
                         [](const auto& info) { return info.param == &rendezvous ? "Rendezvous" : "ConsistentHash"; });

TEST(ConsistentHash, GoldenAssignment) {
  // Pinned: if this changes, recorded runs that use the strategy stop replaying.
  EXPECT_EQ(consistentHash.sharding(hosts(3), "order-sync", 8), expected({{"host0@-@0", {3, 4}}, {"host1@-@0", {1, 2, 5, 7}}, {"host2@-@0", {0, 6}}}));
}

TEST(Rendezvous, GoldenAssignment) {
  // Pinned, as above.
  EXPECT_EQ(rendezvous.sharding(hosts(3), "order-sync", 8), expected({{"host0@-@0", {2, 4, 5}}, {"host1@-@0", {6}}, {"host2@-@0", {0, 1, 3, 7}}}));
}

// --- sticky --------------------------------------------------------------------------------------

TEST(Sticky, WithoutAPreviousAssignmentItIsAverage) {
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 8), average.sharding(hosts(3), "j", 8));
  const ShardingResult nobodyLeft = expected({{"gone@-@1", {0, 1, 2, 3, 4, 5, 6, 7}}});
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 8, &nobodyLeft), average.sharding(hosts(3), "j", 8));
  const ShardingResult empty;
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 8, &empty), average.sharding(hosts(3), "j", 8));
}

TEST(Sticky, AnUnchangedClusterKeepsItsAssignment) {
  const ShardingResult current = expected({{"host0@-@0", {2, 5, 7}}, {"host1@-@0", {0, 3, 6}}, {"host2@-@0", {1, 4}}});
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 8, &current), current);
}

TEST(Sticky, ALeaveMovesOnlyTheLeaversItems) {
  // average: host0=[0,1,6] host1=[2,3,7] host2=[4,5]. host2 leaves: its two items go one each to
  // the two survivors, which are then at 4 each.
  const ShardingResult before = sticky.sharding(hosts(3), "j", 8);
  EXPECT_EQ(sticky.sharding(hosts(2), "j", 8, &before), expected({{"host0@-@0", {0, 1, 4, 6}}, {"host1@-@0", {2, 3, 5, 7}}}));
  // ElasticJob's average moves 5 here (host0=[0..3], host1=[4..7]): items 2 to 6, instead of 4 and 5.
  EXPECT_EQ(movedItems(before, average.sharding(hosts(2), "j", 8)), 5);
}

TEST(Sticky, AJoinTakesTheFewestItemsFromTheMostLoaded) {
  // 3 instances, 8 items: loads 3, 3, 2. A fourth joins: targets 2, 2, 2, 2, so host0 and host1
  // give up their highest item each, and the newcomer gets them.
  const ShardingResult before = sticky.sharding(hosts(3), "j", 8);
  const ShardingResult after = sticky.sharding(hosts(4), "j", 8, &before);
  EXPECT_EQ(after, expected({{"host0@-@0", {0, 1}}, {"host1@-@0", {2, 3}}, {"host2@-@0", {4, 5}}, {"host3@-@0", {6, 7}}}));
  EXPECT_EQ(movedItems(before, after), 8 / 4);
}

TEST(Sticky, BalancesAnUnevenPreviousWithTheFewestMoves) {
  // Kept loads 6, 1, 1 for 8 items: the two extra slots go to the most loaded, then to host1 (list
  // order), so targets are 3, 3, 2 and host0 gives up exactly 3 items, its highest: 3, 4, 5.
  const ShardingResult uneven = expected({{"host0@-@0", {0, 1, 2, 3, 4, 5}}, {"host1@-@0", {6}}, {"host2@-@0", {7}}});
  const ShardingResult after = sticky.sharding(hosts(3), "j", 8, &uneven);
  EXPECT_EQ(after, expected({{"host0@-@0", {0, 1, 2}}, {"host1@-@0", {3, 4, 6}}, {"host2@-@0", {5, 7}}}));
  EXPECT_EQ(movedItems(uneven, after), 3);
}

TEST(Sticky, TheItemCountChanges) {
  const ShardingResult before = sticky.sharding(hosts(3), "j", 8);  // [0,1,6] [2,3,7] [4,5]
  // Shrink to 6: items 6 and 7 vanish; loads 2, 2, 2 already.
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 6, &before), expected({{"host0@-@0", {0, 1}}, {"host1@-@0", {2, 3}}, {"host2@-@0", {4, 5}}}));
  // Grow to 10: the new items 8 and 9 go to the instances below target, in list order.
  EXPECT_EQ(sticky.sharding(hosts(3), "j", 10, &before),
            expected({{"host0@-@0", {0, 1, 6, 8}}, {"host1@-@0", {2, 3, 7}}, {"host2@-@0", {4, 5, 9}}}));
}

}  // namespace
