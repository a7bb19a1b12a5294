#include "harness/workload.h"

#include "sim/hash_fold.h"

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

std::uint64_t WorkloadClient::state_digest(bool crashed, bool power_loss) const {
  // The writes made survive (the next value to write); the session only while it runs.
  std::uint64_t digest = sim::hash_fold(Node::state_digest(crashed, power_loss), static_cast<std::uint64_t>(writes_));
  if (crashed || zk_ == nullptr) return digest;
  return sim::hash_fold(digest, (zk_->connected() ? 1u : 0u) | (zk_->closed() ? 2u : 0u));
}

void WorkloadClient::seen(const std::string& path, zk::Zxid mzxid, const char* how) {
  sim().trace().emit(id(), "workload.seen", {{"path", path}, {"mzxid", mzxid}, {"session", zk_->getSessionId()}, {"how", how}});
}

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
  while (config_.writes == 0 || writes_ < config_.writes) {
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
    if (config_.reads && !config_.ephemeral_writes) {
      // Read the node before writing it again: the version this session sees may never go back
      // (zab-monotonic-reads), and a write lost since the last one shows here, first thing after a
      // reconnection.
      zk::DataResult read = co_await zk_->getData(path);
      if (read.code == zk::Code::ok) seen(path, read.stat.mzxid, "read");
      if (!zk_->connected()) continue;
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
      if (code == zk::Code::ok && config_.reads) seen(path, result.stat.mzxid, "write");
    }
    sim().trace().emit(id(), "workload.write", {{"path", path}, {"value", value}, {"code", zk::code_name(code)}});
    if (code == zk::Code::ok) writes_++;

  }
}

}  // namespace harness
