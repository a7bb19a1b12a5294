// CuratorCache (Curator 5.x, curator-recipes cache), the cache ElasticJob 3.0.x keeps of each job's
// subtree (ZookeeperRegistryCenter.addCacheData -> CuratorCache.build(client, "/J").start(); reads
// through get() fall back to ZooKeeper only for paths the cache does not hold).
//
// What Curator does: one persistent recursive watch on the root (ZooKeeper 3.6+ addWatch), re-added
// on every CONNECTED/RECONNECTED, after which rebuild() re-reads the root and every stored path.
// NodeCreated / NodeDataChanged -> nodeChanged(path): an asynchronous getData whose result goes to
// putStorage; NodeDeleted -> removeStorage(path) at once. putStorage: no previous entry ->
// NODE_CREATED(null, new); a previous entry with another version -> NODE_CHANGED(old, new); the
// same version -> nothing. A getData whose stat shows a new cversion lists the children and calls
// nodeChanged for them. So the initial load gives NODE_CREATED for every existing node, then
// `initialized` once the outstanding operations drain; an event carries the data as getData
// returned it, not as it was when the change happened; and the cache lags ZooKeeper by a
// notification plus a getData round trip (a deletion: by the notification alone).
//
// The model follows CuratorCacheImpl over PersistentWatcher when the client has addWatch
// (Compatibility.hasPersistentWatchers). Live mode's C client of 3.8 has no addWatch, so there the
// recursive watch is emulated the way TreeCache (and CuratorCache's bridge for older clients)
// does it, in CuratorCacheOneShotWatches.cpp: a one-shot data watch on every cached node (getData
// with a watcher) and a one-shot child watch on it (getChildren with a watcher), each
// re-registered when it fires, and all re-registered on the new handle after a session change.
// The events and their lag are the same; between a one-shot watch firing and its
// re-registration, several changes of one node collapse into one read, and the servers hold two
// watches per cached node instead of one per cache.
//
// Listeners run synchronously, in registration order, on the coroutine that applied the change
// (Curator: on the client's runSafe thread, then each on its own executor if given one).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "model/curator/ChildData.h"
#include "model/curator/CuratorFramework.h"
#include "model/curator/PersistentWatcher.h"
#include "sim/string_hash.h"

namespace curator {

struct CuratorCacheListener {
  enum class Type : std::uint8_t { NODE_CREATED, NODE_CHANGED, NODE_DELETED };
  // oldData is empty for NODE_CREATED, data is empty for NODE_DELETED. A listener may keep them (a
  // queued notification does), as a Java listener may keep the ChildData objects it is handed.
  std::function<void(Type type, const SharedChildData& oldData, const SharedChildData& data)> event;
  std::function<void()> initialized;
};

std::string_view cacheEventTypeName(CuratorCacheListener::Type type);  // "NODE_CREATED", ...

class CuratorCache {
 public:
  static constexpr std::size_t listeners_max = 10'000;

  CuratorCache(CuratorFramework& client, std::string path);
  ~CuratorCache();
  CuratorCache(const CuratorCache&) = delete;
  CuratorCache& operator=(const CuratorCache&) = delete;

  void start();
  void close();  // stops, and clears the storage (clearOnClose, the default)

  // listenable().addListener / removeListener.
  std::uint64_t addListener(CuratorCacheListener listener);
  void removeListener(std::uint64_t id);

  // What the cache holds for `path` (possibly stale), or nothing.
  std::optional<ChildData> get(const std::string& path) const;
  // The same read without a copy: valid until the cache next changes.
  const ChildData* find(std::string_view path) const;
  // TreeCache's name for the same read.
  std::optional<ChildData> getCurrentData(const std::string& path) const { return get(path); }
  std::size_t size() const { return storage_.size(); }
  bool isInitialized() const { return initialized_; }
  const std::string& getPath() const { return path_; }

 private:
  enum class State : std::uint8_t { latent, started, closed };
  struct Watches {
    std::int64_t data = 0;      // the handle (instance index) our data watch is on; 0: none
    std::int64_t children = 0;  // same for the child watch
  };

