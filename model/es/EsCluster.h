// EsCluster: the deployment half of an Elasticsearch scenario — nodes es1..esN (node ids in that
// order, all master-eligible, each seeding discovery with every node), one shared configuration,
// and starting them together or staggered. Faults are the harness's business (sim::Node and
// sim::Network); this class only answers questions about the cluster as a whole.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/es/EsNode.h"

namespace es {

class EsCluster {
 public:
  EsCluster(sim::Simulation& sim, EsConfig config);

  std::size_t size() const { return nodes_.size(); }
  // 1-based, as in the names: node(1) is es1.
  EsNode& node(std::size_t number) const;
  EsNode& node(const std::string& name) const;
  const std::vector<NodeId>& nodeIds() const { return ids_; }
  const EsConfig& config() const { return *config_; }
  sim::Simulation& sim() const { return sim_; }

  void startAll();
  // es1 now, es2 after `interval`, ...
  void startStaggered(sim::Duration interval);

  // Nodes that are up and whose committed state names them master.
  std::vector<NodeId> masters() const;
  // The one master that every up node follows (committed and applied), if there is one.
  std::optional<NodeId> stableMaster() const;

 private:
  sim::Simulation& sim_;
  std::shared_ptr<const EsConfig> config_;
  std::vector<NodeId> ids_;
  std::vector<EsNode*> nodes_;
};

}  // namespace es
