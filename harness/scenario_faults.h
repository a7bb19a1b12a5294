// Node names and the fault schedule (internal to the scenario parser).
//
// The parts of a scenario that refer to nodes are read after the parts that say which nodes exist
// (zookeeper.servers, instances.count, elasticsearch.nodes), whatever their order in the file.
#pragma once

#include <string>
#include <string_view>

#include "harness/scenario.h"
#include "harness/scenario_yaml.h"

namespace harness::scenario_yaml {

enum class NodeRole { server, instance, es_node, writer };

// Which node names a run has: servers zk1..zkN and the workload's ZooKeeper clients w1..wN
// (clients.writers) except with recipe es-zen, instances i1..iN with the recipes that have instances
// (not none, not es-zen), and es1..esN with recipe es-zen. A count the recipe does not use (the
// default instances.count with recipe none) names no node: a fault on one would have nothing to act on.
class NodeCatalogue {
 public:
  NodeCatalogue(Recipe recipe, int servers, int instances, int es_nodes, int writers = 0);

  // The role of the node `name` names, or a ScenarioError at it saying which names exist.
  NodeRole resolve(const Source& source, const Name& name) const;
  // As resolve, and the node must have `role`; `context` starts the error message ("disable takes").
  void require(const Source& source, const Name& name, NodeRole role, std::string_view context) const;

  int size() const { return servers_ + instances_ + es_nodes_ + writers_; }
  // "zk1..zk3", "zk1", or "none".
  std::string range(NodeRole role) const;

 private:
  // Why a role has no node: the recipe's doing, or a count of 0.
  std::string none_because(NodeRole role) const;

  Recipe recipe_;
  int servers_;
  int instances_;
  int es_nodes_;  // 0 unless the recipe is es-zen
  int writers_;
};

NodeCatalogue node_catalogue(const Scenario& scenario);

// Reads `faults:` into scenario.faults, sorted by time (stable), checked against the rest of the
// scenario: node names, jobs, the recipe, and the duration.
void read_faults(const Source& source, const Field& field, Scenario& scenario);

}  // namespace harness::scenario_yaml
