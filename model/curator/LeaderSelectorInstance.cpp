#include "model/curator/LeaderSelectorInstance.h"

namespace curator {

LeaderSelectorInstance::LeaderSelectorInstance(sim::Simulation& sim, std::string name, std::string participant_id,
                                               std::vector<sim::NodeId> servers, sim::Duration session_timeout, CuratorBugs bugs,
                                               std::string latch_path, sim::Duration hold_time)
    : Node(sim, std::move(name)),
      participant_id_(std::move(participant_id)),
      servers_(std::move(servers)),
      bugs_(bugs),
      latch_path_(std::move(latch_path)),
      hold_time_(hold_time) {
  ELECTSIM_ASSERT(!servers_.empty());
  ELECTSIM_ASSERT(hold_time > sim::Duration::zero());
  config_.sessionTimeout = session_timeout;
}

void LeaderSelectorInstance::on_start() {
  shutting_down_ = false;
  last_turn_completed_.reset();
  std::uint64_t seed = sim::derive_seed(sim().random().seed_for(name() + "/curator"), starts());
  framework_ = std::make_unique<CuratorFramework>(*this, servers_, config_, seed);
  framework_->start();
  selector_ = std::make_unique<LeaderSelector>(*framework_, latch_path_, listener_, participant_id_, bugs_);
  selector_->autoRequeue();
  selector_->start();
}

void LeaderSelectorInstance::on_stop() {
  selector_.reset();
  framework_.reset();
}

sim::Task<void> LeaderSelectorInstance::Listener::takeLeadership(CuratorFramework& client) {
  // The example client of source 003: lead for a while, then relinquish.
  co_await client.sim().sleep(owner_.hold_time_);
  owner_.turns_completed_++;
  owner_.last_turn_completed_ = client.sim().now();
}

bool LeaderSelectorInstance::Listener::stateChanged(CuratorFramework& client, ConnectionState newState) {
  if (owner_.bugs_.latch_ignores_connection_loss) return false;  // never throws CancelLeadershipException
  return LeaderSelectorListenerAdapter::stateChanged(client, newState);
}

void LeaderSelectorInstance::shutdown() {
  if (!up() || shutting_down_) return;  // shutdown hooks run once per process
  shutting_down_ = true;
  sim().trace().emit(id(), "instance.shutdown");
  spawn(shutdownSequence());
}

sim::Task<void> LeaderSelectorInstance::shutdownSequence() {
  if (selector_ != nullptr) selector_->close();
  if (framework_ != nullptr) co_await framework_->close();
  // The exit itself happens outside this coroutine, which the exit destroys.
  sim().schedule_callback(sim().now(), sim::no_node, [this] {
    if (up()) crash();
  });
}

}  // namespace curator
