// ZooKeeper: the client handle applications use (org.apache.zookeeper.ZooKeeper), with the async
// API as awaitables (zk::Async): `auto created = co_await zk.create("/a", "", CreateMode::ephemeral);`.
// Watches are registered when the reply arrives: exists() on a missing node sets an exist watch,
// getData()/getChildren() only on success. An empty Watcher means no watch.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/zk/client/Async.h"
#include "model/zk/client/ClientCnxn.h"

namespace zk {

struct CreateResult {
  Code code = Code::ok;
  std::string path;
};
struct StatResult {
  Code code = Code::ok;
  Stat stat;
};
struct MultiResult {
  Code code = Code::ok;  // the first failing op's code (Java: the KeeperException of the multi)
  std::vector<OpResult> results;
};

// A multi's result from the call's code and the ops' results: its code is the first failing op's.
MultiResult makeMultiResult(Code code, std::vector<OpResult> results);

// Op for multi(): Op.create / Op.delete / Op.setData / Op.check.
struct Op {
  OpCode type = OpCode::check;
  std::string path;
  std::string data;
  CreateMode mode = CreateMode::persistent;
  std::int32_t version = -1;
  static Op create(std::string path, std::string data, CreateMode mode) { return Op{OpCode::create, std::move(path), std::move(data), mode, -1}; }
  static Op remove(std::string path, std::int32_t version = -1) { return Op{OpCode::delete_node, std::move(path), "", CreateMode::persistent, version}; }
  static Op setData(std::string path, std::string data, std::int32_t version = -1) {
    return Op{OpCode::set_data, std::move(path), std::move(data), CreateMode::persistent, version};
  }
  static Op check(std::string path, std::int32_t version) { return Op{OpCode::check, std::move(path), "", CreateMode::persistent, version}; }
};

// The handle the recipes use. Two implementations: SimulatedZooKeeper (the model's ClientCnxn, in
// virtual time) and live::LiveZooKeeper (the ZooKeeper C client against a real ensemble, driven in
// real time: docs/live-mode.md). The recipe code is the same code in both modes.
class ZooKeeper {
 public:
  virtual ~ZooKeeper() = default;

  virtual Async<CreateResult> create(std::string path, std::string data, CreateMode mode) = 0;
  virtual Async<Code> deleteNode(std::string path, std::int32_t version = -1) = 0;
  virtual Async<StatResult> exists(std::string path, Watcher watcher = {}) = 0;
  virtual Async<DataResult> getData(std::string path, Watcher watcher = {}) = 0;
  virtual Async<ChildrenResult> getChildren(std::string path, Watcher watcher = {}) = 0;
  virtual Async<StatResult> setData(std::string path, std::string data, std::int32_t version = -1) = 0;
  virtual Async<MultiResult> multi(std::vector<Op> ops) = 0;
  // addWatch (3.6+): a persistent watch on basePath, which need not exist, or a recursive one on
  // it and every node below; it stays after it fires, and over reconnects of this session.
  // UNIMPLEMENTED where the client has no addWatch (see ZookeeperFactory::hasPersistentWatchers).
  virtual Async<Code> addWatch(std::string basePath, Watcher watcher, AddWatchMode mode) = 0;
  // The asynchronous reads (getData(path, watcher, DataCallback, ctx) in Java): the request is
  // queued now and its result handed to `callback` (ClientCnxn::submitRequest with a callback).
  // Only where hasCallbacks(); a handle without them is awaited instead.
  using DataCallback = ClientCnxn::DataCallback;
  using ChildrenCallback = ClientCnxn::ChildrenCallback;
  virtual bool hasCallbacks() const { return false; }
  virtual void getData(std::string path, Watcher watcher, DataCallback callback);
  virtual void getChildren(std::string path, Watcher watcher, ChildrenCallback callback);
  // A graceful end: closeSession if connected (the server deletes the session's ephemerals now).
  // Destroying a handle that was not closed is what a process death does: the connection drops and
  // the session lives on at the servers until it expires.
  virtual sim::Task<void> close() = 0;
  // ZooKeeper.getTestable().injectSessionExpiration() (3.6+), which Curator uses: the handle closes
  // locally at once (state CLOSED, its connection dropped, no closeSession: the server's session
  // lives on until it expires there); calls in flight fail with SESSIONEXPIRED.
  virtual void injectSessionExpiration() = 0;

