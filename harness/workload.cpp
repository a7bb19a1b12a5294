#include "harness/workload.h"

namespace harness {

WorkloadClient::WorkloadClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, ClientsConfig config,
                               std::shared_ptr<zk::ZookeeperFactory> factory)
    : Node(sim, std::move(name)), servers_(std::move(servers)), config_(std::move(config)), factory_(std::move(factory)) {
  if (!factory_) factory_ = std::make_shared<zk::SimulatedZookeeperFactory>();
}

std::unique_ptr<zk::ZooKeeper> WorkloadClient::newZooKeeper(std::uint64_t seed) {
  return factory_->newZooKeeper(*this, servers_, config_.session_timeout, zk::Watcher{}, seed);
}

void WorkloadClient::on_start() {
  zk_ = newZooKeeper(sim().random().seed_for(name() + "/" + std::to_string(starts())));
  spawn(run());
}

void WorkloadClient::on_stop() { zk_.reset(); }

sim::Task<void> WorkloadClient::run() {
  // Writer wN keeps /workload/wN: its data is rewritten every write_interval, or, with
  // ephemeral_writes, each write creates a fresh ephemeral-sequential child and removes the last
  // one (a stream of session-owned creates). Each writer also watches its neighbour's node once,
  // and never renews that watch: a second notification would mean a watch fired twice.
  std::string path = "/workload/" + name();
  int number = std::stoi(name().substr(1));
  std::string neighbour = "/workload/w" + std::to_string(number + 1);
  bool created = false;
  bool watching = false;
  std::string last_ephemeral;
  while (true) {
    co_await sim().sleep(config_.write_interval);
    if (zk_->closed()) {
      // The session expired: a new handle, as an application would make.
      zk_ = newZooKeeper(sim().random().seed_for(name() + "/" + std::to_string(writes_)));
      created = false;
      last_ephemeral.clear();
      continue;
    }
    if (!zk_->connected()) continue;
    if (!created) {
      co_await zk_->create("/workload", "", zk::CreateMode::persistent);
      zk::CreateResult result = co_await zk_->create(path, "0", zk::CreateMode::persistent);
      created = result.code == zk::Code::ok || result.code == zk::Code::node_exists;
      continue;
    }
    if (!watching) {
      watching = true;
      co_await zk_->exists(neighbour, [this](const zk::WatchedEvent& event) {
        sim().trace().emit(id(), "workload.watch", {{"path", event.path}, {"type", zk::event_type_name(event.type)}});
      });
    }
    std::string value = std::to_string(writes_);
    zk::Code code;
    if (config_.ephemeral_writes) {
      zk::CreateResult result = co_await zk_->create(path + "/e-", value, zk::CreateMode::ephemeral_sequential);
      code = result.code;
      if (code == zk::Code::ok) {
        if (!last_ephemeral.empty()) co_await zk_->deleteNode(last_ephemeral);
        last_ephemeral = result.path;
      }
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
