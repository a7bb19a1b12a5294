// Who can send to whom: a directed graph over the nodes (Boost.Graph adjacency matrix), an edge per
// working one-way link. Network faults cut edges; heal restores them all.
//
// Faults are cumulative: a partition cuts the links between its groups, an isolate cuts every link of
// one node, a bridge cuts the links between two sides but not those of the bridge node, a drop cuts
// one direction. Nodes not named in a partition keep their links. `heal` restores everything.
#pragma once

#include <boost/graph/adjacency_matrix.hpp>
#include <cstdint>
#include <vector>

namespace sim {

using NodeId = std::uint32_t;

class Reachability {
 public:
  Reachability() : graph_(0) {}

  std::uint32_t size() const { return static_cast<std::uint32_t>(boost::num_vertices(graph_)); }
  // Grows the graph; new nodes start connected to everyone.
  void resize(std::uint32_t nodes);

  bool reachable(NodeId from, NodeId to) const {
    return from == to || boost::edge(from, to, graph_).second;
  }
  bool fully_connected() const;

  void cut(NodeId from, NodeId to);
  void cut_both(NodeId a, NodeId b) {
    cut(a, b);
    cut(b, a);
  }
  void partition(const std::vector<std::vector<NodeId>>& groups);
  void isolate(NodeId node);
  void bridge(NodeId bridge_node, const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b);
  void heal_all();

  // Groups of nodes that can all reach each other both ways (strongly connected components), each
  // sorted, ordered by their smallest node.
  std::vector<std::vector<NodeId>> strongly_connected_groups() const;

 private:
  using Graph = boost::adjacency_matrix<boost::directedS>;
  Graph graph_;
};

}  // namespace sim
