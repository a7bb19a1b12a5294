// PendingMap: the requests in flight on one side of a connection (the client's by xid, the server's
// by session and cxid), each with the promise its waiter is suspended on.
//
// Entries in key order in a deque: keys are added at the back (xids and cxids only grow) and
// answered from the front, as ClientCnxn's pendingQueue is, so both are O(1) however many are in
// flight; lookups are binary searches. A sorted array shifted every later entry on each answer,
// which made a burst quadratic: 10,000 reads outstanding on each of 30 clients (a first sharding of
// 10,000 items) spent 70% of the run moving entries. A std::map would cost an allocation and a
// rebalancing per request. It iterates in key order, like std::map.
//
// Destroying a promise that was never fulfilled wakes its waiter with BrokenPromise, and the order
// of those wake-ups is part of the run. std::map destroys its entries from the largest key down;
// clear() and the destructor here do the same, so a crash or a shutdown replays identically.
#pragma once

#include <algorithm>
#include <cstddef>
#include <deque>
#include <iterator>
#include <utility>

#include "sim/assert.h"

namespace zk {

template <class Key, class Value>
class PendingMap {
  using Entries = std::deque<std::pair<Key, Value>>;

 public:
  using iterator = typename Entries::iterator;

  PendingMap() = default;
  PendingMap(PendingMap&& other) noexcept = default;
  PendingMap& operator=(PendingMap&& other) noexcept {
    if (this != &other) {
      clear();
      entries_ = std::move(other.entries_);
    }
    return *this;
  }
  PendingMap(const PendingMap&) = delete;
  PendingMap& operator=(const PendingMap&) = delete;
  ~PendingMap() { clear(); }

  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  bool contains(const Key& key) const {
    auto found = lowerBound(entries_, key);
    return found != entries_.end() && found->first == key;
  }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  iterator find(const Key& key) {
    auto found = lowerBound(entries_, key);
    return found != entries_.end() && found->first == key ? found : entries_.end();
  }

  // A new key; nearly always the largest, so it goes at the back.
  template <class... Args>
  void emplace(const Key& key, Args&&... args) {
    auto at = entries_.empty() || entries_.back().first < key ? entries_.end() : lowerBound(entries_, key);
    ELECTSIM_ASSERT(at == entries_.end() || at->first != key);
    entries_.emplace(at, std::piecewise_construct, std::forward_as_tuple(key), std::forward_as_tuple(std::forward<Args>(args)...));
  }
  // Erasing in the middle moves the entries on one side, so the erased value should have been
  // moved out first (a moved-from promise breaks nothing).
  // The front, the usual case, is a pop: deque::erase's general path cost 0.5% of an exploration.
  void erase(iterator entry) {
    if (entry == entries_.begin()) {
      entries_.pop_front();
    } else {
      entries_.erase(entry);
    }
  }

  // Largest key first, as std::map's clear() and destructor.
  void clear() {
    while (!entries_.empty()) entries_.pop_back();
  }

 private:
  template <class Container>
  static auto lowerBound(Container& entries, const Key& key) {
    return std::lower_bound(entries.begin(), entries.end(), key, [](const auto& entry, const Key& k) { return entry.first < k; });
  }

  Entries entries_;
};

}  // namespace zk