  // CuratorCacheImpl, over the persistent recursive watch.
  void rebuild();
  void processEvent(const zk::WatchedEvent& event);
  void nodeChanged(std::string path);
  void nodeRead(std::string path, zk::DataResult result);  // nodeChanged's getData answered
  void checkChildrenChanged(const std::string& fromPath, const std::optional<zk::Stat>& oldStat, const zk::Stat& newStat);
  void childrenRead(std::string fromPath, zk::ChildrenResult result);
  // The two background reads, getData for nodeChanged and getChildren for checkChildrenChanged.
  template <class Result>
  struct BackgroundRead {
    bool (CuratorFramework::*send)(std::string path, std::function<void(Result)> callback);
    sim::Task<Result> (CuratorFramework::*await)(std::string path, sim::Instant start, zk::Code failed);
    void (CuratorCache::*answered)(std::string path, Result result);
  };
  static const BackgroundRead<zk::DataResult> nodeChangedRead;
  static const BackgroundRead<zk::ChildrenResult> childrenChangedRead;
  template <class Result>
  static const BackgroundRead<Result>& backgroundRead();  // the one of the two for Result
  // A read's callback finds its read from Result rather than holding it: 8 B less a read in flight.
  template <class Result>
  sim::Task<void> readTask(std::string path);
  template <class Result>
  sim::Task<void> awaitTask(std::string path, sim::Instant start, zk::Code failed);
  // The storage; putStorage returns the previous entry's stat.
  std::optional<zk::Stat> putStorage(ChildData data);
  void removeStorage(const std::string& path);
  void callListeners(CuratorCacheListener::Type type, const SharedChildData& oldData, const SharedChildData& data);
  void increment() { outstandingOps_++; }
  void decrement();

  // The one-shot emulation (CuratorCacheOneShotWatches.cpp).
  bool oneShot() const { return !persistentWatcher_; }
  void startOneShotWatches();
  void oneShotNodeChanged(std::string path);
  void oneShotChildrenChanged(std::string path);
  sim::Task<void> oneShotNodeChangedTask(std::string path);
  sim::Task<void> oneShotChildrenChangedTask(std::string path);
  sim::Task<void> watchRootCreationTask();
  CuratorWatcher dataWatcher(std::string path);
  CuratorWatcher childWatcher(std::string path);
  std::int64_t currentInstance() { return client_.getZookeeperClient().getInstanceIndex(); }

  CuratorFramework& client_;
  std::string path_;
  State state_ = State::latent;
  // CuratorCacheStorage.standard(): a ConcurrentHashMap by path in Java, a hash set by path here
  // (every listener's question is a lookup; a sorted set compared long common prefixes: 15% of a
  // 1,000-instance run). Nothing walks it in hash order: rebuild sorts what it reads. Each entry is
  // a shared copy of the node's version (ChildData.h): with 1,000 instances each caching the whole
  // job, the entries would otherwise be most of a run's memory.
  struct PathHash {
    using is_transparent = void;
    std::size_t operator()(std::string_view path) const { return sim::StringHash{}(path); }
    std::size_t operator()(const SharedChildData& data) const { return (*this)(std::string_view(data->path)); }
  };
  struct SamePath {
    using is_transparent = void;
    static std::string_view view(std::string_view path) { return path; }
    static std::string_view view(const SharedChildData& data) { return data->path; }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a) == view(b);
    }
  };
  std::unordered_set<SharedChildData, PathHash, SamePath> storage_;
  std::unique_ptr<PersistentWatcher> persistentWatcher_;  // null: the one-shot emulation
  std::map<std::string, Watches> watches_;                // the one-shot emulation's watches
  // Shared, so that a call keeps its listener alive without copying it (the call may remove it).
  std::vector<std::pair<std::uint64_t, std::shared_ptr<const CuratorCacheListener>>> listeners_;
  std::uint64_t nextListenerId_ = 1;
  std::optional<std::uint64_t> stateListener_;
  std::uint64_t watcherOwner_;
  std::int64_t outstandingOps_ = 0;  // OutstandingOps: `initialized` when it first drains
  bool initialized_ = false;
  // Expires with the cache: a read's callback (which may come after) checks it first.
  std::shared_ptr<const bool> alive_ = std::make_shared<const bool>(true);
  sim::Scope scope_;  // declared last: destroyed first
};

}  // namespace curator
