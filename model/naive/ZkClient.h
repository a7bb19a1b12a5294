// ZkClient: the part of I0Itec's zkclient (0.x, org.I0Itec.zkclient.ZkClient) that source 002's
// WorkServer stands on, over the ZooKeeper client model. What it adds to a bare handle:
//
//  - retryUntilConnected: every operation that fails with CONNECTIONLOSS or SESSIONEXPIRED waits
//    until the client is SyncConnected again and is retried, for ever (operationRetryTimeout -1,
//    the default). Other codes are the caller's (ZkNodeExistsException, ZkNoNodeException).
//  - A new session after Expired: process(Expired) sets the state, reconnect() closes the dead
//    handle and opens a new one (a new session), and fireAllEvents() tells every data listener
//    "something may have changed", as below.
//  - Permanent data watches (subscribeDataChanges): an exists() watch on the path; every node
//    event on it (and every new session) queues a ZkEvent on the ZkEventThread, which re-installs
//    the watch with exists(path, true), reads the data and calls handleDataChange, or
//    handleDataDeleted if the node is gone. ZkEvents run one at a time, in order, and a listener
//    blocking in an operation holds the thread (the WorkServer's takeMaster does).
//  - Reads and exists() on a path with listeners set a watch too (hasListeners(path)).
//
// ZooKeeper keeps one client-side registration per watcher object and path (a HashSet), and
// ZkClient is the only watcher here, so a path is registered at most once per handle: `watched_`
// records it (Java's set does the same deduplication).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "model/zk/client/ZooKeeper.h"
#include "sim/sync.h"

namespace naive {

// IZkDataListener.
class IZkDataListener {
 public:
  virtual ~IZkDataListener() = default;
  virtual sim::Task<void> handleDataChange(std::string path, std::string data) = 0;
  virtual sim::Task<void> handleDataDeleted(std::string path) = 0;
};

class ZkClient {
 public:
  // new ZkClient(servers, sessionTimeout, connectionTimeout): the first handle starts connecting;
  // waitUntilConnected() is the constructor's wait. `factory` makes the handles (null: simulated
  // ones; live mode passes its own, as ZkClient's IZkConnection would be a real ZkConnection).
  ZkClient(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, std::uint64_t seed,
           std::shared_ptr<zk::ZookeeperFactory> factory = nullptr);
  ~ZkClient();
  ZkClient(const ZkClient&) = delete;
  ZkClient& operator=(const ZkClient&) = delete;

  // Until the state is SyncConnected (and the current handle is alive).
  sim::Task<void> waitUntilConnected();
  // create(path, data, mode): ok, or the KeeperException's code (node_exists, no_node).
  sim::Task<zk::CreateResult> create(std::string path, std::string data, zk::CreateMode mode);
  // readData(path, returnNullIfPathNotExists = true): ok or no_node.
  sim::Task<zk::DataResult> readData(std::string path);
  // delete(path): false if there was no node.
  sim::Task<bool> deleteNode(std::string path);
  // subscribeDataChanges: adds the listener, then watchForData (exists(path, true), retried).
  sim::Task<void> subscribeDataChanges(std::string path, IZkDataListener& listener);

  bool connected() const { return currentState_ == zk::KeeperState::sync_connected; }
  zk::SessionId sessionId() const { return handles_.back()->getSessionId(); }
  // Sessions opened so far (1 + the reconnects after Expired).
  std::size_t handles() const { return handles_.size(); }

 private:
  static bool retryable(zk::Code code) { return code == zk::Code::connection_loss || code == zk::Code::session_expired; }
  zk::ZooKeeper& handle() { return *handles_.back(); }
  std::size_t instance() const { return handles_.size(); }
  void connect();
  // ZkClient.process: the handle's default watcher and every watch's watcher, on the ZooKeeper
  // client's event thread.
  void process(std::size_t instance, const zk::WatchedEvent& event);
  // The watcher to pass for a read or exists on `path` (empty if the path has no listeners, or is
  // already registered on this handle); `force`: exists(path, true).
  zk::Watcher watchFor(const std::string& path, bool force);
  void notRegistered(const std::string& path, std::size_t instance);
  sim::Task<bool> exists(std::string path, bool watch);
  sim::Task<void> waitForRetry();
  sim::Task<void> eventThread();
  sim::Task<void> fireDataChangedEvents(std::string path, IZkDataListener& listener);

  sim::Node& owner_;
  std::vector<sim::NodeId> servers_;
  sim::Duration sessionTimeout_;
  std::uint64_t seed_;
  std::shared_ptr<zk::ZookeeperFactory> factory_;
  std::vector<std::unique_ptr<zk::ZooKeeper>> handles_;  // the last is current; retired ones are dead
  zk::KeeperState currentState_ = zk::KeeperState::disconnected;
  sim::Condition stateChanged_;
  std::map<std::string, std::vector<IZkDataListener*>> dataListeners_;
  std::set<std::string> watched_;  // paths with a watch registered (or being registered) on the current handle
  sim::Queue<std::string> zkEvents_;  // the ZkEventThread's queue: paths whose data listeners to fire
  sim::Scope threads_;                // declared last: destroyed first
};

}  // namespace naive
