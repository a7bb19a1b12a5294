#include "model/curator/ChildData.h"

#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_set>

#include <boost/container_hash/hash.hpp>

#include "sim/assert.h"
#include "sim/string_hash.h"

namespace curator {

namespace {

auto statKey(const zk::Stat& stat) {
  return std::tie(stat.mzxid, stat.czxid, stat.pzxid, stat.version, stat.cversion, stat.aversion, stat.ephemeral_owner, stat.data_length,
                  stat.num_children, stat.ctime, stat.mtime);
}

// A version of a node is one (path, stat), whose data ZooKeeper fixed when it wrote that mzxid.
template <class A>
const ChildData& view(const A* item) {
  if constexpr (std::is_same_v<A, ChildData>) {
    return *item;
  } else {
    return item->data;
  }
}

struct VersionHash {
  using is_transparent = void;
  template <class A>
  std::size_t operator()(const A* item) const {
    const ChildData& data = view(item);
    std::size_t seed = sim::StringHash{}(data.path);
    boost::hash_combine(seed, data.stat.mzxid);
    boost::hash_combine(seed, data.stat.pzxid);
    boost::hash_combine(seed, data.stat.cversion);
    return seed;
  }
};

struct SameVersion {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A* a, const B* b) const {
    const ChildData& left = view(a);
    const ChildData& right = view(b);
    return left.path == right.path && statKey(left.stat) == statKey(right.stat);
  }
};

// The pool of this thread's shared copies (Entry is SharedChildData's, named by its members):
// hashed by value, never by address, and nothing iterates it: it only finds a copy equal to a
// given one.
template <class Entry>
std::unordered_set<Entry*, VersionHash, SameVersion>& pool() {
  thread_local std::unordered_set<Entry*, VersionHash, SameVersion> entries;
  return entries;
}
}  // namespace

SharedChildData SharedChildData::intern(ChildData data) {
  auto& entries = pool<Entry>();
  auto found = entries.find(&data);
  if (found != entries.end()) {
    Entry* entry = *found;
    ELECTSIM_ASSERT_MSG(entry->data.data == data.data, "two datas for one version of a node");
    entry->references++;
    return SharedChildData(entry);
  }
  auto* entry = new Entry{std::move(data), 1};
  entries.insert(entry);
  return SharedChildData(entry);
}

std::size_t SharedChildData::pooled() { return pool<Entry>().size(); }

void SharedChildData::release() noexcept {
  if (entry_ == nullptr) return;
  if (--entry_->references == 0) {
    // Released on the thread that interned it, as a simulation's caches are.
    std::size_t erased = pool<Entry>().erase(entry_);
    ELECTSIM_ASSERT(erased == 1);
    delete entry_;
  }
  entry_ = nullptr;
}

}  // namespace curator
