#include "model/curator/CuratorCache.h"

#include <algorithm>
#include <type_traits>

#include <boost/container/small_vector.hpp>

#include "model/curator/CuratorSites.h"
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
  if (!client_.getZookeeperClient().hasPersistentWatchers()) {
    startOneShotWatches();
    return;
  }
  // CuratorCacheImpl: a recursive PersistentWatcher on the root; its events go to processEvent,
  // and each time the watch is (re-)added the cache rebuilds.
  persistentWatcher_ = std::make_unique<PersistentWatcher>(client_, path_, /*recursive=*/true);
  persistentWatcher_->addListener([this](const zk::WatchedEvent& event) { processEvent(event); });
  persistentWatcher_->addResetListener([this] { rebuild(); });
  persistentWatcher_->start();
}

void CuratorCache::close() {
  if (state_ != State::started) return;
  state_ = State::closed;
  if (persistentWatcher_) persistentWatcher_->close();
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
  stateListener_.reset();
  client_.removeWatchers(watcherOwner_);
  watches_.clear();
  storage_.clear();
}

std::uint64_t CuratorCache::addListener(CuratorCacheListener listener) {
  ELECTSIM_ASSERT(listeners_.size() < listeners_max);
  std::uint64_t id = nextListenerId_++;
  listeners_.emplace_back(id, std::make_shared<const CuratorCacheListener>(std::move(listener)));
  return id;
}

void CuratorCache::removeListener(std::uint64_t id) {
  std::erase_if(listeners_, [id](const auto& entry) { return entry.first == id; });
}

std::optional<ChildData> CuratorCache::get(const std::string& path) const {
  const ChildData* data = find(path);
  if (data == nullptr) return std::nullopt;
  return *data;
}

const ChildData* CuratorCache::find(std::string_view path) const {
  auto found = storage_.find(path);
  return found == storage_.end() ? nullptr : found->get();
}

void CuratorCache::rebuild() {
  if (state_ != State::started) return;
  sim::pass(client_.sim(), client_.node().id(), sites::cache_rebuilt, {{"path", path_}});
  // The root first, then every stored node (some are read twice; versions keep events unique).
  nodeChanged(path_);
  std::vector<std::string> paths;
  for (const SharedChildData& data : storage_) {
    if (data->path != path_) paths.push_back(data->path);
  }
  std::sort(paths.begin(), paths.end());  // in path order, never the hash set's
  for (std::string& path : paths) nodeChanged(std::move(path));
}

void CuratorCache::processEvent(const zk::WatchedEvent& event) {
  if (state_ != State::started) return;
  switch (event.type) {
    case zk::EventType::node_data_changed:
    case zk::EventType::node_created: nodeChanged(event.path); break;
    case zk::EventType::node_deleted: removeStorage(event.path); break;
    case zk::EventType::node_children_changed:  // a recursive watch does not get it
    case zk::EventType::none: break;
  }
}

void CuratorCache::nodeChanged(std::string path) {
  if (state_ != State::started) return;
  if (oneShot()) {
    oneShotNodeChanged(std::move(path));
    return;
  }
  increment();
  scope_.spawn(readTask<zk::DataResult>(std::move(path)));
}

const CuratorCache::BackgroundRead<zk::DataResult> CuratorCache::nodeChangedRead{&CuratorFramework::getDataInBackground,
                                                                                  &CuratorFramework::backgroundGetData, &CuratorCache::nodeRead};
const CuratorCache::BackgroundRead<zk::ChildrenResult> CuratorCache::childrenChangedRead{
    &CuratorFramework::getChildrenInBackground, &CuratorFramework::backgroundGetChildren, &CuratorCache::childrenRead};

template <class Result>
const CuratorCache::BackgroundRead<Result>& CuratorCache::backgroundRead() {
  if constexpr (std::is_same_v<Result, zk::DataResult>) {
    return nodeChangedRead;
  } else {
    return childrenChangedRead;
  }
}

// A read sent with a callback (nearly always: the client is connected) keeps nothing of the cache in
// a frame while it is in flight: in a burst of notifications there is one per changed node. Its
// callback runs when an awaiting coroutine would have been resumed, and a failed first attempt
// goes on to its retries in a coroutine started then, so the two ways run the same steps at the
// same instants. Disconnected, the whole read is awaited.
template <class Result>
sim::Task<void> CuratorCache::readTask(std::string path) {
  const BackgroundRead<Result>& read = backgroundRead<Result>();
  const sim::Instant start = client_.sim().now();
  if (client_.canReadInBackground()) {
    std::string requested = path;  // the request's copy; the callback keeps this one
    // Called once: the path moves on to whichever step comes next. 64 bytes (a burst holds one of
    // these per changed node in every cache).
    auto answered = [this, alive = std::weak_ptr<const bool>(alive_), path = std::move(path), start](Result result) mutable {
      if (alive.expired()) return;  // the cache is gone, with its scope
      if (result.code == zk::Code::ok) {
        (this->*backgroundRead<Result>().answered)(std::move(path), std::move(result));
      } else {
        scope_.start(awaitTask<Result>(std::move(path), start, result.code));
      }
    };
    static_assert(sizeof(answered) <= 64);
    const bool sent = (client_.*read.send)(std::move(requested), std::move(answered));
    ELECTSIM_ASSERT(sent);
    co_return;
  }
  co_await awaitTask<Result>(std::move(path), start, zk::Code::ok);
}