  virtual ClientCnxn::States getState() const = 0;
  virtual bool connected() const = 0;
  virtual bool closed() const = 0;
  virtual SessionId getSessionId() const = 0;
  virtual sim::Duration getSessionTimeout() const = 0;
  // The last zxid this client has seen (ClientCnxn.lastZxid); the live client only knows the
  // zxids in the Stats of its replies.
  virtual Zxid lastZxid() const = 0;
};

// org.apache.curator.utils.ZookeeperFactory: how a client layer makes each new handle (one per
// session). `servers` is the connect string: the server nodes of the simulation (a live factory
// maps each to its real server). `seed` drives the simulated client's shuffle and pauses.
class ZookeeperFactory {
 public:
  virtual ~ZookeeperFactory() = default;
  virtual std::unique_ptr<ZooKeeper> newZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout,
                                                  Watcher watcher, std::uint64_t seed) = 0;
  // Whether the handles have addWatch (Curator's Compatibility.hasPersistentWatchers: a 3.6+
  // client library). The live handles on the C client of 3.8 do not.
  virtual bool hasPersistentWatchers() const = 0;
};

class SimulatedZooKeeper final : public ZooKeeper {
 public:
  // `servers` is the connect string; `seed` drives the shuffle and the reconnect pauses.
  SimulatedZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, Watcher watcher, std::uint64_t seed)
      : cnxn_(std::make_unique<ClientCnxn>(owner, std::move(servers), sessionTimeout, std::move(watcher), seed)) {
    cnxn_->start();
  }

  Async<CreateResult> create(std::string path, std::string data, CreateMode mode) override;
  Async<Code> deleteNode(std::string path, std::int32_t version = -1) override;
  Async<StatResult> exists(std::string path, Watcher watcher = {}) override;
  Async<DataResult> getData(std::string path, Watcher watcher = {}) override;
  Async<ChildrenResult> getChildren(std::string path, Watcher watcher = {}) override;
  Async<StatResult> setData(std::string path, std::string data, std::int32_t version = -1) override;
  Async<MultiResult> multi(std::vector<Op> ops) override;
  Async<Code> addWatch(std::string basePath, Watcher watcher, AddWatchMode mode) override;
  bool hasCallbacks() const override { return true; }
  void getData(std::string path, Watcher watcher, DataCallback callback) override;
  void getChildren(std::string path, Watcher watcher, ChildrenCallback callback) override;
  sim::Task<void> close() override { return cnxn_->close(); }
  void injectSessionExpiration() override { cnxn_->closeLocally(); }

  ClientCnxn::States getState() const override { return cnxn_->state(); }
  bool connected() const override { return cnxn_->connected(); }
  bool closed() const override { return cnxn_->closed(); }
  SessionId getSessionId() const override { return cnxn_->getSessionId(); }
  sim::Duration getSessionTimeout() const override { return cnxn_->getNegotiatedTimeout(); }
  Zxid lastZxid() const override { return cnxn_->lastZxid(); }
  ClientCnxn& cnxn() { return *cnxn_; }

 private:
  std::unique_ptr<ClientCnxn> cnxn_;
};

// Makes SimulatedZooKeeper handles (Curator's DefaultZookeeperFactory).
class SimulatedZookeeperFactory final : public ZookeeperFactory {
 public:
  std::unique_ptr<ZooKeeper> newZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, Watcher watcher,
                                          std::uint64_t seed) override {
    return std::make_unique<SimulatedZooKeeper>(owner, std::move(servers), sessionTimeout, std::move(watcher), seed);
  }
  bool hasPersistentWatchers() const override { return true; }
};

}  // namespace zk
