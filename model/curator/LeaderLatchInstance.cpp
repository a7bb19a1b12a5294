#include "model/curator/LeaderLatchInstance.h"

namespace curator {

LeaderLatchInstance::LeaderLatchInstance(sim::Simulation& sim, std::string name, std::string participant_id, std::vector<sim::NodeId> servers,
                                         sim::Duration session_timeout, CuratorBugs bugs, std::string latch_path)
    : Node(sim, std::move(name)),
      participant_id_(std::move(participant_id)),
      servers_(std::move(servers)),
      bugs_(bugs),
      latch_path_(std::move(latch_path)) {
  ELECTSIM_ASSERT(!servers_.empty());
  config_.sessionTimeout = session_timeout;
}

void LeaderLatchInstance::on_start() {
  shutting_down_ = false;
  // A fresh seed per incarnation: a restarted process draws new UUIDs and retry sleeps.
  std::uint64_t seed = sim::derive_seed(sim().random().seed_for(name() + "/curator"), starts());
  framework_ = std::make_unique<CuratorFramework>(*this, servers_, config_, seed);
  framework_->start();
  latch_ = std::make_unique<LeaderLatch>(*framework_, latch_path_, participant_id_, LeaderLatch::CloseMode::SILENT, bugs_);
  latch_->start();
}

void LeaderLatchInstance::on_stop() {
  if (latch_ != nullptr) earlier_notifications_ += latch_->watchNotifications();
  latch_.reset();
  framework_.reset();
}

void LeaderLatchInstance::closeLatch() {
  if (latch_ != nullptr && latch_->getState() == LeaderLatch::State::started) latch_->close();
}

void LeaderLatchInstance::shutdown() {
  if (!up() || shutting_down_) return;  // shutdown hooks run once per process
  shutting_down_ = true;
  sim().trace().emit(id(), "instance.shutdown");
  spawn(shutdownSequence());
}

sim::Task<void> LeaderLatchInstance::shutdownSequence() {
  closeLatch();
  if (framework_ != nullptr) co_await framework_->close();
  // The exit itself happens outside this coroutine, which the exit destroys.
  sim().schedule_callback(sim().now(), sim::no_node, [this] {
    if (up()) crash();
  });
}

}  // namespace curator
