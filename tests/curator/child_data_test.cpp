// SharedChildData: one copy of each node version however many caches hold it, and a copy leaves
// the pool with its last holder. Two CuratorCaches of one tree hold the same copies.
#include <gtest/gtest.h>

#include "model/curator/ChildData.h"
#include "sim/assert.h"

namespace curator_test {
namespace {

using curator::ChildData;
using curator::SharedChildData;

zk::Stat version(zk::Zxid mzxid, std::int32_t cversion = 0) {
  zk::Stat stat;
  stat.czxid = 3;
  stat.mzxid = mzxid;
  stat.version = static_cast<std::int32_t>(mzxid - 3);
  stat.cversion = cversion;
  return stat;
}

TEST(SharedChildData, EqualVersionsShareOneCopyThatLeavesThePoolWithItsLastHolder) {
  const std::size_t before = SharedChildData::pooled();
  {
    SharedChildData first = SharedChildData::intern(ChildData{"/J/sharding/0/instance", version(7), "10.0.0.1@-@1"});
    SharedChildData second = SharedChildData::intern(ChildData{"/J/sharding/0/instance", version(7), "10.0.0.1@-@1"});
    EXPECT_EQ(first.get(), second.get());
    EXPECT_EQ(SharedChildData::pooled(), before + 1);
    // Another stat is another version, even with the same data: a child's creation changes only
    // the parent's cversion.
    SharedChildData children = SharedChildData::intern(ChildData{"/J/sharding/0/instance", version(7, 1), "10.0.0.1@-@1"});
    SharedChildData other = SharedChildData::intern(ChildData{"/J/sharding/1/instance", version(7), "10.0.0.1@-@1"});
    EXPECT_NE(children.get(), first.get());
    EXPECT_NE(other.get(), first.get());
    EXPECT_EQ(SharedChildData::pooled(), before + 3);
    EXPECT_EQ(*first, (ChildData{"/J/sharding/0/instance", version(7), "10.0.0.1@-@1"}));

    SharedChildData copy = first;
    first = other;  // the copy still holds the version
    EXPECT_EQ(copy->data, "10.0.0.1@-@1");
    EXPECT_EQ(SharedChildData::pooled(), before + 3);
    copy = other;
    second = other;
    EXPECT_EQ(SharedChildData::pooled(), before + 2);  // the first version's last holder let go
  }
  EXPECT_EQ(SharedChildData::pooled(), before);
}

TEST(SharedChildData, OneVersionWithTwoDatasIsAFinding) {
  SharedChildData held = SharedChildData::intern(ChildData{"/J/config", version(9), "a"});
  EXPECT_THROW(SharedChildData::intern(ChildData{"/J/config", version(9), "b"}), sim::AssertionFailure);
  EXPECT_EQ(held->data, "a");
}

}  // namespace
}  // namespace curator_test
