// A FIFO ring buffer with power-of-two capacity that grows by doubling and never shrinks: after
// warm-up, pushing and popping allocate nothing (std::deque allocates a chunk every few hundred
// elements, which the steady-state event loop must not do).
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <utility>

#include "sim/assert.h"

namespace sim {

template <class T>
class Ring {
  static_assert(alignof(T) <= __STDCPP_DEFAULT_NEW_ALIGNMENT__);

 public:
  Ring() = default;
  Ring(const Ring&) = delete;
  Ring& operator=(const Ring&) = delete;
  Ring(Ring&& other) noexcept
      : storage_(std::exchange(other.storage_, nullptr)),
        capacity_(std::exchange(other.capacity_, 0)),
        head_(std::exchange(other.head_, 0)),
        size_(std::exchange(other.size_, 0)) {}
  Ring& operator=(Ring&& other) noexcept {
    if (this != &other) {
      release();
      storage_ = std::exchange(other.storage_, nullptr);
      capacity_ = std::exchange(other.capacity_, 0);
      head_ = std::exchange(other.head_, 0);
      size_ = std::exchange(other.size_, 0);
    }
    return *this;
  }
  ~Ring() { release(); }

  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  std::size_t capacity() const { return capacity_; }

  T& front() {
    ELECTSIM_ASSERT(size_ > 0);
    return slot(head_);
  }
  T& operator[](std::size_t index) {
    ELECTSIM_ASSERT(index < size_);
    return slot((head_ + index) & (capacity_ - 1));
  }
  const T& operator[](std::size_t index) const {
    ELECTSIM_ASSERT(index < size_);
    return reinterpret_cast<const T*>(storage_)[(head_ + index) & (capacity_ - 1)];
  }

  // Makes room for at least `capacity` items (rounded up to a power of two) now, not on first use.
  void reserve(std::size_t capacity) {
    while (capacity_ < capacity) grow();
  }

  template <class... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) [[unlikely]] return grow_and_emplace_back(std::forward<Args>(args)...);
    T* place = &slot((head_ + size_) & (capacity_ - 1));
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
    T& first = slot(head_);
    T value = std::move(first);
    first.~T();
    head_ = (head_ + 1) & (capacity_ - 1);
    size_--;
    return value;
  }

  // Destroys the front item in place, when its value was already moved out through front().
  void drop_front() {
    ELECTSIM_ASSERT(size_ > 0);
    slot(head_).~T();
    head_ = (head_ + 1) & (capacity_ - 1);
    size_--;
  }

  void clear() {
    while (size_ > 0) pop_front();
  }

 private:
  T& slot(std::size_t index) { return reinterpret_cast<T*>(storage_)[index]; }

  void grow() { relocate(capacity_ == 0 ? 8 : capacity_ * 2); }

  // The new item is made in the new storage before the old items move: `args` may refer to one of
  // them (ring.push_back(ring.front())).
  template <class... Args>
  T& grow_and_emplace_back(Args&&... args) {
    std::size_t capacity = capacity_ == 0 ? 8 : capacity_ * 2;
    auto* storage = static_cast<std::byte*>(::operator new(capacity * sizeof(T)));
    T* place = reinterpret_cast<T*>(storage) + size_;
    try {
      new (place) T(std::forward<Args>(args)...);
    } catch (...) {
      ::operator delete(storage);
      throw;
    }
    adopt(storage, capacity);
    size_++;
    return *place;
  }

  void relocate(std::size_t capacity) {
    adopt(static_cast<std::byte*>(::operator new(capacity * sizeof(T))), capacity);
  }

  // Moves the items into `storage` (front first, at index 0) and makes it the ring's storage.
  void adopt(std::byte* storage, std::size_t capacity) {
    for (std::size_t i = 0; i < size_; i++) {
      T& from = slot((head_ + i) & (capacity_ - 1));
      new (reinterpret_cast<T*>(storage) + i) T(std::move(from));
      from.~T();
    }
    if (storage_ != nullptr) ::operator delete(storage_);
    storage_ = storage;
    capacity_ = capacity;
    head_ = 0;
  }

  void release() {
    clear();
    if (storage_ != nullptr) ::operator delete(storage_);
    storage_ = nullptr;
    capacity_ = 0;
  }

  std::byte* storage_ = nullptr;
  std::size_t capacity_ = 0;
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace sim
