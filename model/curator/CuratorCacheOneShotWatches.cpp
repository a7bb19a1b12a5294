// CuratorCache without addWatch: the recursive watch emulated with one-shot watches, the way
// TreeCache does it (see CuratorCache.h). Used where the client has no persistent watches (live
// mode's C client of ZooKeeper 3.8).
#include "model/curator/CuratorCache.h"
#include "model/curator/ZKPaths.h"

namespace curator {

void CuratorCache::startOneShotWatches() {
  // The watches are (re-)registered on start and on every connected state, each time with a
  // rebuild, as PersistentWatcher does for its one watch.
  stateListener_ = client_.getConnectionStateListenable().addListener([this](ConnectionState newState) {
    if (isConnected(newState)) rebuild();
  });
  rebuild();
}

void CuratorCache::oneShotNodeChanged(std::string path) {
  increment();
  scope_.spawn(oneShotNodeChangedTask(std::move(path)));
}

void CuratorCache::oneShotChildrenChanged(std::string path) {
  if (state_ != State::started) return;
  increment();
  scope_.spawn(oneShotChildrenChangedTask(std::move(path)));
}

sim::Task<void> CuratorCache::oneShotNodeChangedTask(std::string path) {
  // Claim the data watch before asking, so two reads in flight do not both register one.
  std::int64_t instance = currentInstance();
  bool watch = watches_[path].data != instance;
  if (watch) watches_[path].data = instance;
  // (A local, not a conditional expression in the call: GCC 12 destroys such a temporary twice
  // when it is an argument of a co_await.)
  CuratorWatcher watcher;
  if (watch) watcher = dataWatcher(path);
  zk::DataResult result = co_await client_.getData(path, std::move(watcher), Call::inBackground);
  if (state_ != State::started) co_return;
  if (watch && result.code != zk::Code::ok && watches_[path].data == instance) watches_[path].data = 0;
  if (result.code == zk::Code::ok) {
    putStorage(ChildData{path, result.stat, std::move(result.data)});
    // checkChildrenChanged: list the children when we have no child watch on this handle yet (a
    // child watch in place reports every later change itself).
    if (watches_[path].children != currentInstance()) oneShotChildrenChanged(path);
  } else if (result.code == zk::Code::no_node) {
    removeStorage(path);
    if (path == path_) {
      increment();
      scope_.spawn(watchRootCreationTask());
    }
  }
  // Other codes: handleException (logged); the next rebuild reads the node again.
  decrement();
}

sim::Task<void> CuratorCache::oneShotChildrenChangedTask(std::string path) {
  std::int64_t instance = currentInstance();
  bool watch = watches_[path].children != instance;
  if (watch) watches_[path].children = instance;
  CuratorWatcher watcher;
  if (watch) watcher = childWatcher(path);
  zk::ChildrenResult result = co_await client_.getChildren(path, std::move(watcher), Call::inBackground);
  if (state_ != State::started) co_return;
  if (watch && result.code != zk::Code::ok && watches_[path].children == instance) watches_[path].children = 0;
  if (result.code == zk::Code::ok) {
    for (const std::string& child : result.children) {
      std::string childPath = ZKPaths::makePath(path, child);
      // Known children report their own changes through their data watches.
      if (!storage_.contains(childPath)) nodeChanged(std::move(childPath));
    }
  } else if (result.code == zk::Code::no_node) {
    removeStorage(path);
  }
  decrement();
}

sim::Task<void> CuratorCache::watchRootCreationTask() {
  // With one-shot watches a missing root needs an exists watch to be seen again.
  std::int64_t instance = currentInstance();
  watches_[path_].data = instance;
  CuratorWatcher watcher = dataWatcher(path_);
  zk::StatResult exists = co_await client_.checkExists(path_, std::move(watcher), Call::inBackground);
  if (state_ != State::started) co_return;
  if (exists.code == zk::Code::ok) {
    nodeChanged(path_);  // created meanwhile; the exists watch is now a data watch
  } else if (exists.code != zk::Code::no_node && watches_[path_].data == instance) {
    watches_[path_].data = 0;
  }
  decrement();
}

CuratorWatcher CuratorCache::dataWatcher(std::string path) {
  return CuratorWatcher{watcherOwner_, [this, path](const zk::WatchedEvent& event) {
                          if (state_ != State::started || event.type == zk::EventType::none) return;
                          watches_[path].data = 0;  // the one-shot watch is used up
                          switch (event.type) {
                            case zk::EventType::node_created:
                            case zk::EventType::node_data_changed: nodeChanged(path); break;
                            case zk::EventType::node_deleted: removeStorage(path); break;
                            case zk::EventType::node_children_changed:
                            case zk::EventType::none: break;
                          }
                        }};
}

CuratorWatcher CuratorCache::childWatcher(std::string path) {
  return CuratorWatcher{watcherOwner_, [this, path](const zk::WatchedEvent& event) {
                          if (state_ != State::started || event.type == zk::EventType::none) return;
                          watches_[path].children = 0;
                          if (event.type == zk::EventType::node_children_changed) oneShotChildrenChanged(path);
                        }};
}

}  // namespace curator
