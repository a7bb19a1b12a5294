#include "model/es/ClusterState.h"

#include <algorithm>

#include "model/es/EsException.h"
#include "sim/random.h"

namespace es {

bool ClusterState::nodeExists(NodeId node) const { return std::binary_search(nodes.begin(), nodes.end(), node); }

bool ClusterState::supersedes(const ClusterState& other) const {
  return masterNodeId != sim::no_node && masterNodeId == other.masterNodeId && version > other.version;
}

std::uint64_t ClusterState::contentHash() const {
  auto fold = [](std::uint64_t hash, std::uint64_t value) { return sim::mix64(hash ^ (value + 0x9e3779b97f4a7c15ULL)); };
  std::uint64_t hash = sim::stable_hash("es.cluster_state");
  hash = fold(hash, masterNodeId);
  hash = fold(hash, nodes.size());
  for (NodeId node : nodes) hash = fold(hash, node);
  hash = fold(hash, (stateNotRecovered ? 1U : 0U) | (noMasterBlock ? 2U : 0U));
  hash = fold(hash, metadata.size());
  for (const auto& [key, value] : metadata) {
    hash = fold(hash, sim::stable_hash(key));
    hash = fold(hash, sim::stable_hash(value));
  }
  return hash;
}

void ClusterState::addNode(NodeId node) {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), node);
  if (it == nodes.end() || *it != node) nodes.insert(it, node);
}

void ClusterState::removeNode(NodeId node) {
  auto it = std::lower_bound(nodes.begin(), nodes.end(), node);
  if (it != nodes.end() && *it == node) nodes.erase(it);
}

std::shared_ptr<ClusterState> builder(const ClusterState& state) { return std::make_shared<ClusterState>(state); }

ClusterStateDiff ClusterStateDiff::between(const ClusterState& previous, const ClusterState& next) {
  ClusterStateDiff diff;
  diff.fromUuid = previous.stateUUID;
  diff.toUuid = next.stateUUID;
  diff.toVersion = next.version;
  diff.masterNodeId = next.masterNodeId;
  diff.nodes = next.nodes;
  diff.stateNotRecovered = next.stateNotRecovered;
  diff.noMasterBlock = next.noMasterBlock;
  for (const auto& [key, value] : next.metadata) {
    auto old = previous.metadata.find(key);
    if (old == previous.metadata.end() || old->second != value) diff.upserts.emplace(key, value);
  }
  for (const auto& [key, value] : previous.metadata) {
    if (!next.metadata.contains(key)) diff.deletes.push_back(key);
  }
  return diff;
}

ClusterStatePtr ClusterStateDiff::apply(const ClusterState& base) const {
  if (base.stateUUID != fromUuid) {
    throw EsException(ErrorKind::incompatible_cluster_state_version,
                      "have version " + std::to_string(base.version) + " but the diff is for another base state");
  }
  auto state = builder(base);
  state->version = toVersion;
  state->stateUUID = toUuid;
  state->masterNodeId = masterNodeId;
  state->nodes = nodes;
  state->stateNotRecovered = stateNotRecovered;
  state->noMasterBlock = noMasterBlock;
  state->origin = ClusterState::Origin::master_service;
  for (const std::string& key : deletes) state->metadata.erase(key);
  for (const auto& [key, value] : upserts) state->metadata[key] = value;
  return state;
}

}  // namespace es
