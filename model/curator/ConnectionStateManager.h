// org.apache.curator.framework.state.ConnectionStateManager: turns the client's connection events
// into CONNECTED / SUSPENDED / RECONNECTED / LOST for the recipes, on its own event coroutine.
//
//  - addStateChange(s): ignored unless started or if s is the current state; otherwise current = s,
//    and the state posted is CONNECTED instead of s the first time a non-negative state is posted
//    (so the first SyncConnected posts CONNECTED while current holds RECONNECTED).
//  - setToSuspended(): SUSPENDED, unless already SUSPENDED or LOST.
//  - postState: wakes blockUntilConnected and queues the state (25 entries, the oldest dropped
//    when full). Listeners run later, one state at a time, on processEvents.
//  - processEvents polls the queue for half the session timeout (the negotiated one once known),
//    or, while SUSPENDED, until SUSPENDED has lasted timeout * percent / 100; then
//    checkSessionExpiration injects a session expiration (LOST, and a new handle), Curator 3+'s
//    simulated expiry. After every poll, LOST while the client is connected becomes RECONNECTED
//    (the CURATOR-525 fix).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "model/curator/ConnectionState.h"
#include "model/curator/CuratorZookeeperClient.h"
#include "sim/sync.h"

namespace curator {

class ConnectionStateManager {
 public:
  static constexpr std::size_t QUEUE_SIZE = 25;
  static constexpr std::size_t listeners_max = 10'000;
  using Listener = std::function<void(ConnectionState newState)>;

  // percent: simulatedSessionExpirationPercent (0 turns the simulated expiry off).
  ConnectionStateManager(CuratorZookeeperClient& client, int sessionExpirationPercent);
  ConnectionStateManager(const ConnectionStateManager&) = delete;
  ConnectionStateManager& operator=(const ConnectionStateManager&) = delete;

  // Spawns processEvents into `scope` (the framework's).
  void start(sim::Scope& scope);
  void close();

  // The Listenable<ConnectionStateListener>: an id to remove the listener with.
  std::uint64_t addListener(Listener listener);
  void removeListener(std::uint64_t id);
  std::size_t listenerCount() const { return listeners_.size(); }

  bool setToSuspended();
  bool addStateChange(ConnectionState newConnectionState);
  // Waits until the current state is a connected one; false when maxWait ran out first.
  sim::Task<bool> blockUntilConnected(std::optional<sim::Duration> maxWait);
  bool isConnected() const { return current_.has_value() && curator::isConnected(*current_); }
  std::optional<ConnectionState> getCurrentConnectionState() const { return current_; }

 private:
  enum class State : std::uint8_t { latent, started, closed };
  struct Registration {
    std::uint64_t id;
    Listener listener;
  };

  sim::Task<void> processEvents();
  void dispatch(ConnectionState newState);
  void postState(ConnectionState state);
  void checkSessionExpiration();
  void setCurrentConnectionState(ConnectionState newConnectionState);
  sim::Duration getUseSessionTimeout() const;
  sim::Simulation& sim() const { return client_.node().sim(); }

  CuratorZookeeperClient& client_;
  int sessionExpirationPercent_;
  State state_ = State::latent;
  std::optional<ConnectionState> current_;
  bool initialConnectMessageSent_ = false;
  std::optional<sim::Instant> startOfSuspendedEpoch_;
  std::int64_t lastExpiredInstanceIndex_ = -1;
  sim::Queue<ConnectionState> eventQueue_;
  sim::Condition connectedChanged_;  // the manager's monitor, for blockUntilConnected
  std::vector<Registration> listeners_;
  std::uint64_t nextListenerId_ = 1;
};

}  // namespace curator
