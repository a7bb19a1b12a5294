#include "model/curator/CuratorZookeeperClient.h"

namespace curator {

namespace {

// A coroutine like close(), so a local close is scheduled exactly where a close would be.
sim::Task<void> closeLocally(zk::ZooKeeper& handle) {
  handle.injectSessionExpiration();
  co_return;
}

}  // namespace

CuratorZookeeperClient::CuratorZookeeperClient(sim::Node& node, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout,
                                               std::uint64_t seed, ParentWatcher parent, std::shared_ptr<zk::ZookeeperFactory> factory)
    : node_(node),
      servers_(std::move(servers)),
      sessionTimeout_(sessionTimeout),
      seed_(seed),
      parent_(std::move(parent)),
      factory_(factory ? std::move(factory) : std::make_shared<zk::SimulatedZookeeperFactory>()),
      closers_(node.sim(), node.id()) {
  ELECTSIM_ASSERT(!servers_.empty());
  ELECTSIM_ASSERT(sessionTimeout_ > sim::Duration::zero());
}

CuratorZookeeperClient::~CuratorZookeeperClient() {
  // Coroutines waiting on a handle go first, then the handles (and their own threads).
  closers_.clear();
  handles_.clear();
}

void CuratorZookeeperClient::start() {
  ELECTSIM_ASSERT(!started_);
  started_ = true;
  reset();
}

sim::Task<void> CuratorZookeeperClient::close() {
  started_ = false;
  isConnected_ = false;
  if (handles_.empty()) co_return;
  zk::ZooKeeper& handle = *handles_.back();  // kept until this object goes
  co_await handle.close();
}

zk::ZooKeeper& CuratorZookeeperClient::getZooKeeper() {
  ELECTSIM_ASSERT_MSG(!handles_.empty(), "the client has not been started");
  return *handles_.back();
}

void CuratorZookeeperClient::reset() {
  ELECTSIM_ASSERT(handles_.size() < handles_max);
  // HandleHolder.closeAndReset: the old handle's watcher becomes a dummy (process() ignores any
  // index but the current one) and the handle is closed; a dead or disconnected handle closes
  // locally, a connected one sends closeSession first.
  instanceIndex_++;
  isConnected_ = false;
  if (!handles_.empty() && !handles_.back()->closed()) {
    closers_.spawn(injectingExpiration_ ? closeLocally(*handles_.back()) : handles_.back()->close());
  }
  std::int64_t index = instanceIndex_;
  handles_.push_back(factory_->newZooKeeper(
      node_, servers_, sessionTimeout_, [this, index](const zk::WatchedEvent& event) { process(index, event); },
      sim::derive_seed(seed_, static_cast<std::uint64_t>(index))));
  ELECTSIM_ASSERT(static_cast<std::int64_t>(handles_.size()) == instanceIndex_);
}

void CuratorZookeeperClient::injectSessionExpiration() {
  // The Expired event is processed while this handle is still the current one, so the reset it
  // triggers retires it, as for an Expired from the server, and closes it locally: the testable
  // handle's state is CLOSED already, so ZooKeeper.close() sends nothing.
  injectingExpiration_ = true;
  process(instanceIndex_, zk::WatchedEvent{zk::EventType::none, zk::KeeperState::expired, ""});
  injectingExpiration_ = false;
}

void CuratorZookeeperClient::process(std::int64_t instanceIndex, const zk::WatchedEvent& event) {
  if (instanceIndex != instanceIndex_) return;  // a retired handle: the dummy watcher
  if (event.type == zk::EventType::none) {
    bool wasConnected = isConnected_;
    bool newIsConnected = checkState(event.state, wasConnected);
    if (newIsConnected != wasConnected) {
      isConnected_ = newIsConnected;
      if (newIsConnected) lastNegotiatedSessionTimeout_ = handles_[static_cast<std::size_t>(instanceIndex - 1)]->getSessionTimeout();
    }
  }
  // The parent watchers see every event, after the reset an Expired caused.
  if (parent_) parent_(instanceIndex, event);
}

bool CuratorZookeeperClient::checkState(zk::KeeperState state, bool wasConnected) {
  switch (state) {
    case zk::KeeperState::sync_connected: return true;
    case zk::KeeperState::expired:
      // handleExpiredSession: reset now, so the next operation already uses a new handle.
      if (started_) reset();
      return false;
    case zk::KeeperState::disconnected:
    case zk::KeeperState::auth_failed:
    case zk::KeeperState::closed: return false;
  }
  return wasConnected;
}

}  // namespace curator
