// CuratorFramework (CuratorFrameworkImpl): a ZooKeeper client with connection-state management,
// retries and the builders' options, over the model's zk::ZooKeeper.
//
// Operations are coroutines returning the ZooKeeper result with its zk::Code (Curator throws a
// KeeperException; here the code is the exception). Each runs in one of Curator's two ways:
//
//   foreground (the default; RetryLoop.callWithRetry): wait once, at most connectionTimeout, for the
//     connection, then attempt; a retryable code (CONNECTIONLOSS, OPERATIONTIMEOUT, SESSIONMOVED,
//     SESSIONEXPIRED) sleeps as ExponentialBackoffRetry says and tries again, up to maxRetries.
//   Call::inBackground (OperationAndData on the background queue): while disconnected and younger
//     than connectionTimeout, wait in steps of 1 s that a SyncConnected cuts short; older, fail the
//     attempt with CONNECTIONLOSS without calling ZooKeeper; retries as above; when they run out,
//     validateConnection(codeToState(rc)) (CONNECTIONLOSS -> SUSPENDED, SESSIONEXPIRED -> LOST).
//     The caller's code after co_await is the BackgroundCallback.
//
// Watchers go through usingWatcher(owner, ...): the framework keeps them in a table so that
// (a) removeWatchers(owner) unhooks a recipe (WatcherRemoveCuratorFramework), and (b) session
// events (Disconnected, SyncConnected, Expired) reach every watcher registered on the handle, as
// ZooKeeper's ZKWatchManager.materialize does for EventType.None, which the model's client does
// not. One-shot semantics are kept: a watcher is dropped once its node event fires, unless it was
// added by addWatch (persistent), which stays until its recipe removes it or its handle dies.
//
// Lifetime: recipes (and anything awaiting an operation) must be destroyed before the framework.
// The framework keeps every ZooKeeper handle it ever made until it is destroyed.
//
// Trace events emitted by model/curator (sim.trace().emit(node, kind, fields)):
//
//   kind                      fields                              when
//   client.state              layer="curator", state               ConnectionStateManager posts a state
//   curator.retry             operation, attempt, sleep_ms        a retryable failure is retried
//                                                                 (attempt: 1 for the first retry)
//   curator.create_null       path, code                          a foreground protected create returns
//                                                                 null: it failed retryably after its find
//                                                                 completed the shared retry loop
//   curator.handle_replaced   old_session, new_session            a new handle's first SyncConnected
//                                                                 after an expiry or reset
//   latch.leader              path, id, node_path                 LeaderLatch.setLeadership(true)
//   latch.not_leader          path, id                            LeaderLatch.setLeadership(false) on a leader
//   latch.reset               path, id                            LeaderLatch.reset() (a new node)
//   selector.leader           path, id                            LeaderSelector acquired, before takeLeadership
//   selector.released         path, id                            takeLeadership returned or was interrupted
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/curator/ConnectionState.h"
#include "model/curator/ConnectionStateManager.h"
#include "model/curator/CuratorZookeeperClient.h"
#include "model/curator/ExponentialBackoffRetry.h"
#include "model/zk/client/ZooKeeper.h"

