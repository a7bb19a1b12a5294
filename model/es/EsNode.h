// EsNode: one Elasticsearch 6.8 node (a sim::Node), master-eligible, running Zen1 discovery.
//
// Persistent (survives crash and power-off, as a data path does): the last applied, recovered
// cluster state (GatewayMetaState), plus the workload's task counter and random stream, which
// belong to the harness rather than to Elasticsearch. Volatile (rebuilt by on_start): everything
// else — transport connections, the master and applier services and their queues, discovery, fault
// detection, pending states, the join thread.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/es/ClusterApplierService.h"
#include "model/es/ClusterTaskWorkload.h"
#include "model/es/EsConfig.h"
#include "model/es/GatewayService.h"
#include "model/es/MasterService.h"
#include "model/es/TransportService.h"
#include "model/es/ZenDiscovery.h"
#include "sim/node.h"

namespace es {

class EsNode final : public sim::Node {
 public:
  // `seedNodes`: discovery.zen.ping.unicast.hosts (the model passes every node of the cluster).
  EsNode(sim::Simulation& sim, std::string name, std::shared_ptr<const EsConfig> config, std::vector<NodeId> seedNodes);
  ~EsNode() override;

  const EsConfig& config() const { return *config_; }

  // ---- persistent ----
  // The last applied, recovered cluster state written to disk (null before the first).
  const ClusterStatePtr& persistedState() const { return disk_; }

  // ---- volatile: only while the node is up ----
  bool running() const { return services_ != nullptr; }
  TransportService& transport();
  MasterService& masterService();
  ClusterApplierService& clusterApplierService();
  ZenDiscovery& discovery();
  GatewayService& gatewayService();
  // The applied state (ClusterService#state) and the committed one (ZenDiscovery#clusterState).
  ClusterStatePtr appliedState() const;
  ClusterStatePtr committedState() const;
  // The node acts as elected master: its committed state names it.
  bool isElectedMaster() const;
  // The master its committed state names (no_node when none or down).
  NodeId masterNode() const;
  std::uint64_t nextStateUuid();
  // The MasterService figures of every incarnation so far, the running one included.
  MasterServiceStats masterServiceStats() const;
  // The workload's tasks held back by a full master queue, over every incarnation (ClusterTasks).
  std::uint64_t workloadTasksHeldBack() const { return workloadHeldBack_; }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  struct Services;

  std::shared_ptr<const EsConfig> config_;
  std::vector<NodeId> seedNodes_;
  ClusterStatePtr disk_;
  sim::Rng workloadRng_;
  std::uint64_t workloadCounter_ = 0;
  std::uint64_t workloadHeldBack_ = 0;
  std::uint32_t stateUuidCounter_ = 0;
  MasterServiceStats pastMasterServiceStats_;  // of the incarnations that stopped (harness state)
  std::unique_ptr<Services> services_;
};

}  // namespace es
