#include "harness/workload.h"

namespace harness {

WorkloadClient::WorkloadClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, ClientsConfig config)
    : Node(sim, std::move(name)), servers_(std::move(servers)), config_(std::move(config)) {}

void WorkloadClient::on_start() {
  zk_ = std::make_unique<zk::ZooKeeper>(*this, servers_, config_.session_timeout, zk::Watcher{},
                                        sim().random().seed_for(name() + "/" + std::to_string(starts())));
  spawn(run());
}

void WorkloadClient::on_stop() { zk_.reset(); }

sim::Task<void> WorkloadClient::run() {
  std::string path = "/workload/" + name();
  bool created = false;
  while (true) {
    co_await sim().sleep(config_.write_interval);
    if (zk_->closed()) {
      // The session expired: a new handle, as an application would make.
      zk_ = std::make_unique<zk::ZooKeeper>(*this, servers_, config_.session_timeout, zk::Watcher{},
                                            sim().random().seed_for(name() + "/" + std::to_string(writes_)));
      created = false;
      continue;
    }
    if (!zk_->connected()) continue;
    std::string value = std::to_string(writes_);
    zk::Code code;
    if (!created) {
      co_await zk_->create("/workload", "", zk::CreateMode::persistent);
      zk::CreateMode mode = config_.ephemeral_writes ? zk::CreateMode::ephemeral : zk::CreateMode::persistent;
      zk::CreateResult result = co_await zk_->create(path, value, mode);
      code = result.code;
      created = code == zk::Code::ok || code == zk::Code::node_exists;
    } else {
      zk::StatResult result = co_await zk_->setData(path, value);
      code = result.code;
      if (code == zk::Code::no_node) created = false;
    }
    sim().trace().emit(id(), "workload.write", {{"path", path}, {"value", value}, {"code", zk::code_name(code)}});
    if (code == zk::Code::ok) writes_++;
  }
}

}  // namespace harness
