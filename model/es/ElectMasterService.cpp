#include "model/es/ElectMasterService.h"

#include <algorithm>

#include "sim/assert.h"

namespace es {

int ElectMasterService::MasterCandidate::compare(const MasterCandidate& a, const MasterCandidate& b) {
  // A higher cluster-state version is better: it sorts first.
  if (a.clusterStateVersion != b.clusterStateVersion) return a.clusterStateVersion > b.clusterStateVersion ? -1 : 1;
  if (a.node != b.node) return a.node < b.node ? -1 : 1;
  return 0;
}

bool ElectMasterService::hasEnoughCandidates(const std::vector<MasterCandidate>& candidates) const {
  if (candidates.empty()) return false;
  if (minimumMasterNodes_ < 1) return true;
  return static_cast<int>(candidates.size()) >= minimumMasterNodes_;
}

ElectMasterService::MasterCandidate ElectMasterService::electMaster(std::vector<MasterCandidate> candidates) const {
  ELECTSIM_ASSERT(hasEnoughCandidates(candidates));
  std::sort(candidates.begin(), candidates.end(), [](const MasterCandidate& a, const MasterCandidate& b) { return MasterCandidate::compare(a, b) < 0; });
  return candidates.front();
}

NodeId ElectMasterService::tieBreakActiveMasters(const std::vector<NodeId>& activeMasters) const {
  ELECTSIM_ASSERT(!activeMasters.empty());
  return *std::min_element(activeMasters.begin(), activeMasters.end());
}

bool ElectMasterService::hasEnoughMasterNodes(const std::vector<NodeId>& nodes) const {
  int count = countMasterNodes(nodes);
  return count > 0 && (minimumMasterNodes_ < 0 || count >= minimumMasterNodes_);
}

bool ElectMasterService::hasTooManyMasterNodes(const std::vector<NodeId>& nodes) const {
  int count = countMasterNodes(nodes);
  return count > 1 && minimumMasterNodes_ <= count / 2;
}

NodeId ElectMasterService::electMasterByNodeId(const std::vector<NodeId>& nodes) const {
  if (nodes.empty()) return sim::no_node;
  return *std::min_element(nodes.begin(), nodes.end());
}

}  // namespace es
