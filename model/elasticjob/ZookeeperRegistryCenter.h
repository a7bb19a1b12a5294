// ZookeeperRegistryCenter (elasticjob-registry-center-zookeeper-curator, 3.0.4) over the model's
// CuratorFramework: the one place where ElasticJob talks to ZooKeeper.
//
// Reads (digest §2.3):
//   get(key)            the job's CuratorCache first; a path the cache does not hold is read directly
//                       (so the cache can only be stale one way: an old value still held)
//   getDirectly(key)    getData
//   isExisted(key)      checkExists, always direct
//   getChildrenKeys     getChildren, always direct, sorted DESCENDING (Comparator.reverseOrder())
// Writes: persist (exists? update : create with parents), update (a transaction [check, setData]),
// persistEphemeral (exists? delete recursively; then create EPHEMERAL with parents), remove (delete
// recursively), executeInTransaction (one multi). None of these is atomic beyond one ZooKeeper call.
//
// Exception policy: every call passes its failure to RegExceptionHandler: CONNECTIONLOSS, NONODE and
// NODEEXISTS are swallowed (get -> null, isExisted -> false, children -> [], writes do nothing, and
// a multi-step write stops at the failing step), anything else throws RegException. Curator has
// already waited for the connection (connectionTimeout) and retried (ExponentialBackoffRetry(1000,
// 3, 3000)).
//
// executeInLeader(key, callback): a new LeaderLatch on key, start, await (no timeout), callback,
// close: a distributed mutex, not leadership.
//
// Listeners: watch() wraps an ElasticJob DataChangedEventListener into a CuratorCacheListener on the
// job's cache (NODE_CREATED -> ADDED, NODE_CHANGED -> UPDATED, NODE_DELETED -> DELETED with the last
// known data) and submits each event to the job's ListenerNotify executor. Connection states are
// mapped (CONNECTED; SUSPENDED and LOST -> UNAVAILABLE; RECONNECTED) and handed to ElasticJob's
// listeners one at a time on a dispatcher coroutine: the Curator ConnectionStateManager thread as
// ElasticJob's listeners see it (a blocking listener delays the next state).
//
// The Curator model has no namespaces: this class prefixes "/{namespace}" itself, and the cache of
// job J is built on "/{namespace}/J". Keys and event paths handed to ElasticJob code are
// namespace-relative ("/J/...") as Curator's namespace facade makes them.
//
// The state dispatcher runs in the node's process scope: the owner must destroy those coroutines
// (as a crash does) before this object.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/curator/CuratorCache.h"
#include "model/curator/CuratorFramework.h"
#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/ListenerNotifierManager.h"
#include "model/elasticjob/TransactionOperation.h"
#include "sim/eager.h"

namespace elasticjob {

using namespace std::chrono_literals;

// ZookeeperConfiguration, with 3.0.4's defaults. A zero timeout means Curator's default (60 s
// session, negotiated down to 20 ticks by the server; 15 s connection).
struct ZookeeperConfiguration {
  ZookeeperConfiguration() = default;
  std::vector<sim::NodeId> serverLists;
  std::string nameSpace = "electsim";
  sim::Duration baseSleepTimeMilliseconds = 1000ms;
  int maxRetries = 3;
  sim::Duration maxSleepTimeMilliseconds = 3000ms;
  sim::Duration sessionTimeoutMilliseconds{0};
  sim::Duration connectionTimeoutMilliseconds{0};
  // electsim addition: the Curator builder's zookeeperFactory (null: simulated handles; live mode
  // gives handles on the C client against a real ensemble).
  std::shared_ptr<zk::ZookeeperFactory> zookeeperFactory;
};

class ZookeeperRegistryCenter {
 public:
  static constexpr std::size_t state_queue_max = 1000;
  static constexpr std::size_t caches_max = 1000;

  ZookeeperRegistryCenter(sim::Node& node, ZookeeperConfiguration config, std::uint64_t seed);
  ~ZookeeperRegistryCenter();
  ZookeeperRegistryCenter(const ZookeeperRegistryCenter&) = delete;
  ZookeeperRegistryCenter& operator=(const ZookeeperRegistryCenter&) = delete;

