#include "model/naive/WorkServer.h"

namespace naive {

WorkServer::WorkServer(sim::Simulation& sim, std::string name, std::int64_t cid, WorkServerConfig config)
    : Node(sim, std::move(name)), config_(std::move(config)) {
  serverData_.cid = cid;
  serverData_.name = this->name();
}

void WorkServer::on_start() {
  zk_ = std::make_unique<zk::ZooKeeper>(*this, config_.servers, config_.session_timeout, zk::Watcher{},
                                        sim().random().seed_for(name() + "/" + std::to_string(starts())));
  events_ = std::make_unique<sim::Queue<zk::WatchedEvent>>(sim(), 1024);
  spawn(run());
}

void WorkServer::on_stop() {
  masterData_.reset();
  zk_.reset();
  events_.reset();
}

sim::Task<void> WorkServer::run() {
  // WorkServer.start: subscribe to /master's changes, then try to take it.
  while (!zk_->connected()) co_await sim().sleep(100ms);
  spawn(watchMaster());
  co_await takeMaster();
}

sim::Task<void> WorkServer::watchMaster() {
  // zkClient's subscribeDataChanges: an exists() watch, renewed after every notification.
  while (true) {
    co_await zk_->exists(master_path, [this](const zk::WatchedEvent& event) { events_->push(event); });
    zk::WatchedEvent event = co_await events_->pop();
    if (event.type == zk::EventType::node_deleted) spawn(handleDataDeleted());
  }
}

sim::Task<void> WorkServer::handleDataDeleted() {
  // The anti-jitter rule: the last master races again at once, the others wait.
  bool wasMaster = masterData_ && masterData_->name == serverData_.name;
  if (!wasMaster && config_.anti_jitter) co_await sim().sleep(config_.anti_jitter_delay);
  co_await takeMaster();
}

sim::Task<void> WorkServer::takeMaster() {
  zk::CreateResult created = co_await zk_->create(master_path, serverData_.name, zk::CreateMode::ephemeral);
  if (created.code == zk::Code::ok) {
    masterData_ = serverData_;
    takes_++;
    sim().trace().emit(id(), "naive.master", {{"name", serverData_.name}, {"cid", serverData_.cid}});
    if (config_.release_after > sim::Duration::zero()) spawn(releaseLater());
    co_return;
  }
  if (created.code == zk::Code::node_exists) {
    // Somebody else is master: remember who (and race again if it vanished meanwhile).
    zk::DataResult master = co_await zk_->getData(master_path);
    if (master.code == zk::Code::no_node) {
      co_await takeMaster();
      co_return;
    }
    if (master.code == zk::Code::ok) masterData_ = RunningData{0, master.data};
  }
}

sim::Task<bool> WorkServer::checkMaster() {
  zk::DataResult master = co_await zk_->getData(master_path);
  if (master.code != zk::Code::ok) {
    masterData_.reset();
    co_return false;
  }
  masterData_ = RunningData{0, master.data};
  co_return master.data == serverData_.name;
}

sim::Task<void> WorkServer::releaseLater() {
  // The demo's delayed release: the master gives mastership up to show a re-election.
  std::uint64_t take = takes_;
  co_await sim().sleep(config_.release_after);
  if (take != takes_ || !co_await checkMaster()) co_return;
  sim().trace().emit(id(), "naive.release", {{"name", serverData_.name}});
  co_await zk_->deleteNode(master_path);
}

}  // namespace naive
