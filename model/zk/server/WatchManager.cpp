#include "model/zk/server/WatchManager.h"

#include "sim/assert.h"

namespace zk {

bool WatchManager::addWatch(const std::string& path, WatcherId watcher, WatcherMode mode) {
  ELECTSIM_ASSERT(!path.empty());
  auto [watchers, newPath] = watchTable_.try_emplace(path);
  if (newPath) pathsOfLength_[lengthSlot(path)]++;
  auto [entry, added] = watchers->second.try_emplace(watcher, mode);
  const bool mirrored = watch2Paths_[watcher].insert(path).second;
  ELECTSIM_ASSERT(added == mirrored);
  if (added) {
    watchCount_++;
  } else {
    // WatcherModeManager.setWatcherMode: the last mode set wins (ZOOKEEPER-4466).
    if (is_recursive(entry->second)) recursiveWatchQty_--;
    entry->second = mode;
  }
  if (is_recursive(mode)) recursiveWatchQty_++;
  return added;
}

void WatchManager::removeWatcher(WatcherId watcher) {
  auto paths = watch2Paths_.find(watcher);
  if (paths == watch2Paths_.end()) return;
  for (const std::string& path : paths->second) {
    auto watchers = watchTable_.find(path);
    ELECTSIM_ASSERT(watchers != watchTable_.end());
    auto entry = watchers->second.find(watcher);
    ELECTSIM_ASSERT(entry != watchers->second.end());
    if (is_recursive(entry->second)) recursiveWatchQty_--;
    watchers->second.erase(entry);
    watchCount_--;
    if (watchers->second.empty()) erasePath(watchers);
  }
  watch2Paths_.erase(paths);
}

void WatchManager::triggerPath(std::string_view localPath, bool atParent, EventType type, WatcherSet& watchers) {
  if (pathsOfLength_[lengthSlot(localPath)] == 0) return;  // no watched path is this long
  auto entry = watchTable_.find(localPath);
  if (entry == watchTable_.end()) return;
  PathWatchers& pathWatchers = entry->second;
  for (auto it = pathWatchers.begin(); it != pathWatchers.end();) {
    const auto [watcher, mode] = *it;
    if (is_recursive(mode)) {
      // A recursive watch hears of its own node and of every node below, but not of child lists.
      if (type != EventType::node_children_changed) watchers.insert(watcher);
      ++it;
      continue;
    }
    if (atParent) {
      ++it;
      continue;
    }
    watchers.insert(watcher);
    // Bug switch zk-watch-not-one-shot: the watch stays registered, so one registration fires
    // again and again — exactly what the one-shot rule exists to prevent.
    if (is_persistent(mode) || keepAfterTrigger_) {
      ++it;
      continue;
    }
    // One-shot: the watch leaves both tables before anyone is told.
    auto paths = watch2Paths_.find(watcher);
    ELECTSIM_ASSERT(paths != watch2Paths_.end());
    auto mirrored = paths->second.find(localPath);
    ELECTSIM_ASSERT(mirrored != paths->second.end());
    paths->second.erase(mirrored);
    if (paths->second.empty()) watch2Paths_.erase(paths);
    it = pathWatchers.erase(it);
    ELECTSIM_ASSERT(watchCount_ > 0);
    watchCount_--;
  }
  if (pathWatchers.empty()) erasePath(entry);
}

void WatchManager::erasePath(WatchTable::iterator entry) {
  ELECTSIM_ASSERT(entry->second.empty());
  std::size_t& count = pathsOfLength_[lengthSlot(entry->first)];
  ELECTSIM_ASSERT(count > 0);
  count--;
  watchTable_.erase(entry);
}

WatcherSet WatchManager::triggerWatch(const std::string& path, EventType type, const WatcherSet* suppress,
                                      std::vector<FiredWatch>* fired) {
  ELECTSIM_ASSERT(type != EventType::none);
  ELECTSIM_ASSERT(!path.empty() && path.front() == '/');
  WatcherSet watchers;
  triggerPath(path, false, type, watchers);
  if (recursiveWatchQty_ > 0) {
    // PathParentIterator.forAll: the path, then each parent up to "/" (views of `path`: no copy).
    std::string_view localPath = path;
    while (localPath != "/") {
      localPath = parent_path(localPath);
      triggerPath(localPath, true, type, watchers);
    }
  }
  if (watchers.empty()) return watchers;

  FiredWatch notification{WatchedEvent{type, KeeperState::sync_connected, path}, {}, {}};
  for (WatcherId watcher : watchers) {
    if (suppress != nullptr && suppress->contains(watcher)) continue;
    notification.watchers.push_back(watcher);
  }
  if (fired != nullptr && !notification.watchers.empty()) fired->push_back(std::move(notification));
  return watchers;
}

bool WatchManager::containsWatcher(std::string_view path, WatcherId watcher) const {
  auto watchers = watchTable_.find(path);
  return watchers != watchTable_.end() && watchers->second.contains(watcher);
}

WatcherMode WatchManager::watcherMode(std::string_view path, WatcherId watcher) const {
  auto watchers = watchTable_.find(path);
  if (watchers == watchTable_.end()) return WatcherMode::standard;
  auto mode = watchers->second.find(watcher);
  return mode == watchers->second.end() ? WatcherMode::standard : mode->second;
}

std::vector<std::string> WatchManager::pathsOf(WatcherId watcher) const {
  auto paths = watch2Paths_.find(watcher);
  if (paths == watch2Paths_.end()) return {};
  std::vector<std::string> result;
  result.reserve(paths->second.size());
  for (const std::string& path : paths->second) result.push_back(path);
  return result;
}

void WatchManager::checkInvariants() const {
  std::size_t count = 0;
  std::size_t recursive = 0;
  std::array<std::size_t, length_slots> pathsOfLength{};
  for (const auto& [path, watchers] : watchTable_) {
    pathsOfLength[lengthSlot(path)]++;
    ELECTSIM_ASSERT(!watchers.empty());
    for (const auto& [watcher, mode] : watchers) {
      auto paths = watch2Paths_.find(watcher);
      ELECTSIM_ASSERT(paths != watch2Paths_.end() && paths->second.contains(path));
      recursive += is_recursive(mode) ? 1 : 0;
    }
    count += watchers.size();
  }
  std::size_t mirrored = 0;
  for (const auto& [watcher, paths] : watch2Paths_) {
    ELECTSIM_ASSERT(!paths.empty());
    mirrored += paths.size();
    for (const std::string& path : paths) ELECTSIM_ASSERT(containsWatcher(path, watcher));
  }
  ELECTSIM_ASSERT(pathsOfLength == pathsOfLength_);
  ELECTSIM_ASSERT(count == watchCount_);
  ELECTSIM_ASSERT(mirrored == watchCount_);
  ELECTSIM_ASSERT(recursive == recursiveWatchQty_);
}

}  // namespace zk