  // init(): start the client and block until connected for maxSleep * maxRetries (9 s); false when
  // that ran out (Java closes the client and throws OperationTimeoutException: the application
  // does not start).
  sim::Task<bool> init();
  // close(): every cache closed, 500 ms (waitForCacheClose), then the client (closeSession).
  sim::Task<void> close();

  // Through the cache: a hit is answered without a coroutine (sim/eager.h), a miss reads directly.
  sim::Eager<std::optional<std::string>> get(std::string key);
  sim::Task<std::optional<std::string>> getDirectly(std::string key);
  sim::Task<std::vector<std::string>> getChildrenKeys(std::string key);
  sim::Task<bool> isExisted(std::string key);

  // Java returns void; the model returns how the call ended (OK or the swallowed code) so that the
  // trace can say what happened.
  sim::Task<zk::Code> persist(std::string key, std::string value);
  sim::Task<zk::Code> update(std::string key, std::string value);
  sim::Task<zk::Code> persistEphemeral(std::string key, std::string value);
  sim::Task<zk::Code> remove(std::string key);
  // The raw multi result; JobNodeStorage passes its code to RegExceptionHandler.
  sim::Task<zk::MultiResult> executeInTransaction(std::vector<TransactionOperation> operations);
  sim::Task<void> executeInLeader(std::string key, LeaderExecutionCallback& callback);

  void addCacheData(const std::string& cachePath);
  void evictCacheData(const std::string& cachePath);
  curator::CuratorCache* getRawCache(const std::string& cachePath);
  void watch(const std::string& key, DataChangedEventListener& listener, JobNotifyExecutor& executor);
  void removeDataListeners(const std::string& key);
  void addConnectionStateChangedEventListener(const std::string& key, ConnectionStateChangedEventListener& listener);
  void removeConnStateListener(const std::string& key);

  // What the job's cache holds for key (no ZooKeeper read), or null when the cache does not hold
  // it: get's answer on a hit, without building the Eager. Valid until the cache changes.
  const std::string* getCachedOnly(std::string_view key) const;
  // The same, for a caller that keeps toFullPath(key) (a read on a hot path).
  const std::string* getCachedOnly(std::string_view key, std::string_view fullPath) const;

  curator::CuratorFramework& getClient() { return *client_; }
  const ZookeeperConfiguration& getZkConfig() const { return config_; }
  // The session of the current handle (0 before the first connection).
  zk::SessionId getSessionId();
  // The zxid of the last reply the current handle received.
  zk::Zxid getLastZxid();
  // "/{namespace}" + key.
  std::string toFullPath(std::string_view key) const;
  // toFullPath into a buffer kept for cache lookups (no allocation once it has grown): valid until
  // the next call.
  std::string_view fullPathView(std::string_view key) const;

 private:
  struct CacheEntry {
    std::string key;  // "/J/", as in Java's map
    std::unique_ptr<curator::CuratorCache> cache;
    // Evicted caches are closed and no longer found; the object stays until the registry centre
    // goes, since a listener call may still be on the stack.
    bool evicted = false;
  };
  struct DataListenerEntry {
    std::string key;
    std::uint64_t id;
  };
  struct ConnStateListenerEntry {
    std::string key;
    ConnectionStateChangedEventListener* listener;
  };

  const CacheEntry* findCuratorCache(std::string_view key) const;
  static const std::string* dataIn(const CacheEntry& entry, std::string_view fullPath);  // null: not cached
  std::string fromFullPath(std::string_view path) const;
  void onConnectionStateChanged(curator::ConnectionState newState);
  sim::Task<void> dispatchConnectionStates();

  sim::Node& node_;
  ZookeeperConfiguration config_;
  std::string namespacePath_;  // "/electsim"
  mutable std::string fullPathScratch_;
  std::unique_ptr<curator::CuratorFramework> client_;
  std::vector<CacheEntry> caches_;
  std::vector<DataListenerEntry> dataListeners_;
  std::vector<ConnStateListenerEntry> connStateListeners_;
  sim::Queue<RegistryCenterState> stateQueue_;
};

}  // namespace elasticjob
