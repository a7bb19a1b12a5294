#include "model/es/ClusterTaskWorkload.h"

namespace es {

ClusterStatePtr applyPuts(const ClusterStatePtr& state, const std::vector<const PutKeyRequest*>& requests) {
  std::shared_ptr<ClusterState> changed;  // built on the first put that changes something
  for (const PutKeyRequest* request : requests) {
    const ClusterState& latest = changed ? *changed : *state;
    auto existing = latest.metadata.find(request->key());
    if (existing != latest.metadata.end() && existing->second == request->value()) continue;
    if (!changed) changed = builder(*state);
    changed->metadata[request->key()] = request->value();
  }
  if (!changed) return state;
  return changed;
}

void PutKeyTask::onFailure(const std::string& source, const EsException& error) {
  (void)source, (void)error;  // the client would retry on the new master; the workload just moves on
}

ClusterTasksResult PutKeysExecutor::execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) {
  std::vector<const PutKeyRequest*> requests;
  requests.reserve(tasks.size());
  for (ClusterStateTask* task : tasks) {
    auto* request = dynamic_cast<const PutKeyRequest*>(task);
    ELECTSIM_ASSERT_MSG(request != nullptr, "PutKeysExecutor runs only PutKeyRequests");
    requests.push_back(request);
  }
  return ClusterTasksResult{applyPuts(currentState, requests), {}};
}

void PutKeysExecutor::onFailure(const std::string& source, const EsException& error) {
  (void)source, (void)error;  // as PutKeyTask::onFailure
}

ClusterTaskWorkload::ClusterTaskWorkload(sim::Node& node, MasterService& masterService, const ClusterTasks& config, sim::Rng& rng,
                                         std::uint64_t& counter, std::uint64_t& heldBack, std::function<bool()> localNodeMaster)
    : node_(node),
      masterService_(masterService),
      config_(config),
      rng_(rng),
      counter_(counter),
      heldBack_(heldBack),
      localNodeMaster_(std::move(localNodeMaster)),
      sharedExecutor_(config.sharedExecutor ? std::make_shared<PutKeysExecutor>() : nullptr) {}

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
    if (masterService_.numberOfPendingTasks() >= ClusterTasks::pending_tasks_max) {
      heldBack_++;  // its client is still waiting for the earlier ones (EsConfig.h, ClusterTasks)
      continue;
    }
    std::uint64_t n = counter_++;
    std::string key = "key-" + std::to_string(n % config_.keys);
    std::string value = node_.name() + "#" + std::to_string(n);
    Priority priority = config_.priorities[rng_.pick(static_cast<std::uint32_t>(config_.priorities.size()))];
    std::string source = "put-key [" + key + "]";
    if (sharedExecutor_) {
      masterService_.submitStateUpdateTask(std::move(source), std::make_shared<PutKeyRequest>(std::move(key), std::move(value)),
                                           ClusterStateTaskConfig{priority, std::nullopt}, sharedExecutor_, sharedExecutor_);
    } else {
      masterService_.submitStateUpdateTask(std::move(source), std::make_shared<PutKeyTask>(std::move(key), std::move(value), priority));
    }
    submitted_++;
  }
}

}  // namespace es
