// The event queue: a radix heap over event times, with FIFO buckets.
//
// Simulated time never goes backwards, so every key pushed is >= the last key popped: the queue is
// monotone, which is what a radix heap needs. Bucket b holds the events whose time differs from the
// last popped time first in bit b-1 (bucket 0: equal times). Push is O(1); pop takes bucket 0's
// front, or, when bucket 0 is empty, moves the smallest non-empty bucket down around its minimum
// (each event moves at most 64 times over its life).
//
// Order is exactly (time, insertion sequence):
//  - events with equal times always share a bucket (the bucket depends only on the time and the last
//    popped time), and are appended in insertion order;
//  - redistribution only ever moves events into buckets that are empty at that moment (all below the
//    smallest non-empty one), scanning the source bucket in order, so relative order is kept.
// The sequence number is still carried and checked in tests; it is no longer compared at run time.
//
// A bit mask of the non-empty buckets 1..64 finds the smallest one in one instruction, and
// pop_if_not_after() scans that bucket for its minimum once, where top_time() then pop() would scan
// it twice: the two were a quarter of the event loop's own time (bench zk).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>

#include "sim/assert.h"
#include <vector>

namespace sim {

template <class Event>
class EventQueue {
 public:
  static constexpr int bucket_count = 65;
  static constexpr std::uint32_t none = UINT32_MAX;

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }

  // Returns a handle that erase() takes until the event is popped.
  std::uint32_t push(const Event& event) {
    ELECTSIM_ASSERT(event.at >= last_);
    std::uint32_t index = allocate(event);
    append(static_cast<std::uint8_t>(bucket_of(event.at)), index);
    size_++;
    return index;
  }

  // Removes a pending event now (a cancelled timer), instead of leaving it to be skipped later.
  void erase(std::uint32_t index) {
    ELECTSIM_ASSERT(index < pool_.size());
    ELECTSIM_ASSERT(pool_[index].bucket != free_bucket);
    unlink(index);
    release(index);
    size_--;
  }

  // The earliest event's time. The queue must not be empty. It only looks: moving the radix base
  // here would forbid pushes between the clock and that time.
  std::int64_t top_time() const {
    ELECTSIM_ASSERT(size_ > 0);
    if (buckets_[0].head != none) return last_;
    return minimum_of(smallest_nonempty_bucket());
  }

  Event pop() {
    ELECTSIM_ASSERT(size_ > 0);
    if (buckets_[0].head == none) refill_bucket_zero(minimum_of(smallest_nonempty_bucket()));
    return pop_bucket_zero();
  }

  // Pops the earliest event into `out` if its time is at most `end`; otherwise changes nothing
  // (pushes before that time stay allowed) and returns false. top_time() <= end, then pop(), in one
  // scan.
  bool pop_if_not_after(std::int64_t end, Event& out) {
    if (size_ == 0) return false;
    if (buckets_[0].head == none) {
      std::int64_t minimum = minimum_of(smallest_nonempty_bucket());
      if (minimum > end) return false;
      refill_bucket_zero(minimum);
    } else if (last_ > end) {
      return false;
    }
    out = pop_bucket_zero();
    return true;
  }

 private:
  static constexpr std::uint8_t free_bucket = 0xff;

  // Buckets are doubly linked lists threaded through one pool of nodes, so a bucket used for the
  // first time (time crossing a power of two) allocates nothing, and a cancelled event leaves at
  // once: the pool only grows when the number of pending events reaches a new peak.
  struct Slot {
    Event event;
    std::uint32_t next;
    std::uint32_t previous;
    std::uint8_t bucket;
  };
  struct Bucket {
    std::uint32_t head = none;
    std::uint32_t tail = none;
  };

  std::uint32_t allocate(const Event& event) {
    std::uint32_t index;
    if (free_ != none) {
      index = free_;
      free_ = pool_[index].next;
      pool_[index].event = event;
    } else {
      index = static_cast<std::uint32_t>(pool_.size());
      ELECTSIM_ASSERT(index != none);
      pool_.push_back(Slot{event, none, none, free_bucket});
    }
    return index;
  }
  void release(std::uint32_t index) {
    pool_[index].bucket = free_bucket;
    pool_[index].next = free_;
    free_ = index;
  }
  void append(std::uint8_t bucket_index, std::uint32_t index) {
    Bucket& bucket = buckets_[bucket_index];
    Slot& slot = pool_[index];
    slot.bucket = bucket_index;
    slot.next = none;
    slot.previous = bucket.tail;
    if (bucket.tail == none) {
      bucket.head = index;
      if (bucket_index > 0) occupied_ |= std::uint64_t{1} << (bucket_index - 1);
    } else {
      pool_[bucket.tail].next = index;
    }
    bucket.tail = index;
  }
  void unlink(std::uint32_t index) {
    Slot& slot = pool_[index];
    Bucket& bucket = buckets_[slot.bucket];
    if (slot.previous == none) {
      bucket.head = slot.next;
    } else {
      pool_[slot.previous].next = slot.next;
    }
    if (slot.next == none) {
      bucket.tail = slot.previous;
    } else {
      pool_[slot.next].previous = slot.previous;
    }
    if (bucket.head == none && slot.bucket > 0) occupied_ &= ~(std::uint64_t{1} << (slot.bucket - 1));
  }

  Event pop_bucket_zero() {
    std::uint32_t first = buckets_[0].head;
    ELECTSIM_ASSERT(first != none);
    unlink(first);
    Event event = pool_[first].event;
    release(first);
    size_--;
    return event;
  }

  std::int64_t minimum_of(std::size_t bucket) const {
    std::int64_t minimum = INT64_MAX;
    for (std::uint32_t at = buckets_[bucket].head; at != none; at = pool_[at].next) minimum = std::min(minimum, pool_[at].event.at);
    return minimum;
  }

  std::size_t bucket_of(std::int64_t at) const {
    auto difference = static_cast<std::uint64_t>(at ^ last_);
    return difference == 0 ? 0 : static_cast<std::size_t>(64 - std::countl_zero(difference));
  }

  // Bucket 0 must be empty and the queue not.
  std::size_t smallest_nonempty_bucket() const {
    ELECTSIM_ASSERT(occupied_ != 0);
    return static_cast<std::size_t>(std::countr_zero(occupied_)) + 1;
  }

  // `minimum`: the smallest time in the smallest non-empty bucket, which becomes the radix base.
  void refill_bucket_zero(std::int64_t minimum) {
    std::size_t source = smallest_nonempty_bucket();
    last_ = minimum;
    // Every event of `source` lands in a lower (empty) bucket, in its original order.
    std::uint32_t at = buckets_[source].head;
    buckets_[source] = Bucket{};
    occupied_ &= ~(std::uint64_t{1} << (source - 1));
    while (at != none) {
      std::uint32_t next = pool_[at].next;
      std::size_t target = bucket_of(pool_[at].event.at);
      ELECTSIM_ASSERT(target < source);
      append(static_cast<std::uint8_t>(target), at);
      at = next;
    }
  }

  std::array<Bucket, bucket_count> buckets_;
  std::vector<Slot> pool_;
  std::uint32_t free_ = none;
  std::uint64_t occupied_ = 0;  // bit b-1: bucket b (1..64) is not empty
  std::int64_t last_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sim
