#include "model/curator/ConnectionStateManager.h"

#include <algorithm>

namespace curator {

ConnectionStateManager::ConnectionStateManager(CuratorZookeeperClient& client, int sessionExpirationPercent)
    : client_(client),
      sessionExpirationPercent_(sessionExpirationPercent),
      eventQueue_(client.node().sim(), QUEUE_SIZE),
      connectedChanged_(client.node().sim()) {
  // The builder accepts (0, 100]; 0 here means "off", as in the manager itself.
  ELECTSIM_ASSERT(sessionExpirationPercent >= 0);
  ELECTSIM_ASSERT(sessionExpirationPercent <= 100);
}

void ConnectionStateManager::start(sim::Scope& scope) {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Cannot be started more than once");
  state_ = State::started;
  scope.spawn(processEvents());
}

void ConnectionStateManager::close() {
  if (state_ != State::started) return;
  state_ = State::closed;
  listeners_.clear();
  eventQueue_.clear();
  connectedChanged_.notify_all();
}

std::uint64_t ConnectionStateManager::addListener(Listener listener) {
  ELECTSIM_ASSERT(listener);
  ELECTSIM_ASSERT(listeners_.size() < listeners_max);
  std::uint64_t id = nextListenerId_++;
  listeners_.push_back(Registration{id, std::move(listener)});
  return id;
}

void ConnectionStateManager::removeListener(std::uint64_t id) {
  std::erase_if(listeners_, [id](const Registration& registration) { return registration.id == id; });
}

bool ConnectionStateManager::setToSuspended() {
  if (state_ != State::started) return false;
  if (current_ == ConnectionState::lost || current_ == ConnectionState::suspended) return false;
  setCurrentConnectionState(ConnectionState::suspended);
  postState(ConnectionState::suspended);
  return true;
}

bool ConnectionStateManager::addStateChange(ConnectionState newConnectionState) {
  if (state_ != State::started) return false;
  if (current_ == newConnectionState) return false;
  setCurrentConnectionState(newConnectionState);
  ConnectionState localState = newConnectionState;
  bool isNegativeMessage = newConnectionState == ConnectionState::lost || newConnectionState == ConnectionState::suspended ||
                           newConnectionState == ConnectionState::read_only;
  if (!isNegativeMessage && !initialConnectMessageSent_) {
    initialConnectMessageSent_ = true;
    localState = ConnectionState::connected;
  }
  postState(localState);
  return true;
}

sim::Task<bool> ConnectionStateManager::blockUntilConnected(std::optional<sim::Duration> maxWait) {
  sim::Instant start = sim().now();
  while (!isConnected()) {
    if (state_ == State::closed) co_return false;
    if (!maxWait) {
      co_await connectedChanged_.wait();
      continue;
    }
    sim::Duration waitTime = *maxWait - (sim().now() - start);
    if (waitTime <= sim::Duration::zero()) co_return isConnected();
    co_await connectedChanged_.wait_for(waitTime);
  }
  co_return true;
}

void ConnectionStateManager::postState(ConnectionState state) {
  sim().trace().emit(client_.node().id(), "client.state", {{"layer", "curator"}, {"state", connectionStateName(state)}});
  connectedChanged_.notify_all();
  while (!eventQueue_.push(state)) {
    (void)eventQueue_.try_pop();  // "ConnectionStateManager queue full - dropping events to make room"
  }
}

sim::Task<void> ConnectionStateManager::processEvents() {
  while (state_ == State::started) {
    sim::Duration useSessionTimeout = getUseSessionTimeout();
    // With the simulated expiry off (percent 0, which Curator's builder never allows) a suspended
    // manager would poll with no time left and spin; it polls for half the timeout instead.
    bool timingSuspension = startOfSuspendedEpoch_.has_value() && sessionExpirationPercent_ > 0;
    sim::Duration elapsed = timingSuspension ? sim().now() - *startOfSuspendedEpoch_ : useSessionTimeout / 2;
    sim::Duration pollMax = std::max(sim::Duration::zero(), useSessionTimeout - elapsed);
    std::optional<ConnectionState> newState = co_await eventQueue_.poll(pollMax);
    if (state_ != State::started) co_return;  // closed while we waited
    if (newState) {
      dispatch(*newState);
    } else if (sessionExpirationPercent_ > 0) {
      checkSessionExpiration();
    }
    if (current_ == ConnectionState::lost && client_.isConnected()) {
      // CURATOR-525: "ConnectionState is LOST but isConnected() is true. Forcing RECONNECTED."
      addStateChange(ConnectionState::reconnected);
    }
  }
}

void ConnectionStateManager::dispatch(ConnectionState newState) {
  // A listener may add or remove listeners (a recipe closing itself): call each one registered
  // when the state was taken, if it is still registered when its turn comes.
  std::vector<std::uint64_t> ids;
  ids.reserve(listeners_.size());
  for (const Registration& registration : listeners_) ids.push_back(registration.id);
  for (std::uint64_t id : ids) {
    auto found = std::find_if(listeners_.begin(), listeners_.end(), [id](const Registration& r) { return r.id == id; });
    if (found == listeners_.end()) continue;
    Listener listener = found->listener;  // a copy: the call may remove the registration
    listener(newState);
    if (state_ != State::started) return;
  }
}

void ConnectionStateManager::checkSessionExpiration() {
  if (current_ == ConnectionState::suspended && startOfSuspendedEpoch_) {
    sim::Duration elapsed = sim().now() - *startOfSuspendedEpoch_;
    if (elapsed < getUseSessionTimeout()) return;
    // "Session timeout has elapsed while SUSPENDED. Injecting a session expiration."
    startOfSuspendedEpoch_ = sim().now();  // CURATOR-405: do not spin on this session
    if (lastExpiredInstanceIndex_ == client_.getInstanceIndex()) {
      client_.reset();  // CURATOR-561: the last injection did not take; LOST comes on reconnect
    } else {
      lastExpiredInstanceIndex_ = client_.getInstanceIndex();
      client_.injectSessionExpiration();
    }
  }
  // LOST: Java calls getZooKeeper() to let connection-string changes apply; nothing to do here.
}

void ConnectionStateManager::setCurrentConnectionState(ConnectionState newConnectionState) {
  current_ = newConnectionState;
  if (newConnectionState == ConnectionState::suspended) {
    startOfSuspendedEpoch_ = sim().now();
  } else {
    startOfSuspendedEpoch_.reset();
  }
}

sim::Duration ConnectionStateManager::getUseSessionTimeout() const {
  sim::Duration negotiated = client_.getLastNegotiatedSessionTimeout();
  sim::Duration useSessionTimeout = negotiated > sim::Duration::zero() ? negotiated : client_.getSessionTimeout();
  if (sessionExpirationPercent_ > 0 && startOfSuspendedEpoch_) useSessionTimeout = useSessionTimeout * sessionExpirationPercent_ / 100;
  return useSessionTimeout;
}

}  // namespace curator
