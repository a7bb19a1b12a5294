#include "sim/frame_pool.h"

#include <array>
#include <cstdlib>
#include <new>

namespace sim {

namespace {

constexpr std::size_t size_class_bytes = 64;
constexpr std::size_t size_classes = 64;  // up to 4 KiB; larger frames go to operator new
static_assert(size_class_bytes * size_classes == 4096);

struct FreeFrame {
  FreeFrame* next;
};

struct FramePool {
  std::array<FreeFrame*, size_classes> free_lists{};
  FramePoolStats stats;

  ~FramePool() {
    for (FreeFrame*& head : free_lists) {
      while (head != nullptr) {
        FreeFrame* next = head->next;
        ::operator delete(static_cast<void*>(head));
        head = next;
      }
    }
  }
};

thread_local FramePool pool;
thread_local std::uint64_t thread_heap_allocations = 0;

std::size_t size_class_of(std::size_t size) { return (size + size_class_bytes - 1) / size_class_bytes; }

}  // namespace

void* frame_allocate(std::size_t size) {
  pool.stats.allocations++;
  std::size_t index = size_class_of(size);
  if (index < size_classes) {
    FreeFrame*& head = pool.free_lists[index];
    if (head != nullptr) {
      FreeFrame* frame = head;
      head = frame->next;
      return frame;
    }
    pool.stats.system_allocations++;
    return ::operator new(index * size_class_bytes);
  }
  pool.stats.system_allocations++;
  return ::operator new(size);
}

void frame_free(void* pointer, std::size_t size) noexcept {
  std::size_t index = size_class_of(size);
  if (index < size_classes) {
    auto* frame = static_cast<FreeFrame*>(pointer);
    frame->next = pool.free_lists[index];
    pool.free_lists[index] = frame;
    return;
  }
  ::operator delete(pointer);
}

FramePoolStats frame_pool_stats() { return pool.stats; }

std::uint64_t heap_allocations_on_this_thread() { return thread_heap_allocations; }

bool heap_allocations_counted() {
#ifdef ELECTSIM_NO_ALLOCATION_COUNTING
  return false;
#else
  return true;
#endif
}

}  // namespace sim

// Global allocation counting: one thread-local increment per allocation, so tests and benchmarks can
// assert that the event loop allocates nothing in steady state. Sanitizer builds keep their own
// allocator (ELECTSIM_NO_ALLOCATION_COUNTING), and the count then stays at zero.
#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
void* operator new(std::size_t size) {
  sim::thread_heap_allocations++;
  if (size == 0) size = 1;
  if (void* pointer = std::malloc(size)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* pointer) noexcept { std::free(pointer); }
void operator delete[](void* pointer) noexcept { std::free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { std::free(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { std::free(pointer); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
  sim::thread_heap_allocations++;
  return std::malloc(size == 0 ? 1 : size);
}
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { std::free(pointer); }
#endif
