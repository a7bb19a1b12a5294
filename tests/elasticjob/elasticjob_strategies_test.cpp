// ElasticJob's three strategies, checked against ElasticJob 3.0.4's own unit tests
// (AverageAllocationJobShardingStrategyTest, OdevitySortByNameJobShardingStrategyTest,
// RotateServerByNameJobShardingStrategyTest), the examples in their Javadoc and user manual, and the
// Integer.MIN_VALUE edge of RoundRobinByNameJobShardingStrategy.
#include <gtest/gtest.h>

#include "model/elasticjob/strategies/AverageAllocationJobShardingStrategy.h"
#include "model/elasticjob/strategies/JavaString.h"
#include "model/elasticjob/strategies/OdevitySortByNameJobShardingStrategy.h"
#include "model/elasticjob/strategies/RoundRobinByNameJobShardingStrategy.h"
#include "sim/assert.h"
#include "tests/elasticjob/strategy_test_support.h"

namespace {

using namespace elasticjob;
using elasticjob::testing::expected;
using elasticjob::testing::hosts;
using elasticjob::testing::instances;

const AverageAllocationJobShardingStrategy average;
const OdevitySortByNameJobShardingStrategy odevity;
const RotateServerByNameJobShardingStrategy rotate;

// --- AverageAllocationJobShardingStrategyTest ----------------------------------------------------

TEST(AverageAllocation, ShardingForZeroServer) { EXPECT_TRUE(average.sharding({}, "test_job", 3).empty()); }

TEST(AverageAllocation, ShardingForOneServer) {
  EXPECT_EQ(average.sharding(hosts(1), "test_job", 3), expected({{"host0@-@0", {0, 1, 2}}}));
}

TEST(AverageAllocation, ShardingForServersMoreThanShardingCount) {
  // The third instance is in the map with an empty list.
  EXPECT_EQ(average.sharding(hosts(3), "test_job", 2), expected({{"host0@-@0", {0}}, {"host1@-@0", {1}}, {"host2@-@0", {}}}));
}

TEST(AverageAllocation, JavadocExamples) {
  EXPECT_EQ(average.sharding(hosts(3), "test_job", 9),
            expected({{"host0@-@0", {0, 1, 2}}, {"host1@-@0", {3, 4, 5}}, {"host2@-@0", {6, 7, 8}}}));
  EXPECT_EQ(average.sharding(hosts(3), "test_job", 8),
            expected({{"host0@-@0", {0, 1, 6}}, {"host1@-@0", {2, 3, 7}}, {"host2@-@0", {4, 5}}}));
  EXPECT_EQ(average.sharding(hosts(3), "test_job", 10),
            expected({{"host0@-@0", {0, 1, 2, 9}}, {"host1@-@0", {3, 4, 5}}, {"host2@-@0", {6, 7, 8}}}));
}

TEST(AverageAllocation, ZeroItemsGiveEveryInstanceAnEmptyList) {
  EXPECT_EQ(average.sharding(hosts(2), "test_job", 0), expected({{"host0@-@0", {}}, {"host1@-@0", {}}}));
}

TEST(AverageAllocation, MapOrderIsListOrder) {
  EXPECT_EQ(average.sharding(instances({"b@-@1", "c@-@1", "a@-@1"}), "j", 4),
            expected({{"b@-@1", {0, 3}}, {"c@-@1", {1}}, {"a@-@1", {2}}}));
}

TEST(AverageAllocation, WorkedExampleInTheOrderZooKeeperGivesTheChildren) {
  // Three instances registered in id order; getChildrenKeys hands them over descending, so the
  // highest id gets item 0 (the digest's end-to-end example).
  std::vector<JobInstance> children = instances({"10.0.0.1@-@100", "10.0.0.2@-@200", "10.0.0.3@-@300"});
  sortLikeGetChildrenKeys(children);
  EXPECT_EQ(average.sharding(children, "order-sync", 8),
            expected({{"10.0.0.3@-@300", {0, 1, 6}}, {"10.0.0.2@-@200", {2, 3, 7}}, {"10.0.0.1@-@100", {4, 5}}}));
  // String order, not numeric: "10.0.0.9" sorts above "10.0.0.10".
  children = instances({"10.0.0.10@-@1", "10.0.0.9@-@1"});
  sortLikeGetChildrenKeys(children);
  EXPECT_EQ(children.front().jobInstanceId, "10.0.0.9@-@1");
}

// --- OdevitySortByNameJobShardingStrategyTest ---------------------------------------------------

TEST(OdevitySortByName, ShardingByAscWhenTheHashIsOdd) {
  ASSERT_EQ(javaStringHashCode("1"), 49);
  EXPECT_FALSE(OdevitySortByNameJobShardingStrategy::reversesFor("1"));
  EXPECT_EQ(odevity.sharding(hosts(3), "1", 2), expected({{"host0@-@0", {0}}, {"host1@-@0", {1}}, {"host2@-@0", {}}}));
}

TEST(OdevitySortByName, ShardingByDescWhenTheHashIsEven) {
  ASSERT_EQ(javaStringHashCode("0"), 48);
  EXPECT_TRUE(OdevitySortByNameJobShardingStrategy::reversesFor("0"));
  // In Java's map order: the reversed list.
  EXPECT_EQ(odevity.sharding(hosts(3), "0", 2), expected({{"host2@-@0", {0}}, {"host1@-@0", {1}}, {"host0@-@0", {}}}));
}

TEST(OdevitySortByName, NegativeHashesKeepJavaParity) {
  // long h = hashCode(); h % 2 is -1 for a negative odd hash: not 0, so no reverse.
  ASSERT_EQ(javaStringHashCode("javaSimpleJob"), -694093655);
  EXPECT_FALSE(OdevitySortByNameJobShardingStrategy::reversesFor("javaSimpleJob"));
  ASSERT_EQ(javaStringHashCode("test_job"), -1146456432);
  EXPECT_TRUE(OdevitySortByNameJobShardingStrategy::reversesFor("test_job"));
  ASSERT_EQ(javaStringHashCode("myJob"), 104343153);
  EXPECT_FALSE(OdevitySortByNameJobShardingStrategy::reversesFor("myJob"));
  EXPECT_TRUE(OdevitySortByNameJobShardingStrategy::reversesFor("polygenelubricants"));  // MIN_VALUE is even
}

TEST(OdevitySortByName, ReverseThenAverage) {
  EXPECT_EQ(odevity.sharding(hosts(3), "test_job", 8),
            expected({{"host2@-@0", {0, 1, 6}}, {"host1@-@0", {2, 3, 7}}, {"host0@-@0", {4, 5}}}));
  EXPECT_EQ(odevity.sharding(hosts(3), "myJob", 8), average.sharding(hosts(3), "myJob", 8));
}

TEST(OdevitySortByName, ZeroServer) { EXPECT_TRUE(odevity.sharding({}, "0", 3).empty()); }

// --- RotateServerByNameJobShardingStrategyTest -----------------------------------------------------

TEST(RoundRobinByName, Sharding1) {
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("1", 3), 1);
  EXPECT_EQ(rotate.sharding(hosts(3), "1", 2), expected({{"host1@-@0", {0}}, {"host2@-@0", {1}}, {"host0@-@0", {}}}));
}

