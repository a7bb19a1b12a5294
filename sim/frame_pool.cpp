#include "sim/frame_pool.h"

#ifndef ELECTSIM_NO_ALLOCATION_COUNTING
#include <mimalloc.h>
#endif

#include <array>
#include <bit>
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
// Every C++ allocation goes to mimalloc, whose per-thread heaps suit one simulation per thread (8% of
// an exploration's time went to glibc's malloc and free). The byte count feeds the per-run memory
// budget and counts what mimalloc hands out: for a request below allocator_block_bytes_exact_below
// that is the block size of its size bin, known without touching the block, so a
// sized delete costs no lookup; an unsized delete reads the same figure back with mi_usable_size.
// Larger blocks read mi_usable_size on both sides. allocation_test checks the two figures agree.
namespace sim {
// mimalloc 2.0's size bins (mi_bin, _mi_bin_size) as Debian builds it (MI_ALIGN2W): one word, then
// even numbers of 8-byte words up to 8 words, then four bins between consecutive powers of two, each
// block as large as the top of its bin. Computed here rather
// than by calling mi_good_size, which is not inlined and cost 2.7% of an exploration;
// allocation_test compares the two for every request size below the limit.
namespace {
constexpr std::size_t block_words_of(std::size_t words) noexcept {
  if (words <= 1) return 1;
  if (words <= 8) return (words + 1) & ~std::size_t{1};
  std::size_t below = words - 1;
  auto top_bit = static_cast<unsigned>(std::bit_width(below) - 1);
  std::size_t quarter = (below >> (top_bit - 2)) & 3;
  return (4 + quarter + 1) << (top_bit - 2);
}
// The bins of requests up to 1 KiB, nearly every allocation of a run, as a table: the computation
// ran twice per allocation (new and sized delete), 1.8% of an exploration.
constexpr std::size_t tabled_words = 128;
constexpr auto small_block_words = [] {
  std::array<std::uint8_t, tabled_words + 1> table{};
  for (std::size_t words = 0; words <= tabled_words; words++) table[words] = static_cast<std::uint8_t>(block_words_of(words));
  return table;
}();
static_assert(block_words_of(tabled_words) == tabled_words);
[[gnu::always_inline]] inline std::size_t block_bytes(std::size_t request) noexcept {
  std::size_t words = (request + sizeof(void*) - 1) / sizeof(void*);
  if (words <= tabled_words) return small_block_words[words] * sizeof(void*);
  return block_words_of(words) * sizeof(void*);
}
}  // namespace
std::size_t allocator_block_bytes(std::size_t request) noexcept { return block_bytes(request); }
}  // namespace sim
namespace {
// Blocks above the table: rare, so out of line (the common case below stays a table lookup inlined
// into operator new and delete: the call each way, and counted_malloc's own, cost 1.8% of an
// exploration).
[[gnu::noinline]] std::int64_t large_allocated_bytes(void* pointer, std::size_t size) noexcept {
  return static_cast<std::int64_t>(size < sim::allocator_block_bytes_exact_below ? sim::block_bytes(size)
                                                                                   : mi_usable_size(pointer));
}
[[gnu::always_inline]] inline std::int64_t allocated_bytes(void* pointer, std::size_t size) noexcept {
  if (size <= sim::tabled_words * sizeof(void*)) return static_cast<std::int64_t>(sim::block_bytes(size));  // the table
  return large_allocated_bytes(pointer, size);
}
[[gnu::always_inline]] inline void* counted_malloc(std::size_t size) noexcept {
  if (size == 0) size = 1;
  sim::thread_heap_allocations++;
  void* pointer = mi_malloc(size);
  if (pointer != nullptr) sim::thread_heap_bytes += allocated_bytes(pointer, size);
  return pointer;
}
[[gnu::always_inline]] inline void counted_free(void* pointer) noexcept {
  if (pointer == nullptr) return;
  sim::thread_heap_bytes -= static_cast<std::int64_t>(mi_usable_size(pointer));
  mi_free(pointer);
}
[[gnu::always_inline]] inline void counted_free_sized(void* pointer, std::size_t size) noexcept {
  if (pointer == nullptr) return;
  if (size == 0) size = 1;
  sim::thread_heap_bytes -= allocated_bytes(pointer, size);
  mi_free(pointer);
}
}  // namespace
// The replacements are not inlined into this file's own calls (the pool's destructor, large frames):
// a tool that intercepts operator new and delete by name (valgrind) then sees every block both
// allocated and freed through them, instead of a delete inlined down to mimalloc's free.
[[gnu::noinline]] void* operator new(std::size_t size) {
  if (void* pointer = counted_malloc(size)) return pointer;
  throw std::bad_alloc();
}
void* operator new[](std::size_t size) { return ::operator new(size); }
[[gnu::noinline]] void operator delete(void* pointer) noexcept { counted_free(pointer); }
void operator delete[](void* pointer) noexcept { counted_free(pointer); }
[[gnu::noinline]] void operator delete(void* pointer, std::size_t size) noexcept { counted_free_sized(pointer, size); }
void operator delete[](void* pointer, std::size_t size) noexcept { counted_free_sized(pointer, size); }
void* operator new(std::size_t size, const std::nothrow_t&) noexcept { return counted_malloc(size); }
void* operator new[](std::size_t size, const std::nothrow_t& tag) noexcept { return ::operator new(size, tag); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { counted_free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { counted_free(pointer); }
#endif
