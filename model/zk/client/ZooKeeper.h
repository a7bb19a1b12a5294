// ZooKeeper: the client handle applications use (org.apache.zookeeper.ZooKeeper), with the async
// API as coroutines: `auto created = co_await zk.create("/a", "", CreateMode::ephemeral);`.
// Watches are registered when the reply arrives: exists() on a missing node sets an exist watch,
// getData()/getChildren() only on success. An empty Watcher means no watch.
#pragma once

#include <memory>
#include <string>
#include <vector>

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
struct DataResult {
  Code code = Code::ok;
  std::string data;
  Stat stat;
};
struct ChildrenResult {
  Code code = Code::ok;
  std::vector<std::string> children;
  Stat stat;
};
struct MultiResult {
  Code code = Code::ok;  // the first failing op's code (Java: the KeeperException of the multi)
  std::vector<OpResult> results;
};

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

class ZooKeeper {
 public:
  // `servers` is the connect string; `seed` drives the shuffle and the reconnect pauses.
  ZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, Watcher watcher, std::uint64_t seed)
      : cnxn_(std::make_unique<ClientCnxn>(owner, std::move(servers), sessionTimeout, std::move(watcher), seed)) {
    cnxn_->start();
  }

  sim::Task<CreateResult> create(std::string path, std::string data, CreateMode mode);
  sim::Task<Code> deleteNode(std::string path, std::int32_t version = -1);
  sim::Task<StatResult> exists(std::string path, Watcher watcher = {});
  sim::Task<DataResult> getData(std::string path, Watcher watcher = {});
  sim::Task<ChildrenResult> getChildren(std::string path, Watcher watcher = {});
  sim::Task<StatResult> setData(std::string path, std::string data, std::int32_t version = -1);
  sim::Task<MultiResult> multi(std::vector<Op> ops);
  sim::Task<void> close() { return cnxn_->close(); }

  ClientCnxn::States getState() const { return cnxn_->state(); }
  bool connected() const { return cnxn_->connected(); }
  bool closed() const { return cnxn_->closed(); }
  SessionId getSessionId() const { return cnxn_->getSessionId(); }
  sim::Duration getSessionTimeout() const { return cnxn_->getNegotiatedTimeout(); }
  ClientCnxn& cnxn() { return *cnxn_; }

 private:
  std::unique_ptr<ClientCnxn> cnxn_;
};

}  // namespace zk