TEST(RoundRobinByName, Sharding2) {
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("2", 3), 2);
  EXPECT_EQ(rotate.sharding(hosts(3), "2", 2), expected({{"host2@-@0", {0}}, {"host0@-@0", {1}}, {"host1@-@0", {}}}));
}

TEST(RoundRobinByName, Sharding3) {
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("3", 3), 0);
  EXPECT_EQ(rotate.sharding(hosts(3), "3", 2), expected({{"host0@-@0", {0}}, {"host1@-@0", {1}}, {"host2@-@0", {}}}));
}

TEST(RoundRobinByName, OffsetsOfNegativeHashes) {
  // Math.abs(-1146456432) = 1146456432: % 3 = 0, % 5 = 2.
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("test_job", 3), 0);
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("test_job", 5), 2);
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("javaSimpleJob", 3), 2);
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("javaSimpleJob", 4), 3);
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("simple", 3), 2);
  EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor("myJob", 5), 3);
  EXPECT_EQ(rotate.sharding(hosts(5), "test_job", 5),
            expected({{"host2@-@0", {0}}, {"host3@-@0", {1}}, {"host4@-@0", {2}}, {"host0@-@0", {3}}, {"host1@-@0", {4}}}));
}

TEST(RoundRobinByName, MinValueHashGivesANegativeOffsetUnlessTheSizeIsAPowerOfTwo) {
  for (const char* name : {"polygenelubricants", "GydZG_", "DESIGNING WORKHOUSES"}) {
    ASSERT_EQ(javaStringHashCode(name), std::numeric_limits<std::int32_t>::min()) << name;
    EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor(name, 3), -2);
    EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor(name, 5), -3);
    EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor(name, 6), -2);
    EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor(name, 7), -2);
    for (int powerOfTwo : {1, 2, 4, 8, 16}) EXPECT_EQ(RoundRobinByNameJobShardingStrategy::offsetFor(name, powerOfTwo), 0);
  }
}

