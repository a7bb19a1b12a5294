#include "model/es/MasterFaultDetection.h"

#include "sim/trace.h"

namespace es {

namespace {

// The master-side check of a ping from a node the master does not (yet) know: run on the master
// service thread, after the state updates in flight.
class MasterPingCheckTask final : public ClusterStateUpdateTask {
 public:
  MasterPingCheckTask(TransportService& transport, TransportChannel channel, NodeId sourceNode)
      : transport_(transport), channel_(channel), sourceNode_(sourceNode) {}
  ClusterStatePtr executeTask(const ClusterStatePtr& currentState) override {
    if (!currentState->nodeExists(sourceNode_)) throw EsException(ErrorKind::node_does_not_exist_on_master, "node does not exist on master");
    return currentState;
  }
  void onNoLongerMaster(const std::string& source) override {
    onFailure(source, EsException(ErrorKind::not_master, "local node is not master"));
  }
  void onFailure(const std::string& source, const EsException& error) override {
    (void)source;
    transport_.sendError(channel_, error.kind());
  }
  void clusterStateProcessed(const std::string& source, const ClusterStatePtr& oldState, const ClusterStatePtr& newState) override {
    (void)source, (void)oldState, (void)newState;
    transport_.sendResponse(channel_);
  }

 private:
  TransportService& transport_;
  TransportChannel channel_;
  NodeId sourceNode_;
};

}  // namespace

MasterFaultDetection::MasterFaultDetection(sim::Node& node, TransportService& transport, MasterService& masterService, const EsConfig& config,
                                           std::function<ClusterStatePtr()> clusterStateSupplier)
    : node_(node), transport_(transport), masterService_(masterService), config_(config), clusterStateSupplier_(std::move(clusterStateSupplier)) {
  transport_.registerRequestHandler(Action::master_ping, [this](TransportChannel channel, TransportMessage message) {
    return handleMasterPing(channel, std::move(message));
  });
  transport_.addConnectionListener([this](NodeId node) { handleTransportDisconnect(node); });
}

void MasterFaultDetection::restart(NodeId masterNode, const std::string& reason) {
  (void)reason;
  ELECTSIM_ASSERT(masterNode != sim::no_node);
  ELECTSIM_ASSERT(masterNode != node_.id());
  masterNode_ = masterNode;
  retryCount_ = 0;
  notifiedMasterFailure_ = false;
  std::uint64_t generation = ++generation_;
  // The first ping goes out after one interval, to let the master finish its own election.
  node_.spawn(masterPinger(generation));
}

void MasterFaultDetection::stop(const std::string& reason) {
  (void)reason;
  retryCount_ = 0;
  generation_++;  // the running pinger sees it and stops
  masterNode_ = sim::no_node;
}

void MasterFaultDetection::handleTransportDisconnect(NodeId node) {
  if (node != masterNode_ || masterNode_ == sim::no_node) return;
  // discovery.zen.fd.connect_on_network_disconnect is false: a disconnect is a failure.
  notifyMasterFailure(node, "transport disconnected");
}

void MasterFaultDetection::notifyMasterFailure(NodeId masterNode, const std::string& reason) {
  if (notifiedMasterFailure_) return;
  notifiedMasterFailure_ = true;
  node_.sim().trace().emit(node_.id(), "es.fault_detection",
                           {{"kind", "master"}, {"target", node_.sim().node(masterNode).name()}, {"reason", reason}});
  // The listeners run on the generic pool, after this returns.
  node_.spawn(notifyListener(masterNode, reason));
  stop("master failure, " + reason);
}

sim::Task<void> MasterFaultDetection::notifyListener(NodeId masterNode, std::string reason) {
  if (listener_) listener_(masterNode, reason);
  co_return;
}

sim::Task<void> MasterFaultDetection::masterPinger(std::uint64_t generation) {
  co_await node_.sim().sleep(config_.fd_ping_interval);
  while (generation == generation_) {
    NodeId masterToPing = masterNode_;
    MasterPingRequest request{node_.id(), masterToPing};
    TransportResponse response = co_await transport_.sendRequest(masterToPing, Action::master_ping, request, config_.fd_ping_timeout);
    if (generation != generation_) co_return;  // stopped or restarted meanwhile
    if (response.ok()) {
      retryCount_ = 0;  // a good answer resets the count
      co_await node_.sim().sleep(config_.fd_ping_interval);
      continue;
    }
    switch (response.error) {
      case ErrorKind::connect_transport:
      case ErrorKind::node_disconnected:
        handleTransportDisconnect(masterToPing);
        co_return;
      case ErrorKind::not_master:
        notifyMasterFailure(masterToPing, "no longer master");
        co_return;
      case ErrorKind::this_is_not_the_master:
        notifyMasterFailure(masterToPing, "not master");
        co_return;
      case ErrorKind::node_does_not_exist_on_master:
        notifyMasterFailure(masterToPing, "do not exists on master, act as master failure");
        co_return;
      default:
        break;
    }
    retryCount_++;
    if (retryCount_ >= config_.fd_ping_retries) {
      notifyMasterFailure(masterToPing, "failed to ping, tried [" + std::to_string(config_.fd_ping_retries) + "] times, each with maximum [" +
                                            sim::format_duration(config_.fd_ping_timeout) + "] timeout");
      co_return;
    }
    // Resend at once: the send timeout paces the retries.
  }
}

sim::Task<void> MasterFaultDetection::handleMasterPing(TransportChannel channel, TransportMessage message) {
  const auto& request = std::get<MasterPingRequest>(message.payload);
  // A ping meant for another master (a restarted process on the same address, in Elasticsearch).
  if (request.masterNode != node_.id()) {
    transport_.sendError(channel, ErrorKind::this_is_not_the_master);
    co_return;
  }
  ClusterStatePtr state = clusterStateSupplier_();
  if (!state->isLocalNodeElectedMaster(node_.id()) || !state->nodeExists(request.sourceNode)) {
    // Maybe the state that adds the node (or makes us master) is being published: check again
    // on the master service thread.
    masterService_.submitStateUpdateTask("master ping (from: " + node_.sim().node(request.sourceNode).name() + ")",
                                         std::make_shared<MasterPingCheckTask>(transport_, channel, request.sourceNode));
    co_return;
  }
  transport_.sendResponse(channel);
}

}  // namespace es
