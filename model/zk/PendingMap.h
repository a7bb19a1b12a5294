// PendingMap: the requests in flight on one side of a connection (the client's by xid, the server's
// by session and cxid), each with the promise its waiter is suspended on.
//
// A sorted array rather than a std::map: a handful of requests are in flight, added near the back
// and answered near the front, and a tree cost an allocation and a rebalancing per request (two
// per write in bench zk). It iterates in key order, like std::map.
//
// Destroying a promise that was never fulfilled wakes its waiter with BrokenPromise, and the order
// of those wake-ups is part of the run. std::map destroys its entries from the largest key down;
// clear() and the destructor here do the same, so a crash or a shutdown replays identically.
#pragma once

#include <boost/container/flat_map.hpp>
#include <cstddef>
#include <iterator>
#include <utility>

namespace zk {

template <class Key, class Value>
class PendingMap {
  using Entries = boost::container::flat_map<Key, Value>;

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
  bool contains(const Key& key) const { return entries_.contains(key); }
  iterator begin() { return entries_.begin(); }
  iterator end() { return entries_.end(); }
  iterator find(const Key& key) { return entries_.find(key); }

  template <class... Args>
  void emplace(const Key& key, Args&&... args) {
    entries_.emplace(key, std::forward<Args>(args)...);
  }
  // Erasing shifts the later entries down by moving them, so the erased value should have been
  // moved out first (a moved-from promise breaks nothing).
  void erase(iterator entry) { entries_.erase(entry); }

  // Largest key first, as std::map's clear() and destructor.
  void clear() {
    while (!entries_.empty()) entries_.erase(std::prev(entries_.end()));
  }

 private:
  Entries entries_;
};

}  // namespace zk
