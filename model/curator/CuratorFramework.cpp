// CuratorFrameworkImpl: lifecycle, connection events, watchers, and the background managers
// (FailedDeleteManager, FindAndDeleteProtectedNodeInBackground). The operations' builders are in
// CuratorFrameworkOperations.cpp.
#include "model/curator/CuratorFramework.h"

#include <algorithm>

#include "model/curator/ProtectedUtils.h"
#include "model/curator/RetryLoop.h"
#include "model/curator/ZKPaths.h"

namespace curator {

CuratorFramework::CuratorFramework(sim::Node& node, std::vector<sim::NodeId> servers, CuratorFrameworkConfig config, std::uint64_t seed)
    : node_(node),
      config_(config),
      random_(sim::derive_seed(seed, "protection")),
      retryPolicy_(config.baseSleepTime, config.maxRetries, config.maxSleep, sim::derive_seed(seed, "retry")),
      client_(node, std::move(servers), config.sessionTimeout, sim::derive_seed(seed, "zookeeper"),
              [this](std::int64_t instanceIndex, const zk::WatchedEvent& event) { processEvent(instanceIndex, event); },
              config.zookeeperFactory),
      connectionStateManager_(client_, config.simulatedSessionExpirationPercent),
      backgroundWake_(node.sim()),
      background_(node.sim(), node.id()) {
  // A zero base sleep would let a background retry loop spin without time passing.
  ELECTSIM_ASSERT(config.baseSleepTime > sim::Duration::zero());
  ELECTSIM_ASSERT(config.connectionTimeout > sim::Duration::zero());
}

CuratorFramework::~CuratorFramework() {
  // Our coroutines go before the handles they may be waiting on (client_ is destroyed last).
  background_.clear();
  watchers_.clear();
}

void CuratorFramework::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Cannot be started more than once");
  state_ = State::started;
  connectionStateManager_.start(background_);
  client_.start();
}

sim::Task<void> CuratorFramework::close() {
  if (state_ != State::started) co_return;
  state_ = State::stopped;
  connectionStateManager_.close();
  backgroundWake_.notify_all();
  co_await client_.close();
}

sim::Task<bool> CuratorFramework::blockUntilConnected(std::optional<sim::Duration> maxWait) {
  return connectionStateManager_.blockUntilConnected(maxWait);
}

std::string CuratorFramework::newProtectedId() { return ProtectedUtils::randomUuid(random_); }

// ---- connection events ----

void CuratorFramework::processEvent(std::int64_t instanceIndex, const zk::WatchedEvent& event) {
  if (event.type != zk::EventType::none) return;  // node events come only through explicit watchers
  validateConnection(event.state);
  // ZKWatchManager.materialize(None): the session event reaches every watcher registered on the
  // handle, which keeps them (a dead handle's watchers are gone with it).
  std::vector<std::uint64_t> ids;
  for (const auto& [id, entry] : watchers_) {
    if (entry.instanceIndex == instanceIndex) ids.push_back(id);
  }
  for (std::uint64_t id : ids) {
    auto found = watchers_.find(id);
    if (found == watchers_.end()) continue;
    zk::Watcher process = found->second.process;  // a copy: the call may remove the entry
    process(event);
  }
  if (event.state == zk::KeeperState::expired || event.state == zk::KeeperState::closed) {
    std::erase_if(watchers_, [instanceIndex](const auto& item) { return item.second.instanceIndex == instanceIndex; });
  }
}

void CuratorFramework::validateConnection(zk::KeeperState state) {
  switch (state) {
    case zk::KeeperState::disconnected:
      connectionStateManager_.setToSuspended();  // StandardInternalConnectionHandler.suspendConnection
      break;
    case zk::KeeperState::expired: connectionStateManager_.addStateChange(ConnectionState::lost); break;
    case zk::KeeperState::sync_connected:
      checkInstanceIndex();
      connectionStateManager_.addStateChange(ConnectionState::reconnected);
      backgroundWake_.notify_all();  // unSleepBackgroundOperations
      break;
    case zk::KeeperState::auth_failed:
    case zk::KeeperState::closed: break;
  }
}

