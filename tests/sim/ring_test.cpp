// sim::Ring, the engine's FIFO in blocks: the same items in the same order as std::deque under
// any sequence of operations, every item destroyed once, a block freed once the front has moved
// past it, and nothing allocated by a queue that stays within what it has held before.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>

#include "sim/ring.h"

namespace {

// An item that counts its live copies, so a leak or a double destruction shows.
struct Counted {
  static inline std::int64_t live = 0;
  explicit Counted(std::int64_t value) : value(value) { live++; }
  Counted(const Counted& other) : value(other.value) { live++; }
  Counted(Counted&& other) noexcept : value(other.value) { live++; }
  Counted& operator=(const Counted&) = default;
  ~Counted() { live--; }
  std::int64_t value;
  std::string padding = std::string(40, 'x');  // heap-held, so a missed destructor leaks under ASan
};

enum class Op : std::uint8_t { push, pop, drop, clear, move_out };

// For blocks of BlockBytes: 2 kB holds 32 items here, 256 bytes the least, 4 (a queue crosses
// blocks, and outgrows the map's two slots inside the ring, at every few pushes).
template <std::size_t BlockBytes>
void behavesAsADeque() {
  const auto ops = *rc::gen::container<std::vector<std::pair<Op, std::uint8_t>>>(rc::gen::pair(
      rc::gen::weightedElement<Op>({{12, Op::push}, {8, Op::pop}, {4, Op::drop}, {1, Op::clear}, {1, Op::move_out}}),
      rc::gen::arbitrary<std::uint8_t>()));
  const std::int64_t live_before = Counted::live;
  {
    sim::Ring<Counted, BlockBytes> ring;
    std::deque<std::int64_t> model;
    std::int64_t next = 0;
    for (const auto& [op, count] : ops) {
      switch (op) {
        case Op::push:  // bursts, so runs cross many blocks
          for (int i = 0; i <= count; i++) {
            ring.push_back(Counted(next));
            model.push_back(next++);
          }
          break;
        case Op::pop:
          for (int i = 0; i <= count && !model.empty(); i++) {
            RC_ASSERT(ring.pop_front().value == model.front());
            model.pop_front();
          }
          break;
        case Op::drop:
          if (!model.empty()) {
            RC_ASSERT(ring.front().value == model.front());
            ring.drop_front();
            model.pop_front();
          }
          break;
        case Op::clear:
          ring.clear();
          model.clear();
          break;
        case Op::move_out: {
          // Into another ring while the source is used again: the moved items must not depend on
          // anything left in the source (the map's slots inside the ring).
          auto moved = std::make_unique<sim::Ring<Counted, BlockBytes>>(std::move(ring));
          RC_ASSERT(ring.empty());
          ring.push_back(Counted(-1));
          RC_ASSERT(ring.front().value == -1);
          ring.clear();
          RC_ASSERT(moved->size() == model.size());
          for (std::size_t i = 0; i < model.size(); i++) RC_ASSERT((*moved)[i].value == model[i]);
          ring = std::move(*moved);
          break;
        }
      }
      RC_ASSERT(ring.size() == model.size());
      for (std::size_t i = 0; i < model.size(); i++) RC_ASSERT(ring[i].value == model[i]);
      RC_ASSERT(Counted::live - live_before == static_cast<std::int64_t>(model.size()));
    }
  }
  RC_ASSERT(Counted::live == live_before);
}

RC_GTEST_PROP(Ring, BehavesAsADequeUnderAnySequenceOfOperations, ()) { behavesAsADeque<2048>(); }

RC_GTEST_PROP(Ring, WithSmallBlocksBehavesAsADequeUnderAnySequenceOfOperations, ()) { behavesAsADeque<256>(); }

TEST(Ring, FreesEachBlockOnceTheFrontHasMovedPastIt) {
  using R = sim::Ring<std::uint64_t>;
  R ring;
  const std::size_t burst = 100 * R::block_items;
  for (std::size_t i = 0; i < burst; i++) ring.push_back(i);
  EXPECT_EQ(ring.blocks(), 100u);  // full blocks, none half empty
  for (std::size_t i = 0; i < burst - 1; i++) ASSERT_EQ(ring.pop_front(), i);
  // The last block, and one spare for a queue crossing a block boundary.
  EXPECT_EQ(ring.blocks(), 2u);
}

TEST(Ring, AQueueWithinWhatItHasHeldAllocatesNothingMore) {
  using R = sim::Ring<std::uint64_t>;
  R ring;
  ring.reserve(3 * R::block_items);
  const std::size_t reserved = ring.blocks();
  EXPECT_EQ(reserved, 3u);
  // Up to three blocks' worth in flight at any position: blocks move between use and spare.
  for (int round = 0; round < 50; round++) {
    for (std::size_t i = 0; i < 3 * R::block_items - 1; i++) ring.push_back(i);
    EXPECT_LE(ring.blocks(), reserved);
    for (std::size_t i = 0; i < 2 * R::block_items + 7; i++) ring.drop_front();
    EXPECT_LE(ring.blocks(), reserved);
    ring.clear();
  }
  EXPECT_EQ(ring.blocks(), reserved);
}

TEST(Ring, AnItemMayBePushedFromTheRingItself) {
  sim::Ring<std::string> ring;
  ring.push_back(std::string(50, 'a'));
  for (std::size_t i = 0; i < 3 * sim::Ring<std::string>::block_items; i++) ring.push_back(ring.front());
  EXPECT_EQ(ring[ring.size() - 1], std::string(50, 'a'));
}

}  // namespace