template <class Result>
sim::Task<void> CuratorCache::awaitTask(std::string path, sim::Instant start, zk::Code failed) {
  const BackgroundRead<Result>& read = backgroundRead<Result>();
  Result result = co_await (client_.*read.await)(path, start, failed);
  (this->*read.answered)(std::move(path), std::move(result));
}

void CuratorCache::nodeRead(std::string path, zk::DataResult result) {
  if (state_ != State::started) return;
  if (result.code == zk::Code::ok) {
    const zk::Stat stat = result.stat;
    std::optional<zk::Stat> previous = putStorage(ChildData{path, result.stat, std::move(result.data)});
    checkChildrenChanged(path, previous, stat);
  } else if (result.code == zk::Code::no_node) {
    removeStorage(path);
  }
  // Other codes: handleException (logged); the next rebuild reads the node again.
  decrement();
}

void CuratorCache::checkChildrenChanged(const std::string& fromPath, const std::optional<zk::Stat>& oldStat, const zk::Stat& newStat) {
  if (state_ != State::started) return;
  if (oldStat && oldStat->cversion == newStat.cversion) return;  // children haven't changed
  increment();
  scope_.spawn(readTask<zk::ChildrenResult>(fromPath));
}

void CuratorCache::childrenRead(std::string fromPath, zk::ChildrenResult result) {
  if (state_ != State::started) return;
  if (result.code == zk::Code::ok) {
    // Every child is read again, known or not: versions keep the events unique.
    for (const std::string& child : result.children) nodeChanged(ZKPaths::makePath(fromPath, child));
  } else if (result.code == zk::Code::no_node) {
    removeStorage(fromPath);
  }
  decrement();
}

std::optional<zk::Stat> CuratorCache::putStorage(ChildData read) {
  // Held here as well: the listeners see `data`, which a listener's close() cannot clear.
  SharedChildData data = SharedChildData::intern(std::move(read));
  auto found = storage_.find(data->path);
  if (found == storage_.end()) {
    storage_.insert(data);
    callListeners(CuratorCacheListener::Type::NODE_CREATED, {}, data);
    return std::nullopt;
  }
  // Same path, so the same hash: the entry is taken out, changed and put back without reallocating.
  auto entry = storage_.extract(found);
  SharedChildData previous = std::exchange(entry.value(), data);
  storage_.insert(std::move(entry));
  if (previous->stat.version != data->stat.version) callListeners(CuratorCacheListener::Type::NODE_CHANGED, previous, data);
  return previous->stat;
}

void CuratorCache::removeStorage(const std::string& path) {
  watches_.erase(path);
  auto found = storage_.find(path);
  if (found == storage_.end()) return;
  SharedChildData previous = std::move(storage_.extract(found).value());
  callListeners(CuratorCacheListener::Type::NODE_DELETED, previous, {});
}

void CuratorCache::callListeners(CuratorCacheListener::Type type, const SharedChildData& oldData, const SharedChildData& data) {
  if (state_ != State::started) return;
  // The listeners registered now, in order; one removed by an earlier call is skipped.
  boost::container::small_vector<std::uint64_t, 8> ids;
  for (const auto& [id, listener] : listeners_) ids.push_back(id);
  for (std::uint64_t id : ids) {
    auto found = std::find_if(listeners_.begin(), listeners_.end(), [id](const auto& entry) { return entry.first == id; });
    if (found == listeners_.end() || !found->second->event) continue;
    std::shared_ptr<const CuratorCacheListener> listener = found->second;  // the call may remove it
    listener->event(type, oldData, data);
  }
}

void CuratorCache::decrement() {
  ELECTSIM_ASSERT(outstandingOps_ > 0);
  if (--outstandingOps_ > 0 || initialized_) return;
  initialized_ = true;
  std::vector<std::function<void()>> initialized;
  for (const auto& [id, listener] : listeners_) {
    if (listener->initialized) initialized.push_back(listener->initialized);
  }
  for (const auto& call : initialized) call();
}

}  // namespace curator
