// The client layer of Curator (curator-client): CuratorZookeeperClient with its ConnectionState
// and HandleHolder, i.e. the ZooKeeper handle wrapper.
//
//  - start() and every reset() make a new ZooKeeper handle, which starts connecting at once, and
//    bump instanceIndex. A reset closes the old handle first (closeAndReset) after swapping its
//    default watcher for a dummy: nothing more is processed from it.
//  - The default watcher of the current handle (ConnectionState.process) keeps the isConnected
//    flag in event order (SyncConnected -> true; Disconnected, AuthFailed, Closed, Expired -> false),
//    records the negotiated session timeout on connect, and on Expired resets right away: a new
//    handle, hence a new session once a server answers. Then every event goes on to the parent
//    watcher (CuratorFrameworkImpl), so the framework sees Expired after the reset.
//  - injectSessionExpiration() is ZooKeeperTestable.injectSessionExpiration(), which the
//    ConnectionStateManager uses after SUSPENDED has lasted the session timeout: an Expired event
//    is processed as if the server had sent it, and the reset it triggers closes the handle locally
//    (zk::ZooKeeper::injectSessionExpiration: no closeSession reaches the server, whose session
//    lives on until it expires there, even if the handle happened to be connected).
//
// Retired handles are kept until this object is destroyed: a coroutine may still be waiting for
// one of their calls (their calls fail with SESSIONEXPIRED once closed).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "model/zk/client/ZooKeeper.h"
#include "sim/node.h"

namespace curator {

class CuratorZookeeperClient {
 public:
  // The parent watcher receives every event of the current handle, with that handle's index.
  using ParentWatcher = std::function<void(std::int64_t instanceIndex, const zk::WatchedEvent& event)>;
  static constexpr std::size_t handles_max = 100'000;  // one per session the client ever had

  // A null `factory` makes simulated handles.
  CuratorZookeeperClient(sim::Node& node, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, std::uint64_t seed,
                         ParentWatcher parent, std::shared_ptr<zk::ZookeeperFactory> factory = nullptr);
  ~CuratorZookeeperClient();
  CuratorZookeeperClient(const CuratorZookeeperClient&) = delete;
  CuratorZookeeperClient& operator=(const CuratorZookeeperClient&) = delete;

  void start();
  // Closes the current handle (closeSession if connected: the server deletes our ephemerals now).
  sim::Task<void> close();
  bool started() const { return started_; }

  // The current handle. References stay valid until this object is destroyed.
  zk::ZooKeeper& getZooKeeper();
  bool isConnected() const { return isConnected_; }
  std::int64_t getInstanceIndex() const { return instanceIndex_; }
  sim::Duration getSessionTimeout() const { return sessionTimeout_; }
  // 0 until a handle has connected once.
  sim::Duration getLastNegotiatedSessionTimeout() const { return lastNegotiatedSessionTimeout_; }
  // ConnectionState.reset(): instanceIndex++, not connected, old handle closed, new handle.
  void reset();
  void injectSessionExpiration();
  // Compatibility.hasPersistentWatchers: whether the handles have addWatch.
  bool hasPersistentWatchers() const { return factory_->hasPersistentWatchers(); }

  sim::Node& node() const { return node_; }

 private:
  void process(std::int64_t instanceIndex, const zk::WatchedEvent& event);
  bool checkState(zk::KeeperState state, bool wasConnected);

  sim::Node& node_;
  std::vector<sim::NodeId> servers_;
  sim::Duration sessionTimeout_;
  std::uint64_t seed_;
  ParentWatcher parent_;
  std::shared_ptr<zk::ZookeeperFactory> factory_;
  bool started_ = false;
  bool isConnected_ = false;
  std::int64_t instanceIndex_ = 0;
  sim::Duration lastNegotiatedSessionTimeout_{0};
  std::vector<std::unique_ptr<zk::ZooKeeper>> handles_;  // handles_[i] is instance i + 1
  bool injectingExpiration_ = false;  // the reset under way closes the old handle locally
  sim::Scope closers_;  // closes retired handles; declared last, so destroyed first
};

}  // namespace curator
