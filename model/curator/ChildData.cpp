#include "model/curator/ChildData.h"

#include <set>
#include <tuple>
#include <type_traits>

#include "sim/assert.h"

namespace curator {

namespace {

auto statKey(const zk::Stat& stat) {
  return std::tie(stat.mzxid, stat.czxid, stat.pzxid, stat.version, stat.cversion, stat.aversion, stat.ephemeral_owner, stat.data_length,
                  stat.num_children, stat.ctime, stat.mtime);
}

// Path first, then the stat: a version of a node is one (path, stat), whose data ZooKeeper fixed
// when it wrote that mzxid.
struct ByVersion {
  using is_transparent = void;
  static bool less(const ChildData& a, const ChildData& b) {
    if (int order = a.path.compare(b.path); order != 0) return order < 0;
    return statKey(a.stat) < statKey(b.stat);
  }
  template <class A, class B>
  bool operator()(const A* a, const B* b) const {
    return less(view(a), view(b));
  }
  template <class A>
  static const ChildData& view(const A* item) {
    if constexpr (std::is_same_v<A, ChildData>) {
      return *item;
    } else {
      return item->data;
    }
  }
};

// The pool of this thread's shared copies (Entry is SharedChildData's, named by its members). Its
// order is by value, never by address, and nothing iterates it: it only finds a copy equal to a
// given one.
template <class Entry>
std::set<Entry*, ByVersion>& pool() {
  thread_local std::set<Entry*, ByVersion> entries;
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
