#include "sim/reachability.h"

#include <algorithm>
#include <boost/graph/strong_components.hpp>
#include <map>

#include "sim/assert.h"

namespace sim {

void Reachability::resize(std::uint32_t nodes) {
  std::uint32_t old_size = size();
  if (nodes <= old_size) return;
  Graph grown(nodes);
  for (NodeId from = 0; from < nodes; from++) {
    for (NodeId to = 0; to < nodes; to++) {
      if (from == to) continue;
      bool existed = from < old_size && to < old_size;
      if (!existed || boost::edge(from, to, graph_).second) boost::add_edge(from, to, grown);
    }
  }
  graph_ = std::move(grown);
}

bool Reachability::fully_connected() const {
  std::uint32_t nodes = size();
  return boost::num_edges(graph_) == static_cast<std::size_t>(nodes) * (nodes > 0 ? nodes - 1 : 0);
}

void Reachability::cut(NodeId from, NodeId to) {
  ELECTSIM_ASSERT(from < size() && to < size());
  if (from != to) boost::remove_edge(from, to, graph_);
}

void Reachability::partition(const std::vector<std::vector<NodeId>>& groups) {
  for (std::size_t a = 0; a < groups.size(); a++) {
    for (std::size_t b = 0; b < groups.size(); b++) {
      if (a == b) continue;
      for (NodeId from : groups[a]) {
        for (NodeId to : groups[b]) cut(from, to);
      }
    }
  }
}

void Reachability::isolate(NodeId node) {
  for (NodeId other = 0; other < size(); other++) {
    if (other != node) cut_both(node, other);
  }
}

void Reachability::bridge(NodeId bridge_node, const std::vector<NodeId>& side_a, const std::vector<NodeId>& side_b) {
  for (NodeId a : side_a) {
    for (NodeId b : side_b) {
      ELECTSIM_ASSERT(a != bridge_node && b != bridge_node);
      cut_both(a, b);
    }
  }
}

void Reachability::heal_all() {
  std::uint32_t nodes = size();
  for (NodeId from = 0; from < nodes; from++) {
    for (NodeId to = 0; to < nodes; to++) {
      if (from != to && !boost::edge(from, to, graph_).second) boost::add_edge(from, to, graph_);
    }
  }
}

std::vector<std::vector<NodeId>> Reachability::strongly_connected_groups() const {
  std::vector<int> component(size());
  int count = boost::strong_components(
      graph_, boost::make_iterator_property_map(component.begin(), boost::get(boost::vertex_index, graph_)));
  std::vector<std::vector<NodeId>> groups(static_cast<std::size_t>(count));
  for (NodeId node = 0; node < size(); node++) groups[static_cast<std::size_t>(component[node])].push_back(node);
  // Nodes are visited in increasing order, so each group is sorted; order groups by first member.
  std::sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.front() < b.front(); });
  return groups;
}

}  // namespace sim
