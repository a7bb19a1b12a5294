// MasterFaultDetection: a follower pings its master every fd_ping_interval; a ping that gets no
// answer within fd_ping_timeout is resent at once, and fd_ping_retries failures in a row (or a
// closed connection, or an answer saying it is no longer master / not the master / does not know
// us) declare the master failed. On the master, a ping is answered at once when the master knows
// the node, and otherwise checked on the master-service thread first.
#pragma once

#include <functional>
#include <string>

#include "model/es/EsConfig.h"
#include "model/es/MasterService.h"
#include "model/es/TransportService.h"

namespace es {

class MasterFaultDetection {
 public:
  using Listener = std::function<void(NodeId masterNode, const std::string& reason)>;  // onMasterFailure

  MasterFaultDetection(sim::Node& node, TransportService& transport, MasterService& masterService, const EsConfig& config,
                       std::function<ClusterStatePtr()> clusterStateSupplier);
  MasterFaultDetection(const MasterFaultDetection&) = delete;
  MasterFaultDetection& operator=(const MasterFaultDetection&) = delete;

  void setListener(Listener listener) { listener_ = std::move(listener); }
  NodeId masterNode() const { return masterNode_; }
  void restart(NodeId masterNode, const std::string& reason);
  void stop(const std::string& reason);

 private:
  sim::Task<void> masterPinger(std::uint64_t generation);
  sim::Task<void> handleMasterPing(TransportChannel channel, TransportMessage message);
  sim::Task<void> notifyListener(NodeId masterNode, std::string reason);
  void handleTransportDisconnect(NodeId node);
  void notifyMasterFailure(NodeId masterNode, const std::string& reason);

  sim::Node& node_;
  TransportService& transport_;
  MasterService& masterService_;
  const EsConfig& config_;
  std::function<ClusterStatePtr()> clusterStateSupplier_;
  Listener listener_;
  NodeId masterNode_ = sim::no_node;
  std::uint64_t generation_ = 0;  // a pinger runs while its generation is current
  int retryCount_ = 0;
  bool notifiedMasterFailure_ = false;
};

}  // namespace es
