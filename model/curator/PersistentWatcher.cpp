#include "model/curator/PersistentWatcher.h"

#include <boost/container/small_vector.hpp>

namespace curator {

PersistentWatcher::PersistentWatcher(CuratorFramework& client, std::string basePath, bool recursive)
    : client_(client),
      basePath_(std::move(basePath)),
      recursive_(recursive),
      watcherOwner_(client.newWatcherOwner()),
      scope_(client.sim(), client.node().id()) {
  ELECTSIM_ASSERT(!basePath_.empty() && basePath_.front() == '/');
}

PersistentWatcher::~PersistentWatcher() {
  scope_.clear();
  close();
}

void PersistentWatcher::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Already started");
  ELECTSIM_ASSERT_MSG(client_.getZookeeperClient().hasPersistentWatchers(), "addWatch needs a ZooKeeper 3.6+ client");
  state_ = State::started;
  stateListener_ = client_.getConnectionStateListenable().addListener([this](ConnectionState newState) {
    if (isConnected(newState)) reset();
  });
  reset();
}

void PersistentWatcher::close() {
  if (state_ != State::started) return;
  state_ = State::closed;
  listeners_.clear();
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
  stateListener_.reset();
  client_.removeWatchers(watcherOwner_);  // see the header: local removal only
}

void PersistentWatcher::addListener(zk::Watcher listener) {
  ELECTSIM_ASSERT(listeners_.size() < listeners_max);
  listeners_.push_back(std::move(listener));
}

void PersistentWatcher::addResetListener(std::function<void()> listener) {
  ELECTSIM_ASSERT(resetListeners_.size() < listeners_max);
  resetListeners_.push_back(std::move(listener));
}

void PersistentWatcher::reset() {
  if (state_ != State::started) return;
  scope_.spawn(resetTask());
}

sim::Task<void> PersistentWatcher::resetTask() {
  // client.watchers().add().withMode(...).inBackground(callback).usingWatcher(watcher).forPath(basePath)
  const zk::AddWatchMode mode = recursive_ ? zk::AddWatchMode::persistent_recursive : zk::AddWatchMode::persistent;
  CuratorWatcher watcher{watcherOwner_, [this](const zk::WatchedEvent& event) { process(event); }};
  zk::Code code = co_await client_.addWatch(basePath_, std::move(watcher), mode, Call::inBackground);
  if (state_ != State::started) co_return;
  // Not retryable, so a reset loop on it would spin without time passing (start() checks).
  ELECTSIM_ASSERT(code != zk::Code::unimplemented);
  if (code != zk::Code::ok) {
    reset();  // the background retries ran out (they took time): try again
    co_return;
  }
  std::vector<std::function<void()>> listeners = resetListeners_;  // a copy: a call may add one
  for (const auto& listener : listeners) listener();
}

void PersistentWatcher::process(const zk::WatchedEvent& event) {
  if (state_ != State::started) return;
  // A copy, as a listener may close the watcher; nearly always one listener, held without allocating.
  boost::container::small_vector<zk::Watcher, 2> listeners(listeners_.begin(), listeners_.end());
  for (const auto& listener : listeners) listener(event);
}

}  // namespace curator
