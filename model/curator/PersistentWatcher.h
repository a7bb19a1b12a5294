// PersistentWatcher (Curator 5.x, curator-recipes watch): a persistent watch (ZooKeeper 3.6+
// addWatch) kept in place over connection changes. CuratorCache is built on it.
//
// start() and every later CONNECTED/RECONNECTED call reset(): addWatch in the background, and on
// OK the reset listeners run (CuratorCache rebuilds from them); on any error reset() again. Events
// of the watch reach the listeners, session events (EventType::none) included, as ZooKeeper's
// client hands every watcher the session events.
//
// Simplification: close() removes the watcher on the client only. Curator sends
// watchers().remove(watcher).guaranteed(), a checkWatches request that in ZooKeeper 3.8 only
// checks the server's watch (the server keeps it until the connection closes) and then removes
// the watcher locally; the model skips that round trip, in which a closed recipe ignores events
// anyway. The handle keeps re-adding the path at its reconnects (SetWatches2); its events reach
// no one.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "model/curator/CuratorFramework.h"

namespace curator {

class PersistentWatcher {
 public:
  static constexpr std::size_t listeners_max = 1'000;

  PersistentWatcher(CuratorFramework& client, std::string basePath, bool recursive);
  ~PersistentWatcher();
  PersistentWatcher(const PersistentWatcher&) = delete;
  PersistentWatcher& operator=(const PersistentWatcher&) = delete;

  void start();
  void close();

  // getListenable().addListener / getResetListenable().addListener.
  void addListener(zk::Watcher listener);
  void addResetListener(std::function<void()> listener);

 private:
  enum class State : std::uint8_t { latent, started, closed };

  void reset();
  sim::Task<void> resetTask();
  void process(const zk::WatchedEvent& event);

  CuratorFramework& client_;
  std::string basePath_;
  bool recursive_;
  State state_ = State::latent;
  std::vector<zk::Watcher> listeners_;
  std::vector<std::function<void()>> resetListeners_;
  std::optional<std::uint64_t> stateListener_;
  std::uint64_t watcherOwner_;
  sim::Scope scope_;  // declared last: destroyed first
};

}  // namespace curator