namespace curator {

using namespace std::chrono_literals;

class RetryLoop;

struct CuratorFrameworkConfig {
  // CuratorFrameworkFactory's defaults. The server clamps the session timeout into
  // [2, 20] ticks (60 s becomes 40 s with tickTime 2000); the negotiated value drives everything.
  sim::Duration sessionTimeout = 60000ms;     // DEFAULT_SESSION_TIMEOUT_MS
  sim::Duration connectionTimeout = 15000ms;  // DEFAULT_CONNECTION_TIMEOUT_MS
  // new ExponentialBackoffRetry(1000, 3): the policy of every example and of source 003.
  sim::Duration baseSleepTime = 1000ms;
  int maxRetries = 3;
  sim::Duration maxSleep = ExponentialBackoffRetry::DEFAULT_MAX_SLEEP;
  ConnectionStateErrorPolicy connectionStateErrorPolicy = ConnectionStateErrorPolicy::standard;
  int simulatedSessionExpirationPercent = 100;
  // CuratorFrameworkFactory.Builder.zookeeperFactory: null makes simulated handles (the model's
  // client); live mode gives live::LiveZookeeperFactory (the C client against a real ensemble).
  std::shared_ptr<zk::ZookeeperFactory> zookeeperFactory;
};

// Foreground (callWithRetry) or background (inBackground(callback)).
enum class Call : std::uint8_t { foreground, inBackground };

// The option structs below declare their default constructor so that they are not aggregates:
// GCC 12 copies an aggregate initialised in place (`CreateOptions{}`, or a `= {}` default
// argument) into a coroutine's frame bit by bit, leaving a std::string pointing into the caller's
// frame. A declared constructor makes it a normal copy.

// CreateBuilder's options.
struct CreateOptions {
  CreateOptions() = default;
  zk::CreateMode mode = zk::CreateMode::persistent;
  bool creatingParentsIfNeeded = false;
  // Curator makes CONTAINER parents; the model's server has no containers, so the parents are
  // plain persistent nodes (never reaped when empty).
  bool creatingParentContainersIfNeeded = false;
  bool withProtection = false;
  // With protection: the UUID to use (from newProtectedId()); empty means "draw one now". A recipe
  // that must clean up after an interrupted create chooses it beforehand.
  std::string protectedId;
  Call call = Call::foreground;
};

// DeleteBuilder's options.
struct DeleteOptions {
  DeleteOptions() = default;
  std::int32_t version = -1;
  bool guaranteed = false;                // on a retryable failure, FailedDeleteManager retries in the background
  bool deletingChildrenIfNeeded = false;  // NOTEMPTY -> ZKPaths.deleteChildren, then delete again
  bool quietly = false;                   // NONODE is success
  Call call = Call::foreground;
};

// A watcher handed to an operation, with the recipe that owns it (for removeWatchers).
struct CuratorWatcher {
  CuratorWatcher() = default;
  CuratorWatcher(std::uint64_t owner, zk::Watcher process) : owner(owner), process(std::move(process)) {}
  std::uint64_t owner = 0;
  zk::Watcher process;  // empty: no watch
};

class CuratorFramework {
 public:
  enum class State : std::uint8_t { latent, started, stopped };
  // How many ZooKeeper requests of each kind the framework sent (every attempt counts).
  struct RequestCounts {
    std::uint64_t create = 0, deleteNode = 0, exists = 0, getData = 0, getChildren = 0, setData = 0, multi = 0, addWatch = 0;
    std::uint64_t total() const { return create + deleteNode + exists + getData + getChildren + setData + multi + addWatch; }
  };
  static constexpr std::size_t watchers_max = 1'000'000;

  CuratorFramework(sim::Node& node, std::vector<sim::NodeId> servers, CuratorFrameworkConfig config, std::uint64_t seed);
  ~CuratorFramework();
  CuratorFramework(const CuratorFramework&) = delete;
  CuratorFramework& operator=(const CuratorFramework&) = delete;

  // LATENT -> STARTED: the connection-state manager first, then the first handle.
  void start();
  // STARTED -> STOPPED: listeners dropped, then the handle closed (closeSession: the server deletes
  // our ephemerals at once). Pending operations fail with SESSIONEXPIRED.
  sim::Task<void> close();
  State getState() const { return state_; }
  bool isStarted() const { return state_ == State::started; }

