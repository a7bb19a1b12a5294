// ElectMasterService: who should be master among the candidates a node found, and whether enough
// master-eligible nodes are around (discovery.zen.minimum_master_nodes).
//
// Candidates sort by cluster-state version, higher first, then by node id (es1 < es2 < ...: node ids
// follow the node names' numbering). Every node of the model is master-eligible.
#pragma once

#include <cstdint>
#include <vector>

#include "model/es/ClusterState.h"

namespace es {

class ElectMasterService {
 public:
  struct MasterCandidate {
    NodeId node = sim::no_node;
    std::int64_t clusterStateVersion = unrecovered_cluster_version;
    // MasterCandidate.compare: negative when a is the better master.
    static int compare(const MasterCandidate& a, const MasterCandidate& b);
  };

  explicit ElectMasterService(int minimumMasterNodes) : minimumMasterNodes_(minimumMasterNodes) {}

  int minimumMasterNodes() const { return minimumMasterNodes_; }
  void minimumMasterNodes(int value) { minimumMasterNodes_ = value; }

  int countMasterNodes(const std::vector<NodeId>& nodes) const { return static_cast<int>(nodes.size()); }
  bool hasEnoughCandidates(const std::vector<MasterCandidate>& candidates) const;
  // The best candidate; hasEnoughCandidates must hold.
  MasterCandidate electMaster(std::vector<MasterCandidate> candidates) const;
  // Among masters other nodes already follow: the lowest node id.
  NodeId tieBreakActiveMasters(const std::vector<NodeId>& activeMasters) const;
  bool hasEnoughMasterNodes(const std::vector<NodeId>& nodes) const;
  // minimum_master_nodes is below a quorum of these nodes (the "data loss" warning).
  bool hasTooManyMasterNodes(const std::vector<NodeId>& nodes) const;
  // Elasticsearch before 5.0 (and 1.x's handleMasterGone): the master-eligible node with the lowest
  // id, versions ignored (sortByMasterLikelihood). no_node when `nodes` is empty.
  NodeId electMasterByNodeId(const std::vector<NodeId>& nodes) const;

 private:
  int minimumMasterNodes_;
};

}  // namespace es