TEST(RoundRobinByName, MinValueHashThrowsLikeLinkedListGet) {
  try {
    (void)rotate.sharding(hosts(3), "polygenelubricants", 2);
    FAIL() << "expected ShardingStrategyFailure";
  } catch (const ShardingStrategyFailure& failure) {
    EXPECT_EQ(std::string(failure.what()).rfind("java.lang.IndexOutOfBoundsException: Index: -2, Size: 3", 0), 0u) << failure.what();
  }
  EXPECT_THROW((void)rotate.sharding(hosts(5), "GydZG_", 10), ShardingStrategyFailure);
  // A power of two: offset 0, the list as given, no failure.
  EXPECT_EQ(rotate.sharding(hosts(4), "polygenelubricants", 8), average.sharding(hosts(4), "x", 8));
  EXPECT_EQ(rotate.sharding(hosts(1), "polygenelubricants", 3), expected({{"host0@-@0", {0, 1, 2}}}));
}

TEST(RoundRobinByName, EmptyListDividesByZero) {
  try {
    (void)rotate.sharding({}, "test_job", 3);
    FAIL() << "expected ShardingStrategyFailure";
  } catch (const ShardingStrategyFailure& failure) {
    EXPECT_EQ(std::string(failure.what()).rfind("java.lang.ArithmeticException: / by zero", 0), 0u) << failure.what();
  }
}

// --- The registry and the checks around every strategy --------------------------------------------

TEST(Registry, FindsEveryStrategyByNameAndElasticJobsByType) {
  ASSERT_EQ(allStrategies().size(), 6u);
  for (const JobShardingStrategy* each : allStrategies()) {
    EXPECT_EQ(findStrategy(each->name()), each);
    EXPECT_FALSE(each->description().empty());
    if (!each->javaType().empty()) {
      EXPECT_EQ(findStrategyByJavaType(each->javaType()), each);
    }
  }
  EXPECT_EQ(findStrategy("nosuch"), nullptr);
  EXPECT_EQ(findStrategyByJavaType(""), findStrategy("average"));  // JobShardingStrategyFactory's default
  EXPECT_EQ(findStrategyByJavaType("ODEVITY"), findStrategy("odevity"));
  EXPECT_EQ(findStrategyByJavaType("ROUND_ROBIN"), findStrategy("rotate"));
  EXPECT_EQ(findStrategyByJavaType("SINGLE_SHARDING_BALANCE"), nullptr);  // 3.0.5 only
  EXPECT_EQ(findStrategyByJavaType("sticky"), nullptr);
}

TEST(Registry, DuplicateInstancesAndNegativeCountsAreRejected) {
  EXPECT_THROW((void)average.sharding(instances({"a@-@1", "a@-@1"}), "j", 2), sim::AssertionFailure);
  EXPECT_THROW((void)average.sharding(hosts(2), "j", -1), sim::AssertionFailure);
}

TEST(JobInstance, IdAndServerIp) {
  JobInstance instance("127.0.0.1@-@0");
  EXPECT_EQ(instance.jobInstanceId, "127.0.0.1@-@0");
  EXPECT_EQ(instance.getServerIp(), "127.0.0.1");
  EXPECT_EQ(JobInstance("10.0.0.5@-@1@-@2").getServerIp(), "10.0.0.5");
  EXPECT_TRUE(isWellFormedJobInstanceId("10.0.0.5@-@1"));
  EXPECT_FALSE(isWellFormedJobInstanceId("10.0.0.5"));
  EXPECT_FALSE(isWellFormedJobInstanceId("@-@1"));
  EXPECT_FALSE(isWellFormedJobInstanceId("10.0.0.5@-@"));
}

}  // namespace