  // ConnectionStateManager.blockUntilConnected: no maxWait waits as long as it takes.
  sim::Task<bool> blockUntilConnected(std::optional<sim::Duration> maxWait = std::nullopt);
  ConnectionStateManager& getConnectionStateListenable() { return connectionStateManager_; }
  ConnectionStateErrorPolicy getConnectionStateErrorPolicy() const { return config_.connectionStateErrorPolicy; }
  CuratorZookeeperClient& getZookeeperClient() { return client_; }
  const CuratorFrameworkConfig& config() const { return config_; }
  ExponentialBackoffRetry& getRetryPolicy() { return retryPolicy_; }
  const RequestCounts& requestCounts() const { return requestCounts_; }
  sim::Node& node() const { return node_; }
  sim::Simulation& sim() const { return node_.sim(); }

  // ---- operations ----
  sim::Task<zk::CreateResult> create(std::string path, std::string data, CreateOptions options = {});
  sim::Task<zk::StatResult> checkExists(std::string path, CuratorWatcher watcher = {}, Call call = Call::foreground);
  sim::Task<zk::DataResult> getData(std::string path, CuratorWatcher watcher = {}, Call call = Call::foreground);
  sim::Task<zk::ChildrenResult> getChildren(std::string path, CuratorWatcher watcher = {}, Call call = Call::foreground);
  // getData().inBackground(callback).forPath(path) when its first attempt can start at once
  // (started and connected, as nearly always): the read is sent now and its result handed to
  // `callback`, so nothing of it waits in a coroutine frame (in a burst of notifications, a
  // CuratorCache has a read in flight per changed node). False, with nothing sent, otherwise: the
  // caller then awaits backgroundGetData(path, start). A failure handed to the callback is the
  // first attempt's; backgroundGetData(path, start, failed) goes on from there.
  bool getDataInBackground(std::string path, zk::ZooKeeper::DataCallback callback);
  bool getChildrenInBackground(std::string path, zk::ZooKeeper::ChildrenCallback callback);
  // Whether the two above would send now (a caller that knows can hand over its only copy of the path).
  bool canReadInBackground();
  // getData(path, {}, Call::inBackground) for a read that began at `start`: from its first
  // attempt, or, given the code that attempt `failed` with, from its retries.
  sim::Task<zk::DataResult> backgroundGetData(std::string path, sim::Instant start, zk::Code failed = zk::Code::ok);
  sim::Task<zk::ChildrenResult> backgroundGetChildren(std::string path, sim::Instant start, zk::Code failed = zk::Code::ok);
  sim::Task<zk::StatResult> setData(std::string path, std::string data, std::int32_t version = -1, Call call = Call::foreground);
  sim::Task<zk::Code> deleteNode(std::string path, DeleteOptions options = {});
  // transaction().forOperations(...): one multi, retried like any foreground operation.
  sim::Task<zk::MultiResult> transaction(std::vector<zk::Op> ops);
  // watchers().add().withMode(mode).usingWatcher(watcher).forPath(basePath) (AddWatchBuilderImpl,
  // Curator 5.x): a persistent watch; UNIMPLEMENTED without hasPersistentWatchers().
  sim::Task<zk::Code> addWatch(std::string basePath, CuratorWatcher watcher, zk::AddWatchMode mode, Call call = Call::foreground);

  // FailedDeleteManager: delete().guaranteed().inBackground(), again and again while started.
  void deleteGuaranteedInBackground(std::string path);
  // FindAndDeleteProtectedNodeInBackground(parent, protectedId): runs until it succeeds.
  void findAndDeleteProtectedNodeInBackground(std::string parentPath, std::string protectedId);
  // A fresh protection UUID from the framework's random stream.
  std::string newProtectedId();

  // ---- watchers (WatcherRemoveCuratorFramework) ----
  std::uint64_t newWatcherOwner() { return nextWatcherOwner_++; }
  void removeWatchers(std::uint64_t owner);
  std::size_t registeredWatchers() const { return watchers_.size(); }

