#include "model/curator/LeaderLatch.h"

#include <algorithm>

#include "model/curator/CuratorSites.h"
#include "model/curator/LockInternals.h"
#include "model/curator/ZKPaths.h"

namespace curator {

LeaderLatch::LeaderLatch(CuratorFramework& client, std::string latchPath, std::string id, CloseMode closeMode, CuratorBugs bugs)
    : client_(client),
      latchPath_(std::move(latchPath)),
      id_(std::move(id)),
      closeMode_(closeMode),
      bugs_(bugs),
      watcherOwner_(client.newWatcherOwner()),
      monitor_(client.sim()),
      scope_(client.sim(), client.node().id()) {
  ELECTSIM_ASSERT(!latchPath_.empty() && latchPath_.front() == '/');
}

LeaderLatch::~LeaderLatch() {
  if (state_ == State::started) close();
  scope_.clear();
  // A create still in flight would have met the CLOSED check in its callback and deleted its node.
  for (const std::string& protectedId : createsInFlight_) client_.findAndDeleteProtectedNodeInBackground(latchPath_, protectedId);
  client_.removeWatchers(watcherOwner_);
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
}

void LeaderLatch::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Cannot be started more than once");
  state_ = State::started;
  spawn(startTask());
}

sim::Task<void> LeaderLatch::startTask() {
  // AfterConnectionEstablished.execute: wait for the connection on its own executor.
  co_await client_.blockUntilConnected();
  if (state_ == State::started) internalStart();  // cancelStartTask: a close meanwhile wins
}

void LeaderLatch::internalStart() {
  ELECTSIM_ASSERT(!stateListener_.has_value());
  stateListener_ = client_.getConnectionStateListenable().addListener([this](ConnectionState newState) { handleStateChange(newState); });
  reset();
}

void LeaderLatch::close(CloseMode closeMode) {
  ELECTSIM_ASSERT_MSG(state_ == State::started, "Already closed or has not been started");
  state_ = State::closed;
  setNode(std::nullopt);
  client_.removeWatchers(watcherOwner_);
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
  stateListener_.reset();
  if (closeMode == CloseMode::NOTIFY_LEADER) {
    setLeadership(false);
    listeners_.clear();
  } else {
    listeners_.clear();
    setLeadership(false);
  }
  monitor_.notify_all();  // await() returns false
}

sim::Task<bool> LeaderLatch::await() {
  while (state_ == State::started && !hasLeadership_) co_await monitor_.wait();
  co_return hasLeadership();
}

sim::Task<bool> LeaderLatch::await(sim::Duration timeout) {
  sim::Instant deadline = client_.sim().now() + timeout;
  while (state_ == State::started && !hasLeadership_) {
    if (client_.sim().now() >= deadline) co_return false;
    co_await monitor_.wait_until(deadline);
  }
  co_return hasLeadership();
}

void LeaderLatch::reset() {
  resets_++;
  client_.sim().trace().emit(client_.node().id(), "latch.reset", {{"path", latchPath_}, {"id", id_}});
  setLeadership(false);
  setNode(std::nullopt);
  spawn(createTask());
}

sim::Task<void> LeaderLatch::createTask() {
  CreateOptions options;
  options.mode = zk::CreateMode::ephemeral_sequential;
  options.creatingParentContainersIfNeeded = true;
  options.withProtection = !bugs_.latch_unprotected_create;
  options.call = Call::inBackground;
  if (options.withProtection) {
    options.protectedId = client_.newProtectedId();
    createsInFlight_.push_back(options.protectedId);
  }
  std::string protectedId = options.protectedId;
  zk::CreateResult created = co_await client_.create(ZKPaths::makePath(latchPath_, LOCK_NAME), id_, options);
  std::erase(createsInFlight_, protectedId);
  // "creatingParentContainersIfNeeded() failed": the latch waits without a node for the next
  // RECONNECTED (its getChildren finds no node of ours and resets).
  if (created.code != zk::Code::ok) co_return;
  setNode(created.path);
  co_await sim::reach(client_.sim(), client_.node().id(), sites::latch_node_created, {"path", created.path});
  if (state_ == State::closed) {
    setNode(std::nullopt);  // CURATOR-3: no node may outlive close()
  } else {
    getChildren();
  }
}

void LeaderLatch::getChildren() { spawn(getChildrenTask()); }

sim::Task<void> LeaderLatch::getChildrenTask() {
  CuratorWatcher watcher;
  if (bugs_.latch_watches_parent) {
    // The herd: every contender re-lists on every change of the parent's children. Not while our
    // own create is in flight (its callback lists the children anyway): with no node to look for,
    // the listing would reset() and create yet another node, and the herd would feed on itself.
    watcher = CuratorWatcher{watcherOwner_, [this](const zk::WatchedEvent& event) {
                               if (state_ != State::started || event.type != zk::EventType::node_children_changed) return;
                               watchNotifications_++;
                               if (ourPath_) getChildren();
                             }};
  }
  zk::ChildrenResult result = co_await client_.getChildren(latchPath_, std::move(watcher), Call::inBackground);
  if (state_ != State::started) co_return;
  if (result.code == zk::Code::ok) {
    checkLeadership(std::move(result.children));
  } else if (result.code == zk::Code::no_node) {
    reset();  // CURATOR-724: the latch path is gone
  }
}

