// GatewayService: recovers the cluster metadata when a node becomes master of a state that has not
// been recovered yet (after a full cluster start or restart). It asks the nodes of its state for
// their persisted states (TransportNodesListGatewayMetaState), needs answers from at least
// minimum_master_nodes of them, and publishes the highest-versioned one as the recovered state
// (task "local-gateway-elected-state"), lifting STATE_NOT_RECOVERED_BLOCK. The model carries the
// cluster-state version over with the metadata (see docs/es-model.md).
#pragma once

#include <memory>
#include <vector>

#include "model/es/EsConfig.h"
#include "model/es/GatewayMetaState.h"
#include "model/es/MasterService.h"
#include "model/es/TransportService.h"

namespace es {

class GatewayService {
 public:
  GatewayService(sim::Node& node, TransportService& transport, MasterService& masterService, const EsConfig& config,
                 const GatewayMetaState& metaState);
  GatewayService(const GatewayService&) = delete;
  GatewayService& operator=(const GatewayService&) = delete;

  // ClusterStateListener.clusterChanged
  void clusterChanged(const ClusterChangedEvent& event);
  bool recovering() const { return recovering_; }

 private:
  struct Gathered;
  sim::Task<void> performStateRecovery(std::vector<NodeId> nodes);
  sim::Task<void> listGatewayMetaState(NodeId node, std::shared_ptr<Gathered> gathered);
  sim::Task<void> handleListGatewayMetaState(TransportChannel channel, TransportMessage message);

  sim::Node& node_;
  TransportService& transport_;
  MasterService& masterService_;
  const EsConfig& config_;
  const GatewayMetaState& metaState_;
  bool recovering_ = false;
};

}  // namespace es
