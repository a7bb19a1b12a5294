#include "model/es/EsCluster.h"

namespace es {

EsCluster::EsCluster(sim::Simulation& sim, EsConfig config) : sim_(sim), config_(std::make_shared<const EsConfig>(std::move(config))) {
  config_->validate();
  // Node ids are known before the nodes exist: the next ids the simulation hands out.
  for (std::size_t i = 0; i < config_->nodes; i++) ids_.push_back(sim.node_count() + static_cast<NodeId>(i));
  for (std::size_t i = 0; i < config_->nodes; i++) {
    nodes_.push_back(&sim.add_node<EsNode>("es" + std::to_string(i + 1), config_, ids_));
    ELECTSIM_ASSERT(nodes_.back()->id() == ids_[i]);
  }
}

EsNode& EsCluster::node(std::size_t number) const {
  ELECTSIM_ASSERT(number >= 1 && number <= nodes_.size());
  return *nodes_[number - 1];
}

EsNode& EsCluster::node(const std::string& name) const {
  for (EsNode* node : nodes_) {
    if (node->name() == name) return *node;
  }
  ELECTSIM_ASSERT_MSG(false, "no node named " + name);
  ELECTSIM_UNREACHABLE();
}

void EsCluster::startAll() {
  for (EsNode* node : nodes_) node->start();
}

void EsCluster::startStaggered(sim::Duration interval) {
  for (std::size_t i = 0; i < nodes_.size(); i++) {
    EsNode* node = nodes_[i];
    sim_.schedule_callback(sim_.now() + interval * static_cast<std::int64_t>(i), sim::no_node, [node] {
      if (node->state() == sim::Node::State::down) node->start();
    });
  }
}

std::vector<NodeId> EsCluster::masters() const {
  std::vector<NodeId> masters;
  for (EsNode* node : nodes_) {
    if (node->up() && node->isElectedMaster()) masters.push_back(node->id());
  }
  return masters;
}

std::optional<NodeId> EsCluster::stableMaster() const {
  std::vector<NodeId> found = masters();
  if (found.size() != 1) return std::nullopt;
  NodeId master = found.front();
  for (EsNode* node : nodes_) {
    if (!node->up()) continue;
    ClusterStatePtr applied = node->appliedState();
    if (node->masterNode() != master || applied == nullptr || applied->masterNodeId != master) return std::nullopt;
  }
  return master;
}

}  // namespace es
