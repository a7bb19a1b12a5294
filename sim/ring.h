// A FIFO queue stored in fixed-size blocks, with a spare block kept for reuse: after warm-up,
// pushing and popping allocate nothing (std::deque frees and allocates a chunk every few hundred
// elements as a queue moves through memory, which the steady-state event loop must not do).
//
// Blocks, not one array that doubles: the network's connections, the client's outgoing queue and
// the job executors' work queues are these, and in a burst (the first sharding of 10,000 items
// notifies every cache of every node) they hold millions of items at once. A doubling array is
// up to half empty at its peak, and while it grows the old array and the new one (three times the
// items) are both allocated. Here at most the head and tail blocks are partly empty, and a block
// is freed as soon as the front moves past it.
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "sim/assert.h"

namespace sim {

// BlockBytes: about how large a block is. A queue that many instances of something own, and that
// usually holds a few items, takes small blocks (a network connection's in-flight messages: with
// 2-kB blocks the token storm's 9,900 connections held 40 MB of mostly empty blocks, and ran at half
// the speed its instruction count allows).
template <class T, std::size_t BlockBytes = 2048>
class Ring {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  // Items per block: a power of two, about BlockBytes of items (at least 4), so indexing is a shift.
  static constexpr std::size_t block_items = std::bit_floor(std::max<std::size_t>(4, BlockBytes / sizeof(T)));

  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  Ring(Ring&& other) noexcept { take(other); }
  Ring& operator=(Ring&& other) noexcept {
    if (this != &other) {
      release();
      take(other);
    }
    return *this;
  }
  ~Ring() { release(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  T& front() {
    ELECTSIM_ASSERT(size_ > 0);
    return at(0);
  }
  T& operator[](std::size_t index) {
    ELECTSIM_ASSERT(index < size_);
    return at(index);
  }
  const T& operator[](std::size_t index) const {
    ELECTSIM_ASSERT(index < size_);
    return const_cast<Ring*>(this)->at(index);
  }

  // Makes room for at least `capacity` items now, not on first use; those blocks stay with the ring
  // as spares when it empties, so a queue that never holds more allocates only here.
  void reserve(std::size_t capacity) {
    std::size_t blocks = (capacity + block_items - 1) / block_items;
    ELECTSIM_ASSERT(blocks < UINT32_MAX);
    spares_wanted_ = std::max(spares_wanted_, static_cast<Count>(blocks));
    while (blocks_used_ + spare_count_ < blocks) add_spare(allocate_block());
  }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    ELECTSIM_ASSERT(size_ < UINT32_MAX - block_items);
    std::size_t end = std::size_t{head_} + size_;
    if (end == std::size_t{blocks_used_} * block_items) [[unlikely]] append_block();
    T* place = slot(end);
    new (place) T(std::forward<Args>(args)...);
    size_++;
    return *place;
  }
  // By reference, not by value: a message is moved once into the ring, not twice (the network's
  // in-flight and receive buffers carry every message of a run).
  void push_back(T&& value) { emplace_back(std::move(value)); }
  void push_back(const T& value) { emplace_back(value); }

  T pop_front() {
    ELECTSIM_ASSERT(size_ > 0);
    T value = std::move(at(0));
    drop_front();
    return value;
  }

  // Destroys the front item in place, when its value was already moved out through front().
  void drop_front() {
    ELECTSIM_ASSERT(size_ > 0);
    at(0).~T();
    head_++;
    size_--;
    if (size_ == 0) {
      head_ = 0;  // the one block in use starts over
    } else if (head_ == block_items) {
      retire_head_block();
    }
  }

  void clear() {
    while (size_ > 0) drop_front();
  }

  // Blocks allocated (in use and spare): for tests and memory accounting.
  std::size_t blocks() const { return blocks_used_ + spare_count_; }

 private:
  // The block pointers are themselves a ring (power-of-two slots) of the blocks in use, front first.
  std::byte*& block(std::size_t n) { return map_[(first_block_ + n) & (map_slots_ - 1)]; }
  T* slot(std::size_t position) {
    return reinterpret_cast<T*>(block(position / block_items)) + position % block_items;
  }
  T& at(std::size_t index) { return *slot(head_ + index); }

  static std::byte* allocate_block() { return static_cast<std::byte*>(::operator new(block_items * sizeof(T))); }

  void append_block() {
    if (blocks_used_ == map_slots_) grow_map();
    std::byte* fresh = spare_count_ > 0 ? spares_[--spare_count_] : allocate_block();
    block(blocks_used_) = fresh;
    blocks_used_++;
  }

  void retire_head_block() {
    std::byte* spent = block(0);
    first_block_ = (first_block_ + 1) & (map_slots_ - 1);
    blocks_used_--;
    head_ = 0;
    if (spare_count_ < std::max<Count>(1, spares_wanted_)) {
      add_spare(spent);
    } else {
      ::operator delete(spent);
    }
  }

  void add_spare(std::byte* spare) {
    if (spare_count_ == spare_slots_) {
      Count slots = spare_slots_ == 0 ? 1 : spare_slots_ * 2;
      auto** grown = new std::byte*[slots];
      std::copy(spares_, spares_ + spare_count_, grown);
      delete[] spares_;
      spares_ = grown;
      spare_slots_ = slots;
    }
    spares_[spare_count_++] = spare;
  }

  // The first map is the two slots inside the ring: a queue that never outgrows two blocks (nearly
  // every one) reaches its items without a separate map allocation to load first.
  void grow_map() {
    if (map_slots_ == 0) {
      map_ = inline_map_;
      map_slots_ = inline_map_slots;
      first_block_ = 0;
      return;
    }
    Count slots = map_slots_ * 2;
    auto** grown = new std::byte*[slots];
    for (std::size_t n = 0; n < blocks_used_; n++) grown[n] = block(n);
    if (map_ != inline_map_) delete[] map_;
    map_ = grown;
    map_slots_ = slots;
    first_block_ = 0;
  }

  void take(Ring& other) {
    map_ = std::exchange(other.map_, nullptr);
    if (map_ == other.inline_map_) {
      std::copy(other.inline_map_, other.inline_map_ + inline_map_slots, inline_map_);
      map_ = inline_map_;
    }
    map_slots_ = std::exchange(other.map_slots_, 0);
    first_block_ = std::exchange(other.first_block_, 0);
    blocks_used_ = std::exchange(other.blocks_used_, 0);
    spares_ = std::exchange(other.spares_, nullptr);
    spare_slots_ = std::exchange(other.spare_slots_, 0);
    spare_count_ = std::exchange(other.spare_count_, 0);
    spares_wanted_ = std::exchange(other.spares_wanted_, 0);
    head_ = std::exchange(other.head_, 0);
    size_ = std::exchange(other.size_, 0);
  }

  void release() {
    clear();
    for (std::size_t n = 0; n < blocks_used_; n++) ::operator delete(block(n));
    for (std::size_t n = 0; n < spare_count_; n++) ::operator delete(spares_[n]);
    if (map_ != inline_map_) delete[] map_;
    delete[] spares_;
    map_ = nullptr;
    spares_ = nullptr;
    map_slots_ = first_block_ = blocks_used_ = spare_slots_ = spare_count_ = spares_wanted_ = 0;
  }

  static constexpr std::size_t inline_map_slots = 2;
  std::byte* inline_map_[inline_map_slots] = {};
  // Counts in 32 bits: a run has thousands of rings (four a connection), and 64 bytes each instead of
  // 96 keeps more of them in cache; the memory budget stops a run long before 2^32 items.
  using Count = std::uint32_t;
  std::byte** map_ = nullptr;  // inline_map_ until more than two blocks are in use
  std::byte** spares_ = nullptr;
  Count map_slots_ = 0;      // a power of two, or 0
  Count first_block_ = 0;    // the map slot of the front block
  Count blocks_used_ = 0;    // blocks holding items; 1 for an empty ring that has held any
  Count spare_slots_ = 0;
  Count spare_count_ = 0;
  Count spares_wanted_ = 0;  // reserve()'s blocks, kept as spares when freed
  Count head_ = 0;           // the front item's index in the front block
  Count size_ = 0;
};

}  // namespace sim
