#include "model/zk/server/WatchManager.h"

#include "sim/assert.h"

namespace zk {

bool WatchManager::addWatch(const std::string& path, WatcherId watcher) {
  ELECTSIM_ASSERT(!path.empty());
  const bool added = watchTable_[path].insert(watcher).second;
  const bool mirrored = watch2Paths_[watcher].insert(path).second;
  ELECTSIM_ASSERT(added == mirrored);
  if (added) watchCount_++;
  return added;
}

void WatchManager::removeWatcher(WatcherId watcher) {
  auto paths = watch2Paths_.find(watcher);
  if (paths == watch2Paths_.end()) return;
  for (const std::string& path : paths->second) {
    auto watchers = watchTable_.find(path);
    ELECTSIM_ASSERT(watchers != watchTable_.end());
    const std::size_t erased = watchers->second.erase(watcher);
    ELECTSIM_ASSERT(erased == 1);
    watchCount_--;
    if (watchers->second.empty()) watchTable_.erase(watchers);
  }
  watch2Paths_.erase(paths);
}

std::set<WatcherId> WatchManager::triggerWatch(const std::string& path, EventType type,
                                               const std::set<WatcherId>* suppress,
                                               std::vector<FiredWatch>* fired) {
  ELECTSIM_ASSERT(type != EventType::none);
  auto entry = watchTable_.find(path);
  if (entry == watchTable_.end()) return {};
  if (keepAfterTrigger_) {
    // Bug switch zk-watch-not-one-shot: the watchers stay registered, so one registration fires
    // again and again — exactly what the one-shot rule exists to prevent.
    FiredWatch again{WatchedEvent{type, KeeperState::sync_connected, path}, {}, {}};
    for (WatcherId watcher : entry->second) {
      if (suppress == nullptr || !suppress->contains(watcher)) again.watchers.push_back(watcher);
    }
    std::set<WatcherId> kept = entry->second;
    if (fired != nullptr && !again.watchers.empty()) fired->push_back(std::move(again));
    return kept;
  }
  // WatchManager.triggerWatch: the whole set leaves the table before anyone is told (one-shot).
  std::set<WatcherId> watchers = std::move(entry->second);
  watchTable_.erase(entry);
  ELECTSIM_ASSERT(!watchers.empty());
  for (WatcherId watcher : watchers) {
    auto paths = watch2Paths_.find(watcher);
    ELECTSIM_ASSERT(paths != watch2Paths_.end());
    paths->second.erase(path);
    if (paths->second.empty()) watch2Paths_.erase(paths);
  }
  ELECTSIM_ASSERT(watchCount_ >= watchers.size());
  watchCount_ -= watchers.size();

  FiredWatch notification{WatchedEvent{type, KeeperState::sync_connected, path}, {}, {}};
  for (WatcherId watcher : watchers) {
    if (suppress != nullptr && suppress->contains(watcher)) continue;
    notification.watchers.push_back(watcher);
  }
  if (fired != nullptr && !notification.watchers.empty()) fired->push_back(std::move(notification));
  return watchers;
}

bool WatchManager::containsWatcher(std::string_view path, WatcherId watcher) const {
  auto paths = watch2Paths_.find(watcher);
  return paths != watch2Paths_.end() && paths->second.contains(path);
}

std::vector<std::string> WatchManager::pathsOf(WatcherId watcher) const {
  auto paths = watch2Paths_.find(watcher);
  if (paths == watch2Paths_.end()) return {};
  return {paths->second.begin(), paths->second.end()};
}

void WatchManager::checkInvariants() const {
  std::size_t count = 0;
  for (const auto& [path, watchers] : watchTable_) {
    ELECTSIM_ASSERT(!watchers.empty());
    for (WatcherId watcher : watchers) ELECTSIM_ASSERT(containsWatcher(path, watcher));
    count += watchers.size();
  }
  std::size_t mirrored = 0;
  for (const auto& [watcher, paths] : watch2Paths_) {
    ELECTSIM_ASSERT(!paths.empty());
    mirrored += paths.size();
  }
  ELECTSIM_ASSERT(count == watchCount_);
  ELECTSIM_ASSERT(mirrored == watchCount_);
}

}  // namespace zk
