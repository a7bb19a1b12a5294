// PendingMap: keys in order however they arrive, answers from either end or the middle, and a
// clear that breaks the remaining promises from the largest key down (as std::map did), which is
// part of a crash's replay.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "model/zk/PendingMap.h"
#include "sim/assert.h"

namespace zk {
namespace {

// Records its key when destroyed while still holding it (a moved-from value records nothing).
struct Probe {
  int key = 0;
  std::vector<int>* destroyed = nullptr;
  Probe(int k, std::vector<int>* log) : key(k), destroyed(log) {}
  Probe(Probe&& other) noexcept : key(other.key), destroyed(std::exchange(other.destroyed, nullptr)) {}
  Probe& operator=(Probe&& other) noexcept {  // as a Promise's: the value overwritten goes
    if (destroyed != nullptr) destroyed->push_back(key);
    key = other.key;
    destroyed = std::exchange(other.destroyed, nullptr);
    return *this;
  }
  ~Probe() {
    if (destroyed != nullptr) destroyed->push_back(key);
  }
};

std::vector<int> keys(PendingMap<int, Probe>& map) {
  std::vector<int> result;
  for (auto& [key, value] : map) result.push_back(key);
  return result;
}

TEST(PendingMap, KeepsKeysInOrderAndAnswersFromTheFrontTheBackOrTheMiddle) {
  std::vector<int> destroyed;
  PendingMap<int, Probe> map;
  for (int key : {3, 4, 7, 8}) map.emplace(key, key, &destroyed);
  map.emplace(5, 5, &destroyed);  // not the largest: goes in its place
  map.emplace(1, 1, &destroyed);
  EXPECT_EQ(keys(map), (std::vector<int>{1, 3, 4, 5, 7, 8}));
  EXPECT_TRUE(map.contains(5));
  EXPECT_FALSE(map.contains(6));
  EXPECT_EQ(map.find(6), map.end());

  map.erase(map.find(1));  // the oldest, as a reply in order
  map.erase(map.find(5));
  map.erase(map.find(8));
  EXPECT_EQ(keys(map), (std::vector<int>{3, 4, 7}));
  EXPECT_EQ(map.find(4)->second.key, 4);
  EXPECT_EQ(destroyed, (std::vector<int>{1, 5, 8}));
  EXPECT_THROW(map.emplace(4, 4, nullptr), sim::AssertionFailure);  // one request per key
}

TEST(PendingMap, ClearAndDestructionGoFromTheLargestKeyDown) {
  std::vector<int> destroyed;
  {
    PendingMap<int, Probe> map;
    for (int key : {2, 9, 4}) map.emplace(key, key, &destroyed);
    map.clear();
    EXPECT_TRUE(map.empty());
    EXPECT_EQ(destroyed, (std::vector<int>{9, 4, 2}));
    destroyed.clear();
    for (int key : {6, 1, 3}) map.emplace(key, key, &destroyed);
    PendingMap<int, Probe> moved = std::move(map);
    EXPECT_TRUE(destroyed.empty());
  }
  EXPECT_EQ(destroyed, (std::vector<int>{6, 3, 1}));
}

}  // namespace
}  // namespace zk
