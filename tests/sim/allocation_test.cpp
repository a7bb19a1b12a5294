// The counting operator new of sim/frame_pool.cpp: the per-thread byte figure that a run's memory
// budget reads must come back to where it was once everything is freed, whichever way it is freed
// (a sized delete computes the block size from the request, an unsized one reads it from the block).
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include "sim/frame_pool.h"

#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
#include <mimalloc.h>
#endif

namespace {

std::vector<std::size_t> request_sizes() {
  std::vector<std::size_t> sizes;
  for (std::size_t size = 0; size <= 4096; size++) sizes.push_back(size);
  for (std::size_t size = 4097; size < 300'000; size += size / 7 + 1) sizes.push_back(size);
  sizes.push_back(64 * 1024 - 1);
  sizes.push_back(64 * 1024);
  sizes.push_back(4 * 1024 * 1024 + 3);
  return sizes;
}

TEST(AllocationCounting, BytesComeBackToTheStartWhetherADeleteIsSizedOrNot) {
  if (sim::memory_measure() != sim::MemoryMeasure::this_thread) GTEST_SKIP() << "no per-thread byte count in this build";
  const std::vector<std::size_t> sizes = request_sizes();
  std::vector<void*> blocks;
  blocks.reserve(sizes.size());
  const std::int64_t before = sim::memory_in_use_bytes();
  std::int64_t requested = 0;
  for (std::size_t size : sizes) {
    blocks.push_back(::operator new(size));
    requested += static_cast<std::int64_t>(size);
  }
  const std::int64_t grown = sim::memory_in_use_bytes() - before;
  EXPECT_GE(grown, requested) << "the count is of blocks handed out, never less than what was asked";
  EXPECT_LE(grown, requested * 2 + static_cast<std::int64_t>(sizes.size()) * 64);
  for (std::size_t index = 0; index < sizes.size(); index++) {
    if (index % 2 == 0) {
#ifdef __cpp_sized_deallocation
      ::operator delete(blocks[index], sizes[index]);
#else
      ::operator delete(blocks[index]);  // clang before 19 leaves sized deallocation off
#endif
    } else {
      ::operator delete(blocks[index]);
    }
  }
  EXPECT_EQ(sim::memory_in_use_bytes(), before);
}

#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
TEST(AllocationCounting, TheBlockSizeOfEveryRequestBelowTheLimitIsMimallocs) {
  for (std::size_t request = 0; request < sim::allocator_block_bytes_exact_below; request++) {
    ASSERT_EQ(sim::allocator_block_bytes(request), mi_good_size(request)) << "request of " << request << " bytes";
  }
}
#endif

}  // namespace
