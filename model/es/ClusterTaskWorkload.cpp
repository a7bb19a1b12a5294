#include "model/es/ClusterTaskWorkload.h"

namespace es {

ClusterStatePtr PutKeyTask::executeTask(const ClusterStatePtr& currentState) {
  auto existing = currentState->metadata.find(key_);
  if (existing != currentState->metadata.end() && existing->second == value_) return currentState;  // no change
  auto state = builder(*currentState);
  state->metadata[key_] = value_;
  return state;
}

void PutKeyTask::onFailure(const std::string& source, const EsException& error) {
  (void)source, (void)error;  // the client would retry on the new master; the workload just moves on
}

ClusterTaskWorkload::ClusterTaskWorkload(sim::Node& node, MasterService& masterService, const ClusterTasks& config, sim::Rng& rng,
                                         std::uint64_t& counter, std::function<bool()> localNodeMaster)
    : node_(node), masterService_(masterService), config_(config), rng_(rng), counter_(counter), localNodeMaster_(std::move(localNodeMaster)) {}

void ClusterTaskWorkload::start() {
  if (config_.rate <= 0) return;
  node_.spawn(run());
}

sim::Task<void> ClusterTaskWorkload::run() {
  sim::Duration mean = config_.meanInterval();
  ELECTSIM_ASSERT(mean > sim::Duration::zero());
  while (true) {
    co_await node_.sim().sleep(rng_.uniform(mean / 2, mean + mean / 2));
    if (!localNodeMaster_()) continue;
    std::uint64_t n = counter_++;
    std::string key = "key-" + std::to_string(n % config_.keys);
    std::string value = node_.name() + "#" + std::to_string(n);
    Priority priority = config_.priorities[rng_.pick(static_cast<std::uint32_t>(config_.priorities.size()))];
    masterService_.submitStateUpdateTask("put-key [" + key + "]", std::make_shared<PutKeyTask>(key, value, priority));
    submitted_++;
  }
}

}  // namespace es
