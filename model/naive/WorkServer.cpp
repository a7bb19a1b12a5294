#include "model/naive/WorkServer.h"

namespace naive {

WorkServer::WorkServer(sim::Simulation& sim, std::string name, std::int64_t cid, WorkServerConfig config)
    : Node(sim, std::move(name)), config_(std::move(config)), scheduleChanged_(sim) {
  serverData_.cid = cid;
  serverData_.name = this->name();
}

void WorkServer::on_start() {
  running_ = false;
  masterData_.reset();
  releasedAt_.reset();
  scheduled_.clear();
  zkClient_ = std::make_unique<ZkClient>(*this, config_.servers, config_.session_timeout,
                                         sim().random().seed_for(name() + "/" + std::to_string(starts())), config_.zookeeper_factory);
  spawn(delayExecutor());
  spawn(run());
}

void WorkServer::on_stop() {
  running_ = false;
  masterData_.reset();
  scheduled_.clear();
  zkClient_.reset();
}

sim::Task<void> WorkServer::run() {
  // new ZkClient(...) returns once connected; then WorkServer.start().
  co_await zkClient_->waitUntilConnected();
  running_ = true;
  co_await zkClient_->subscribeDataChanges(master_path, *this);
  co_await takeMaster(TakeReason::start, sim().now());
}

const char* WorkServer::reasonName(TakeReason reason) {
  switch (reason) {
    case TakeReason::start: return "start";
    case TakeReason::deleted: return "deleted";
    case TakeReason::delayed: return "delayed";
  }
  ELECTSIM_UNREACHABLE();
}

sim::Task<void> WorkServer::handleDataChange(std::string, std::string) { co_return; }

sim::Task<void> WorkServer::handleDataDeleted(std::string) {
  // The anti-jitter rule: the last master races again at once, the others wait.
  bool wasMaster = masterData_ && masterData_->name == serverData_.name;
  if (wasMaster || !config_.anti_jitter) {
    co_await takeMaster(TakeReason::deleted, sim().now());
  } else {
    schedule(Delayed::take_master, config_.anti_jitter_delay);
  }
}

sim::Task<void> WorkServer::takeMaster(TakeReason reason, sim::Instant cause) {
  // When this attempt began, and when its cause was seen: a take queued at an earlier delete, or
  // already under way when /master went, is no reaction to that delete (naive-master-stable).
  const sim::Instant began = sim().now();
  ELECTSIM_ASSERT(cause <= began);
  while (running_) {
    zk::CreateResult created = co_await zkClient_->create(master_path, serverData_.name, zk::CreateMode::ephemeral);
    if (created.code == zk::Code::ok) {
      masterData_ = serverData_;
      sim().trace().emit(id(), "naive.master",
                         {{"name", serverData_.name}, {"cid", serverData_.cid}, {"reason", reasonName(reason)}, {"cause", sim::nanos(cause)}, {"began", sim::nanos(began)}});
      if (config_.release_after > sim::Duration::zero()) schedule(Delayed::release, config_.release_after);
      co_return;
    }
    if (created.code != zk::Code::node_exists) co_return;  // catch (Exception e): ignore
    // Somebody else is master: remember who (and race again if it vanished meanwhile).
    zk::DataResult master = co_await zkClient_->readData(master_path);
    if (master.code == zk::Code::ok) {
      masterData_ = RunningData{0, master.data};
      co_return;
    }
    if (master.code != zk::Code::no_node) co_return;
  }
}

sim::Task<bool> WorkServer::checkMaster() {
  zk::DataResult master = co_await zkClient_->readData(master_path);
  if (master.code != zk::Code::ok) co_return false;  // ZkNoNodeException: masterData unchanged
  masterData_ = RunningData{0, master.data};
  co_return master.data == serverData_.name;
}

sim::Task<void> WorkServer::releaseMaster() {
  bool master = co_await checkMaster();
  if (!master) co_return;
  sim().trace().emit(id(), "naive.release", {{"name", serverData_.name}});
  releasedAt_ = sim().now();
  co_await zkClient_->deleteNode(master_path);
}

void WorkServer::schedule(Delayed task, sim::Duration delay) {
  scheduled_.emplace(std::make_pair(sim().now() + delay, submissions_++), Scheduled{task, sim().now()});
  scheduleChanged_.notify_all();
}

sim::Task<void> WorkServer::delayExecutor() {
  // One thread: a task that comes due while another runs (blocked in a retried operation, say)
  // waits for it; due tasks run in (due time, submission) order.
  while (true) {
    if (scheduled_.empty()) {
      co_await scheduleChanged_.wait();
      continue;
    }
    auto first = scheduled_.begin();
    sim::Instant due = first->first.first;
    if (due > sim().now()) {
      co_await scheduleChanged_.wait_until(due);
      continue;
    }
    Scheduled task = first->second;
    scheduled_.erase(first);
    if (task.task == Delayed::take_master) {
      co_await takeMaster(TakeReason::delayed, task.submitted);
      continue;
    }
    // The demo's delayed release: the master gives mastership up to show a re-election. (The
    // result goes into a local first: GCC 12 miscompiles a co_await inside an if condition,
    // docs/engine.md "Compiler pitfalls".)
    bool master = co_await checkMaster();
    if (master) co_await releaseMaster();
  }
}

}  // namespace naive
