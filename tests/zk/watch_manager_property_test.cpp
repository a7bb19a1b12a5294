// A stateful property of the server's WatchManager: random addWatch (any mode), triggers and closed
// connections (removeWatcher) on a small tree of paths (two of them of the same length), against a plain reference of ZooKeeper 3.8's rules (one mode per connection
// and path, the last one set; a standard watch fires once; a persistent one on its own path every
// time; a recursive one on its path and every path below, except for NodeChildrenChanged).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "model/zk/server/WatchManager.h"

namespace zk {
namespace {

const std::vector<std::string> paths = {"/", "/a", "/a/b", "/a/b/c", "/a/d", "/e"};

bool isAncestor(const std::string& ancestor, const std::string& path) {
  if (ancestor == path) return false;
  if (ancestor == "/") return true;
  return path.size() > ancestor.size() && path.compare(0, ancestor.size(), ancestor) == 0 && path[ancestor.size()] == '/';
}

RC_GTEST_PROP(WatchManagerProperty, FollowsThe38RulesForEveryMode, ()) {
  WatchManager manager;
  std::map<std::pair<WatcherId, std::string>, WatcherMode> reference;
  const int steps = *rc::gen::inRange(1, 60);
  for (int step = 0; step < steps; step++) {
    const std::string& path = paths[*rc::gen::inRange<std::size_t>(0, paths.size())];
    const int action = *rc::gen::inRange(0, 5);
    if (action == 4) {
      const auto watcher = *rc::gen::inRange<WatcherId>(1, 4);
      manager.removeWatcher(watcher);
      std::erase_if(reference, [watcher](const auto& entry) { return entry.first.first == watcher; });
    } else if (action < 2) {
      const auto watcher = *rc::gen::inRange<WatcherId>(1, 4);
      const auto mode = static_cast<WatcherMode>(*rc::gen::inRange(0, 3));
      const bool added = manager.addWatch(path, watcher, mode);
      const bool fresh = reference.insert_or_assign({watcher, path}, mode).second;
      RC_ASSERT(added == fresh);
    } else {
      const auto type = static_cast<EventType>(*rc::gen::element(1, 2, 3, 4));  // created, deleted, data, children
      std::set<WatcherId> expected;
      for (auto it = reference.begin(); it != reference.end();) {
        const auto& [watcher, watchedPath] = it->first;
        const WatcherMode mode = it->second;
        bool fires = false;
        bool usedUp = false;
        if (watchedPath == path) {
          fires = !(is_recursive(mode) && type == EventType::node_children_changed);
          usedUp = mode == WatcherMode::standard;
        } else if (isAncestor(watchedPath, path)) {
          fires = is_recursive(mode) && type != EventType::node_children_changed;
        }
        if (fires) expected.insert(watcher);
        it = usedUp ? reference.erase(it) : std::next(it);
      }
      std::vector<FiredWatch> fired;
      const WatcherSet triggered = manager.triggerWatch(path, type, nullptr, &fired);
      RC_ASSERT(std::set<WatcherId>(triggered.begin(), triggered.end()) == expected);
      if (expected.empty()) {
        RC_ASSERT(fired.empty());
      } else {
        RC_ASSERT(fired.size() == 1u);
        RC_ASSERT(fired[0].event.path == path);
        RC_ASSERT(std::set<WatcherId>(fired[0].watchers.begin(), fired[0].watchers.end()) == expected);
      }
    }
    manager.checkInvariants();
    RC_ASSERT(manager.size() == reference.size());
    for (const auto& [key, mode] : reference) RC_ASSERT(manager.watcherMode(key.second, key.first) == mode);
  }
}

}  // namespace
}  // namespace zk
