// ClusterState: what the master decides and publishes. The model keeps the parts that matter for
// coordination: the version, a unique state UUID, the master node id, the node list, two global
// blocks (STATE_NOT_RECOVERED_BLOCK, NO_MASTER_BLOCK) and the metadata as a map of keys (standing
// for indices, mappings and settings). States are immutable once built and shared between nodes by
// pointer, which stands for serialization: a received full state is the sender's state; a received
// diff is applied to the receiver's last seen state and builds a new one.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/simulation.h"

namespace es {

using sim::NodeId;

struct ClusterState;
using ClusterStatePtr = std::shared_ptr<const ClusterState>;

// ElectMasterService.MasterCandidate.UNRECOVERED_CLUSTER_VERSION
inline constexpr std::int64_t unrecovered_cluster_version = -1;

struct ClusterState {
  // Where a state came from: not part of its content, kept for the trace (a master-service state
  // is published; a local one is a node's own derivation, such as the no-master state of a rejoin).
  enum class Origin : std::uint8_t { initial, master_service, local };

  std::int64_t version = 0;
  std::uint64_t stateUUID = 0;
  NodeId masterNodeId = sim::no_node;
  std::vector<NodeId> nodes;  // sorted, no duplicates; every node is master-eligible
  std::map<std::string, std::string> metadata;
  bool stateNotRecovered = true;  // STATE_NOT_RECOVERED_BLOCK: the gateway has not recovered the metadata
  bool noMasterBlock = true;      // NO_MASTER_BLOCK
  Origin origin = Origin::initial;

  bool nodeExists(NodeId node) const;
  bool isLocalNodeElectedMaster(NodeId local) const { return local != sim::no_node && masterNodeId == local; }
  // ClusterState.supersedes: same (known) master and a higher version.
  bool supersedes(const ClusterState& other) const;
  // What pings report: the version, or -1 while the state is not recovered.
  std::int64_t pingVersion() const { return stateNotRecovered ? unrecovered_cluster_version : version; }
  // A stable hash of the content: master, nodes, blocks and metadata (not version, UUID or origin).
  std::uint64_t contentHash() const;

  void addNode(NodeId node);
  void removeNode(NodeId node);
};

// A copy of `state` to modify (ClusterState.builder(state)).
std::shared_ptr<ClusterState> builder(const ClusterState& state);

// Diff<ClusterState>: what changed between two consecutive states, applicable only to the state it
// was computed from (same UUID); anything else throws IncompatibleClusterStateVersionException.
struct ClusterStateDiff {
  std::uint64_t fromUuid = 0;
  std::uint64_t toUuid = 0;
  std::int64_t toVersion = 0;
  NodeId masterNodeId = sim::no_node;
  std::vector<NodeId> nodes;
  bool stateNotRecovered = false;
  bool noMasterBlock = false;
  std::map<std::string, std::string> upserts;
  std::vector<std::string> deletes;

  static ClusterStateDiff between(const ClusterState& previous, const ClusterState& next);
  ClusterStatePtr apply(const ClusterState& base) const;
};

}  // namespace es
