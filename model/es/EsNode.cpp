#include "model/es/EsNode.h"

namespace es {

struct EsNode::Services {
  explicit Services(EsNode& node)
      : transport(node, node.config().connect_timeout),
        masterService(node, node.config().bugs.fifo_master_service ? MasterService::QueueOrder::fifo : MasterService::QueueOrder::by_priority),
        clusterApplier(node),
        discovery(node, transport, masterService, clusterApplier, node.config(), node.seedNodes_, node.nextStateUuid()),
        metaState(node.disk_),
        gateway(node, transport, masterService, node.config(), metaState),
        workload(node, masterService, node.config().cluster_tasks, node.workloadRng_, node.workloadCounter_, node.workloadHeldBack_,
                 [&node] { return node.isElectedMaster(); }) {}

  TransportService transport;
  MasterService masterService;
  ClusterApplierService clusterApplier;
  ZenDiscovery discovery;
  GatewayMetaState metaState;
  GatewayService gateway;
  ClusterTaskWorkload workload;
};

EsNode::EsNode(sim::Simulation& sim, std::string name, std::shared_ptr<const EsConfig> config, std::vector<NodeId> seedNodes)
    : Node(sim, std::move(name)),
      config_(std::move(config)),
      seedNodes_(std::move(seedNodes)),
      workloadRng_(sim.random().stream("es.workload." + this->name())) {
  ELECTSIM_ASSERT(config_ != nullptr);
}

EsNode::~EsNode() = default;

std::uint64_t EsNode::nextStateUuid() {
  // Unique in a run: (node, incarnation, counter). Elasticsearch draws a random UUID.
  std::uint64_t uuid = (static_cast<std::uint64_t>(id() + 1) << 44) | (static_cast<std::uint64_t>(starts() & 0xfff) << 32) | stateUuidCounter_++;
  return uuid;
}

void EsNode::on_start() {
  stateUuidCounter_ = 0;
  services_ = std::make_unique<Services>(*this);
  Services& services = *services_;
  services.masterService.setStateUuidSupplier([this] { return nextStateUuid(); });

  ClusterApplierService& applier = services.clusterApplier;
  // NodeConnectionsService: connections follow the applied state.
  applier.addHighPriorityApplier("NodeConnectionsService", [&services](const ClusterChangedEvent& event) {
    if (event.nodesChanged()) services.transport.disconnectFromNodesExcept(event.state->nodes);
  });
  applier.addLowPriorityApplier("GatewayMetaState", [&services](const ClusterChangedEvent& event) { services.metaState.applyClusterState(event); });
  applier.addListener("GatewayService", [&services](const ClusterChangedEvent& event) { services.gateway.clusterChanged(event); });

  services.transport.start();
  services.discovery.doStart();
  applier.start();
  services.masterService.start();
  services.discovery.startInitialJoin();
  services.workload.start();
}

void EsNode::on_stop() {
  if (services_) pastMasterServiceStats_ += services_->masterService.stats();
  services_.reset();
}

MasterServiceStats EsNode::masterServiceStats() const {
  MasterServiceStats total = pastMasterServiceStats_;
  if (running()) total += services_->masterService.stats();
  return total;
}

TransportService& EsNode::transport() {
  ELECTSIM_ASSERT_MSG(running(), name() + " is not running");
  return services_->transport;
}
MasterService& EsNode::masterService() {
  ELECTSIM_ASSERT_MSG(running(), name() + " is not running");
  return services_->masterService;
}
ClusterApplierService& EsNode::clusterApplierService() {
  ELECTSIM_ASSERT_MSG(running(), name() + " is not running");
  return services_->clusterApplier;
}
ZenDiscovery& EsNode::discovery() {
  ELECTSIM_ASSERT_MSG(running(), name() + " is not running");
  return services_->discovery;
}
GatewayService& EsNode::gatewayService() {
  ELECTSIM_ASSERT_MSG(running(), name() + " is not running");
  return services_->gateway;
}

ClusterStatePtr EsNode::appliedState() const { return running() ? services_->clusterApplier.state() : nullptr; }
ClusterStatePtr EsNode::committedState() const { return running() ? services_->discovery.clusterState() : nullptr; }

bool EsNode::isElectedMaster() const { return running() && services_->discovery.localNodeMaster(); }

NodeId EsNode::masterNode() const { return running() ? services_->discovery.clusterState()->masterNodeId : sim::no_node; }

}  // namespace es
