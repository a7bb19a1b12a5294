#include "model/curator/CuratorCache.h"

#include <algorithm>

#include "model/curator/ZKPaths.h"

namespace curator {

std::string_view cacheEventTypeName(CuratorCacheListener::Type type) {
  switch (type) {
    case CuratorCacheListener::Type::NODE_CREATED: return "NODE_CREATED";
    case CuratorCacheListener::Type::NODE_CHANGED: return "NODE_CHANGED";
    case CuratorCacheListener::Type::NODE_DELETED: return "NODE_DELETED";
  }
  return "UNKNOWN";
}

CuratorCache::CuratorCache(CuratorFramework& client, std::string path)
    : client_(client), path_(std::move(path)), watcherOwner_(client.newWatcherOwner()), scope_(client.sim(), client.node().id()) {
  ELECTSIM_ASSERT(!path_.empty() && path_.front() == '/');
}

CuratorCache::~CuratorCache() {
  scope_.clear();
  close();
}

void CuratorCache::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Already started");
  state_ = State::started;
  // PersistentWatcher: the watch is (re-)added on start and on every connected state, and each
  // time it is in place the cache rebuilds.
  stateListener_ = client_.getConnectionStateListenable().addListener([this](ConnectionState newState) {
    if (isConnected(newState)) rebuild();
  });
  rebuild();
}

void CuratorCache::close() {
  if (state_ != State::started) return;
  state_ = State::closed;
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
  stateListener_.reset();
  client_.removeWatchers(watcherOwner_);
  watches_.clear();
  storage_.clear();
}

std::uint64_t CuratorCache::addListener(CuratorCacheListener listener) {
  ELECTSIM_ASSERT(listeners_.size() < listeners_max);
  std::uint64_t id = nextListenerId_++;
  listeners_.emplace_back(id, std::move(listener));
  return id;
}

void CuratorCache::removeListener(std::uint64_t id) {
  std::erase_if(listeners_, [id](const auto& entry) { return entry.first == id; });
}

std::optional<ChildData> CuratorCache::get(const std::string& path) const {
  auto found = storage_.find(path);
  if (found == storage_.end()) return std::nullopt;
  return found->second;
}

void CuratorCache::rebuild() {
  if (state_ != State::started) return;
  // The root first, then every stored node (some are read twice; versions keep events unique).
  nodeChanged(path_);
  std::vector<std::string> paths;
  for (const auto& [path, data] : storage_) {
    if (path != path_) paths.push_back(path);
  }
  for (std::string& path : paths) nodeChanged(std::move(path));
}

void CuratorCache::nodeChanged(std::string path) {
  if (state_ != State::started) return;
  increment();
  scope_.spawn(nodeChangedTask(std::move(path)));
}

void CuratorCache::childrenChanged(std::string path) {
  if (state_ != State::started) return;
  increment();
  scope_.spawn(childrenChangedTask(std::move(path)));
}

sim::Task<void> CuratorCache::nodeChangedTask(std::string path) {
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
    if (watches_[path].children != currentInstance()) childrenChanged(path);
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

sim::Task<void> CuratorCache::childrenChangedTask(std::string path) {
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
                          if (event.type == zk::EventType::node_children_changed) childrenChanged(path);
                        }};
}

void CuratorCache::putStorage(ChildData data) {
  auto found = storage_.find(data.path);
  if (found == storage_.end()) {
    storage_.emplace(data.path, data);
    callListeners(CuratorCacheListener::Type::NODE_CREATED, nullptr, &data);
    return;
  }
  ChildData previous = std::exchange(found->second, data);
  if (previous.stat.version != data.stat.version) callListeners(CuratorCacheListener::Type::NODE_CHANGED, &previous, &data);
}

void CuratorCache::removeStorage(const std::string& path) {
  watches_.erase(path);
  auto found = storage_.find(path);
  if (found == storage_.end()) return;
  ChildData previous = std::move(found->second);
  storage_.erase(found);
  callListeners(CuratorCacheListener::Type::NODE_DELETED, &previous, nullptr);
}

void CuratorCache::callListeners(CuratorCacheListener::Type type, const ChildData* oldData, const ChildData* data) {
  if (state_ != State::started) return;
  std::vector<std::uint64_t> ids;
  for (const auto& [id, listener] : listeners_) ids.push_back(id);
  for (std::uint64_t id : ids) {
    auto found = std::find_if(listeners_.begin(), listeners_.end(), [id](const auto& entry) { return entry.first == id; });
    if (found == listeners_.end() || !found->second.event) continue;
    auto event = found->second.event;  // a copy: the call may remove the listener
    event(type, oldData, data);
  }
}

void CuratorCache::decrement() {
  ELECTSIM_ASSERT(outstandingOps_ > 0);
  if (--outstandingOps_ > 0 || initialized_) return;
  initialized_ = true;
  std::vector<std::function<void()>> initialized;
  for (const auto& [id, listener] : listeners_) {
    if (listener.initialized) initialized.push_back(listener.initialized);
  }
  for (const auto& call : initialized) call();
}

}  // namespace curator
