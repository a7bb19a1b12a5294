#include "model/es/GatewayService.h"

#include <algorithm>

#include "sim/sync.h"
#include "sim/trace.h"

namespace es {

struct GatewayService::Gathered {
  explicit Gathered(sim::Simulation& sim, std::size_t expected) : expected(expected), done(sim) {}
  std::size_t expected;
  std::size_t answered = 0;
  std::size_t found = 0;
  ClusterStatePtr best;
  sim::Signal done;

  void add(bool ok, const ClusterStatePtr& state) {
    answered++;
    if (ok) found++;
    if (state != nullptr && (best == nullptr || state->version > best->version)) best = state;
    if (answered == expected) done.set();
  }
};

namespace {

// "local-gateway-elected-state": the recovered metadata (and version) replace the unrecovered ones.
class RecoveredStateTask final : public ClusterStateUpdateTask {
 public:
  RecoveredStateTask(ClusterStatePtr recovered, bool& recovering)
      : ClusterStateUpdateTask(Priority::URGENT), recovered_(std::move(recovered)), recovering_(recovering) {}
  ClusterStatePtr executeTask(const ClusterStatePtr& currentState) override {
    if (!currentState->stateNotRecovered) return currentState;  // already recovered
    auto state = builder(*currentState);
    if (recovered_ != nullptr) {
      state->metadata = recovered_->metadata;
      state->version = std::max(currentState->version, recovered_->version);
    }
    state->stateNotRecovered = false;
    return state;
  }
  void onFailure(const std::string&, const EsException&) override { recovering_ = false; }
  void clusterStateProcessed(const std::string&, const ClusterStatePtr&, const ClusterStatePtr&) override { recovering_ = false; }

 private:
  ClusterStatePtr recovered_;
  bool& recovering_;
};

}  // namespace

GatewayService::GatewayService(sim::Node& node, TransportService& transport, MasterService& masterService, const EsConfig& config,
                               const GatewayMetaState& metaState)
    : node_(node), transport_(transport), masterService_(masterService), config_(config), metaState_(metaState) {
  transport_.registerRequestHandler(Action::list_gateway_meta_state, [this](TransportChannel channel, TransportMessage message) {
    return handleListGatewayMetaState(channel, std::move(message));
  });
}

void GatewayService::clusterChanged(const ClusterChangedEvent& event) {
  const ClusterState& state = *event.state;
  if (!state.isLocalNodeElectedMaster(node_.id()) || !state.stateNotRecovered || recovering_) return;
  recovering_ = true;
  node_.spawn(performStateRecovery(state.nodes));
}

sim::Task<void> GatewayService::performStateRecovery(std::vector<NodeId> nodes) {
  auto gathered = std::make_shared<Gathered>(node_.sim(), nodes.size());
  for (NodeId node : nodes) {
    if (node == node_.id()) {
      gathered->add(true, metaState_.loadMetaState());
    } else {
      node_.spawn(listGatewayMetaState(node, gathered));
    }
  }
  co_await gathered->done.wait();
  int required = std::max(1, config_.minimum_master_nodes);
  bool enough = static_cast<int>(gathered->found) >= required;
  node_.sim().trace().emit(node_.id(), "es.gateway",
                           {{"found", static_cast<std::uint64_t>(gathered->found)},
                            {"required", required},
                            {"recovered", enough},
                            {"version", gathered->best ? gathered->best->version : std::int64_t{0}}});
  if (!enough) {
    recovering_ = false;  // the next cluster change tries again
    co_return;
  }
  masterService_.submitStateUpdateTask("local-gateway-elected-state", std::make_shared<RecoveredStateTask>(gathered->best, recovering_));
}

sim::Task<void> GatewayService::listGatewayMetaState(NodeId node, std::shared_ptr<Gathered> gathered) {
  TransportResponse response = co_await transport_.sendRequest(node, Action::list_gateway_meta_state, {}, std::nullopt);
  ClusterStatePtr state;
  if (const auto* answer = std::get_if<GatewayMetaStateResponse>(&response.payload)) state = answer->state;
  gathered->add(response.ok(), state);
}

sim::Task<void> GatewayService::handleListGatewayMetaState(TransportChannel channel, TransportMessage message) {
  (void)message;
  transport_.sendResponse(channel, GatewayMetaStateResponse{metaState_.loadMetaState()});
  co_return;
}

}  // namespace es