 private:
  friend class RetryLoop;
  struct WatcherEntry {
    std::uint64_t owner;
    std::int64_t instanceIndex;  // the handle it is registered on
    zk::Watcher process;
    // addWatch: its path (so a second add on the handle collapses) and mode; a watcher with a path
    // is persistent, not dropped when it fires.
    std::string persistentPath;
    zk::AddWatchMode persistentMode = zk::AddWatchMode::persistent;
    bool persistent() const { return !persistentPath.empty(); }
  };

  // The parent watcher: every event of the current handle.
  void processEvent(std::int64_t instanceIndex, const zk::WatchedEvent& event);
  void validateConnection(zk::KeeperState state);
  void checkInstanceIndex();
  static std::optional<zk::KeeperState> codeToState(zk::Code code);

  // Registers `watcher` for the handle of instanceIndex and returns what to give ZooKeeper.
  zk::Watcher usingWatcher(CuratorWatcher watcher, std::int64_t instanceIndex, std::uint64_t& id);
  void fireWatcher(std::uint64_t id, const zk::WatchedEvent& event);
  void dropWatcher(std::uint64_t id) { watchers_.erase(id); }

  // getData and getChildren: one read with its retries, which leaves a watch only on success. The
  // read is described by a constant, so that the frame of a read in flight holds one pointer for it.
  template <class Result>
  struct ReadOperation {
    std::string_view name;  // for the trace
    std::uint64_t RequestCounts::*count;
    zk::Async<Result> (zk::ZooKeeper::*read)(std::string path, zk::Watcher watcher);
    void (zk::ZooKeeper::*readWithCallback)(std::string path, zk::Watcher watcher, std::function<void(Result)> callback);
  };
  static const ReadOperation<zk::DataResult> getDataOperation;
  static const ReadOperation<zk::ChildrenResult> getChildrenOperation;
  // A read that began at `start`; with `failed` (not OK), from the retries after that first attempt.
  template <class Result>
  sim::Task<Result> readWithRetry(const ReadOperation<Result>& operation, std::string path, CuratorWatcher watcher, Call call,
                                  sim::Instant start, zk::Code failed = zk::Code::ok);
  template <class Result>
  bool readInBackground(const ReadOperation<Result>& operation, std::string path, std::function<void(Result)> callback);
  // ProtectedMode's state for one create's finds: where to look, the name's prefix, and for an
  // ephemeral node the session it would belong to (checkSetSessionId, validateFoundNode).
  struct ProtectedFind {
    std::string parentPath;
    std::string prefix;  // "_c_<uuid>-"
    bool ephemeral = false;
    zk::SessionId sessionId = 0;
  };
  // A nested callWithRetry over `loop`: OK with the node found (empty if none), or the code that
  // ended the loop.
  sim::Task<zk::CreateResult> findProtectedNodeInForeground(RetryLoop& loop, ProtectedFind& find);
  sim::Task<zk::Code> mkdirs(zk::ZooKeeper& zk, std::string path);
  sim::Task<zk::Code> deleteChildren(zk::ZooKeeper& zk, std::string path);
  sim::Task<void> guaranteedDeleteLoop(std::string path);
  sim::Task<void> findAndDeleteLoop(std::string parentPath, std::string protectedId);

  sim::Node& node_;
  CuratorFrameworkConfig config_;
  State state_ = State::latent;
  sim::Rng random_;  // protection UUIDs
  ExponentialBackoffRetry retryPolicy_;
  CuratorZookeeperClient client_;
  ConnectionStateManager connectionStateManager_;
  std::int64_t currentInstanceIndex_ = -1;  // the handle of the last SyncConnected
  zk::SessionId lastConnectedSession_ = 0;
  sim::Condition backgroundWake_;  // unSleepBackgroundOperations
  std::map<std::uint64_t, WatcherEntry> watchers_;
  std::uint64_t nextWatcherId_ = 1;
  std::uint64_t nextWatcherOwner_ = 1;
  RequestCounts requestCounts_;
  sim::Scope background_;  // the CSM loop, guaranteed deletes, find-and-delete; destroyed first
};

}  // namespace curator