void LeaderLatch::checkLeadership(std::vector<std::string> children) {
  std::optional<std::string> localOurPath = ourPath_;
  std::vector<std::string> sortedChildren = LockInternals::getSortedChildren(LOCK_NAME, std::move(children));
  std::ptrdiff_t ourIndex = -1;
  if (localOurPath) {
    auto found = std::find(sortedChildren.begin(), sortedChildren.end(), ZKPaths::getNodeFromPath(*localOurPath));
    if (found != sortedChildren.end()) ourIndex = found - sortedChildren.begin();
  }
  if (ourIndex < 0) {
    reset();  // "failed to find our node; resetting"
    return;
  }
  if (ourIndex == 0) {
    if (bugs_.curator_696_no_owner_check) {
      lastPathIsLeader_ = localOurPath;  // 5.4-5.6: the node is trusted whoever owns it
      setLeadership(true);
    } else {
      spawn(checkOwnerTask(*localOurPath));
    }
    return;
  }
  setLeadership(false);  // CURATOR-653
  if (bugs_.latch_watches_parent) return;  // getChildren already watches the parent
  spawn(watchPredecessorTask(ZKPaths::makePath(latchPath_, sortedChildren[static_cast<std::size_t>(ourIndex - 1)])));
}

sim::Task<void> LeaderLatch::checkOwnerTask(std::string localOurPath) {
  // CURATOR-696 (5.7): lead only on a node our current session owns.
  zk::DataResult data = co_await client_.getData(localOurPath, {}, Call::inBackground);
  if (state_ != State::started) co_return;
  zk::SessionId ephemeralOwner = data.code == zk::Code::ok ? data.stat.ephemeral_owner : -1;
  zk::SessionId thisSessionId = client_.getZookeeperClient().getZooKeeper().getSessionId();
  if (ephemeralOwner != thisSessionId) {
    reset();  // "this node is gone"
    co_return;
  }
  lastPathIsLeader_ = localOurPath;
  setLeadership(true);
}

sim::Task<void> LeaderLatch::watchPredecessorTask(std::string watchPath) {
  CuratorWatcher watcher{watcherOwner_, [this](const zk::WatchedEvent& event) {
                           if (state_ != State::started || event.type == zk::EventType::none) return;
                           watchNotifications_++;
                           if (event.type == zk::EventType::node_deleted) getChildren();
                         }};
  // getData rather than exists, so no watch is left on a node that is already gone.
  zk::DataResult data = co_await client_.getData(std::move(watchPath), std::move(watcher), Call::inBackground);
  if (state_ != State::started) co_return;
  if (data.code == zk::Code::no_node) getChildren();  // "previous node is gone; retry getChildren"
}

void LeaderLatch::handleStateChange(ConnectionState newState) {
  switch (newState) {
    case ConnectionState::reconnected: getChildren(); break;
    case ConnectionState::suspended:
      if (!bugs_.latch_ignores_connection_loss && isErrorState(client_.getConnectionStateErrorPolicy(), ConnectionState::suspended)) {
        setLeadership(false);
      }
      break;
    case ConnectionState::lost:
      if (!bugs_.latch_ignores_connection_loss) setLeadership(false);
      break;
    case ConnectionState::connected:
    case ConnectionState::read_only: break;
  }
}

void LeaderLatch::setLeadership(bool newValue) {
  bool oldValue = std::exchange(hasLeadership_, newValue);
  std::vector<LeaderLatchListener> listeners = listeners_;  // a listener may close the latch
  sim::NodeId node = client_.node().id();
  if (oldValue && !newValue) {
    client_.sim().trace().emit(node, "latch.not_leader", {{"path", latchPath_}, {"id", id_}});
    for (const LeaderLatchListener& listener : listeners) {
      if (listener.notLeader) listener.notLeader();
    }
  } else if (!oldValue && newValue) {
    std::string nodePath = lastPathIsLeader_.value_or("");
    client_.sim().trace().emit(node, "latch.leader", {{"path", latchPath_}, {"id", id_}, {"node_path", nodePath}});
    for (const LeaderLatchListener& listener : listeners) {
      if (listener.isLeader) listener.isLeader();
    }
  }
  monitor_.notify_all();
}

void LeaderLatch::setNode(std::optional<std::string> newValue) {
  std::optional<std::string> oldPath = std::exchange(ourPath_, std::move(newValue));
  if (oldPath) client_.deleteGuaranteedInBackground(*oldPath);
}

}  // namespace curator