void CuratorFramework::checkInstanceIndex() {
  std::int64_t instanceIndex = client_.getInstanceIndex();
  std::int64_t previous = std::exchange(currentInstanceIndex_, instanceIndex);
  zk::SessionId session = client_.getZooKeeper().getSessionId();
  if (previous >= 0 && instanceIndex != previous) {
    // A new handle (a new session) since the last connection: LOST first, if not already.
    sim().trace().emit(node_.id(), "curator.handle_replaced", {{"old_session", lastConnectedSession_}, {"new_session", session}});
    connectionStateManager_.addStateChange(ConnectionState::lost);
  }
  lastConnectedSession_ = session;
}

std::optional<zk::KeeperState> CuratorFramework::codeToState(zk::Code code) {
  switch (code) {
    case zk::Code::no_auth: return zk::KeeperState::auth_failed;
    case zk::Code::connection_loss:
    case zk::Code::operation_timeout: return zk::KeeperState::disconnected;
    case zk::Code::session_expired: return zk::KeeperState::expired;
    case zk::Code::ok:
    case zk::Code::session_moved: return zk::KeeperState::sync_connected;
    default: return std::nullopt;
  }
}

// ---- watchers ----

zk::Watcher CuratorFramework::usingWatcher(CuratorWatcher watcher, std::int64_t instanceIndex, std::uint64_t& id) {
  id = 0;
  if (!watcher.process) return {};
  ELECTSIM_ASSERT(watchers_.size() < watchers_max);
  id = nextWatcherId_++;
  watchers_.emplace(id, WatcherEntry{watcher.owner, instanceIndex, std::move(watcher.process), {}, zk::AddWatchMode::persistent});
  std::uint64_t key = id;
  return [this, key](const zk::WatchedEvent& event) { fireWatcher(key, event); };
}

void CuratorFramework::fireWatcher(std::uint64_t id, const zk::WatchedEvent& event) {
  auto found = watchers_.find(id);
  if (found == watchers_.end()) return;  // removed by its recipe
  if (found->second.persistent()) {
    zk::Watcher process = found->second.process;  // a copy: the call may remove the entry
    process(event);
    return;
  }
  zk::Watcher process = std::move(found->second.process);
  watchers_.erase(found);  // a node event ends a one-shot watch
  process(event);
}

void CuratorFramework::removeWatchers(std::uint64_t owner) {
  std::erase_if(watchers_, [owner](const auto& item) { return item.second.owner == owner; });
}

// ---- background managers ----

void CuratorFramework::deleteGuaranteedInBackground(std::string path) {
  if (!isStarted()) return;
  background_.spawn(guaranteedDeleteLoop(std::move(path)));
}

sim::Task<void> CuratorFramework::guaranteedDeleteLoop(std::string path) {
  // FailedDeleteManager: when a guaranteed background delete runs out of retries, it is queued
  // again, for as long as the client is started.
  while (isStarted()) {
    DeleteOptions options;
    options.call = Call::inBackground;
    zk::Code code = co_await deleteNode(path, options);
    if (!ExponentialBackoffRetry::isRetryable(code)) co_return;
  }
}

void CuratorFramework::findAndDeleteProtectedNodeInBackground(std::string parentPath, std::string protectedId) {
  if (!isStarted()) return;
  background_.spawn(findAndDeleteLoop(std::move(parentPath), std::move(protectedId)));
}

sim::Task<void> CuratorFramework::findAndDeleteLoop(std::string parentPath, std::string protectedId) {
  std::string prefix = ProtectedUtils::getProtectedPrefix(protectedId);
  // One OperationAndData: its error callback's reset() restores the retry count, not the start
  // time, so once connectionTimeout has passed a round made while disconnected fails at once
  // (CURATOR-52) and sleeps as the retry policy says, not cut short by a reconnect.
  const sim::Instant start = sim().now();
  while (isStarted()) {
    zk::ChildrenResult children = co_await backgroundGetChildren(parentPath, start);
    if (children.code == zk::Code::ok) {
      for (const std::string& child : children.children) {
        if (child.starts_with(prefix)) deleteGuaranteedInBackground(ZKPaths::makePath(parentPath, child));
      }
      co_return;
    }
    // Its error callback resets it and runs it again, forever, on a retryable failure.
    if (!ExponentialBackoffRetry::isRetryable(children.code)) co_return;
  }
}

}  // namespace curator
