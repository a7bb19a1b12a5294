// Coroutine frames come from a per-thread free list by size class (64-byte steps up to 4 KiB), so a
// steady-state simulation allocates nothing: a frame freed by one request is reused by the next.
// One simulation runs per thread, so "per thread" is "per simulation" without any locking.
#pragma once

#include <cstddef>
#include <cstdint>

namespace sim {

struct FramePoolStats {
  std::uint64_t allocations = 0;       // every frame requested
  std::uint64_t system_allocations = 0;  // frames that had to come from operator new
};

void* frame_allocate(std::size_t size);
void frame_free(void* pointer, std::size_t size) noexcept;
FramePoolStats frame_pool_stats();

// Counts of operator new calls on this thread (the test that proves "no allocation in steady state"
// reads it). Counting is done by the global operator new replacement in frame_pool.cpp.
std::uint64_t heap_allocations_on_this_thread();
bool heap_allocations_counted();  // false in sanitizer builds, which keep their own allocator

// What a run's memory budget (SimulationLimits::max_memory_bytes) measures.
enum class MemoryMeasure {
  this_thread,    // heap bytes allocated by this thread and not yet freed (normal builds)
  whole_process,  // the sanitizer allocator's bytes in use, all threads together (sanitizer builds)
  none,           // nothing to measure with: the budget is not enforced
};
MemoryMeasure memory_measure();
// The current figure of memory_measure(), in bytes; a run compares it with the figure at its start.
std::int64_t memory_in_use_bytes();

// The block mimalloc hands out for a request of this many bytes, for requests below
// allocator_block_bytes_exact_below (builds that count allocations; tests compare it with mimalloc).
inline constexpr std::size_t allocator_block_bytes_exact_below = 64 * 1024;
std::size_t allocator_block_bytes(std::size_t request) noexcept;

}  // namespace sim
