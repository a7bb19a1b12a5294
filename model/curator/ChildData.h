// ChildData (org.apache.curator.framework.recipes.cache.ChildData): one node as a cache holds it.
//
// SharedChildData is how CuratorCache stores it. Every instance of an ElasticJob run caches the same
// job tree, so most node versions are held by every cache at once: 1,000 instances of a job of
// 10,000 items hold some 20 million entries of a few tens of thousands of versions. A shared entry
// is one copy of a version (path, stat and data) that every cache holding it points to; a cache's
// entry costs the pointer. The copies are interned in a pool of the thread (a simulation runs on
// one thread), keyed by path and stat, and leave it with their last holder.
//
// Sharing is invisible to the model: an interned copy equals the ChildData it stands for (data is
// checked on every hit), and nothing reads the pool but intern().
#pragma once

#include <cstdint>
#include <string>

#include "model/zk/types.h"
#include "sim/assert.h"

namespace curator {

struct ChildData {
  std::string path;
  zk::Stat stat;
  std::string data;
  bool operator==(const ChildData&) const = default;
};

// A counted reference to an interned copy, or none (a null ChildData in Java: a listener's oldData of
// a NODE_CREATED). Holding one keeps the copy, as a Java reference keeps its object.
class SharedChildData {
 public:
  // The shared copy of `data`: the one a cache of this thread holds already, or a new one.
  static SharedChildData intern(ChildData data);
  // Copies interned on this thread and not yet released (for tests and reports).
  static std::size_t pooled();

  SharedChildData() = default;
  SharedChildData(const SharedChildData& other) noexcept : entry_(other.entry_) {
    if (entry_ != nullptr) entry_->references++;
  }
  SharedChildData(SharedChildData&& other) noexcept : entry_(other.entry_) { other.entry_ = nullptr; }
  SharedChildData& operator=(SharedChildData other) noexcept {
    std::swap(entry_, other.entry_);
    return *this;
  }
  ~SharedChildData() { release(); }

  explicit operator bool() const { return entry_ != nullptr; }
  const ChildData& operator*() const {
    ELECTSIM_ASSERT(entry_ != nullptr);
    return entry_->data;
  }
  const ChildData* operator->() const { return &**this; }
  const ChildData* get() const { return entry_ == nullptr ? nullptr : &entry_->data; }

 private:
  struct Entry {
    ChildData data;
    std::uint64_t references = 1;
  };
  explicit SharedChildData(Entry* entry) : entry_(entry) {}
  void release() noexcept;

  Entry* entry_ = nullptr;
};

}  // namespace curator
