#include "sim/frame_pool.h"

#include <malloc.h>

#include <array>
#include <cstdlib>
#include <new>

// AddressSanitizer (GCC defines __SANITIZE_ADDRESS__, clang answers __has_feature): frames resting
// in the free list are poisoned, so a use after a frame's destruction is reported even though the
// pool keeps the memory instead of handing it back to the sanitizer's allocator.
#if defined(__SANITIZE_ADDRESS__)
#define ELECTSIM_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ELECTSIM_ASAN 1
#endif
#endif
#ifdef ELECTSIM_ASAN
#include <sanitizer/asan_interface.h>
// The sanitizer runtime's count of heap bytes in use (sanitizer/allocator_interface.h, which GCC
// does not ship). Weak, so a runtime without it leaves the memory budget unmeasured.
extern "C" std::size_t __sanitizer_get_current_allocated_bytes() __attribute__((weak));
#define ELECTSIM_POISON(address, size) ASAN_POISON_MEMORY_REGION((address), (size))
#define ELECTSIM_UNPOISON(address, size) ASAN_UNPOISON_MEMORY_REGION((address), (size))
#else
#define ELECTSIM_POISON(address, size) ((void)(address), (void)(size))
#define ELECTSIM_UNPOISON(address, size) ((void)(address), (void)(size))
#endif

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
    for (std::size_t index = 0; index < size_classes; index++) {
      FreeFrame*& head = free_lists[index];
      while (head != nullptr) {
        ELECTSIM_UNPOISON(head, index * size_class_bytes);
        FreeFrame* next = head->next;
        ::operator delete(static_cast<void*>(head));
        head = next;
      }
    }
  }
};

thread_local FramePool pool;
thread_local std::uint64_t thread_heap_allocations = 0;
#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
// Bytes allocated by this thread and not yet freed, as malloc sized them (a free on another thread
// counts there, so one thread's figure may drift; a run measures the change over its own life).
thread_local std::int64_t thread_heap_bytes = 0;
#endif

std::size_t size_class_of(std::size_t size) { return (size + size_class_bytes - 1) / size_class_bytes; }

}  // namespace

void* frame_allocate(std::size_t size) {
  pool.stats.allocations++;
  std::size_t index = size_class_of(size);
  if (index < size_classes) {
    FreeFrame*& head = pool.free_lists[index];
    if (head != nullptr) {
      FreeFrame* frame = head;
      ELECTSIM_UNPOISON(frame, index * size_class_bytes);
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
    ELECTSIM_POISON(frame, index * size_class_bytes);
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

std::int64_t memory_in_use_bytes() {
#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
  return thread_heap_bytes;
#elif defined(ELECTSIM_ASAN)
  if (&__sanitizer_get_current_allocated_bytes == nullptr) return 0;
  return static_cast<std::int64_t>(__sanitizer_get_current_allocated_bytes());
#else
  return 0;
#endif
}

MemoryMeasure memory_measure() {
#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
  return MemoryMeasure::this_thread;
#elif defined(ELECTSIM_ASAN)
  return &__sanitizer_get_current_allocated_bytes == nullptr ? MemoryMeasure::none : MemoryMeasure::whole_process;
#else
  return MemoryMeasure::none;
#endif
}

}  // namespace sim

// Global allocation counting: one thread-local increment per allocation, so tests and benchmarks can
// assert that the event loop allocates nothing in steady state. Sanitizer builds keep their own
// allocator (ELECTSIM_NO_ALLOCATION_COUNTING), and the count then stays at zero.
#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
// The byte count (malloc_usable_size, a read of the chunk header) feeds the per-run memory budget.
namespace {
void* counted_malloc(std::size_t size) noexcept {
  sim::thread_heap_allocations++;
  void* pointer = std::malloc(size == 0 ? 1 : size);
  if (pointer != nullptr) sim::thread_heap_bytes += static_cast<std::int64_t>(malloc_usable_size(pointer));
  return pointer;
}
void counted_free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  sim::thread_heap_bytes -= static_cast<std::int64_t>(malloc_usable_size(pointer));
  std::free(pointer);
}
}  // namespace
void* operator new(std::size_t size) {
  if (void* pointer = counted_malloc(size)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
void operator delete(void* pointer) noexcept { counted_free(pointer); }
void operator delete[](void* pointer) noexcept { counted_free(pointer); }
void operator delete(void* pointer, std::size_t) noexcept { counted_free(pointer); }
void operator delete[](void* pointer, std::size_t) noexcept { counted_free(pointer); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { counted_free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { counted_free(pointer); }
#endif
