// Contender fixtures for LeaderLatch / LeaderSelector tests.
#pragma once

#include "curator_cluster.h"
#include "model/curator/LeaderLatchInstance.h"
#include "model/curator/LeaderSelectorInstance.h"

namespace curator_test {

inline const std::string latch_path = "/electsim/latch";

// Leadership intervals per node, from latch.leader / latch.not_leader (or selector.leader /
// selector.released) trace events; an interval still open ends at `end`.
struct Interval {
  sim::NodeId node;
  sim::Instant from;
  sim::Instant to;
};
inline std::vector<Interval> leadershipIntervals(const TraceRecorder& trace, const std::string& gained, const std::string& lost,
                                                 sim::Instant end) {
  std::map<sim::NodeId, sim::Instant> open;
  std::vector<Interval> intervals;
  for (const TraceRecorder::Event& event : trace.events) {
    if (event.kind == gained) open[event.node] = event.time;
    if (event.kind == lost || event.kind == "node.crash" || event.kind == "node.power_off") {
      auto found = open.find(event.node);
      if (found == open.end()) continue;
      intervals.push_back(Interval{event.node, found->second, event.time});
      open.erase(found);
    }
  }
  for (const auto& [node, from] : open) intervals.push_back(Interval{node, from, end});
  return intervals;
}
// The longest time two different nodes both believed they led.
inline sim::Duration longestOverlap(const std::vector<Interval>& intervals) {
  sim::Duration longest{0};
  for (std::size_t i = 0; i < intervals.size(); i++) {
    for (std::size_t j = i + 1; j < intervals.size(); j++) {
      if (intervals[i].node == intervals[j].node) continue;
      sim::Instant from = std::max(intervals[i].from, intervals[j].from);
      sim::Instant to = std::min(intervals[i].to, intervals[j].to);
      if (to > from) longest = std::max(longest, to - from);
    }
  }
  return longest;
}

inline std::vector<curator::LeaderLatchInstance*> addLatches(Cluster& cluster, int count, sim::Duration sessionTimeout,
                                                             curator::CuratorBugs bugs = {}, const std::string& prefix = "latch") {
  std::vector<curator::LeaderLatchInstance*> latches;
  for (int i = 0; i < count; i++) {
    std::string name = prefix + std::to_string(i + 1);
    latches.push_back(
        &cluster.sim.add_node<curator::LeaderLatchInstance>(name, name, cluster.ensemble.nodes(), sessionTimeout, bugs, latch_path));
  }
  return latches;
}

// Starts them one after the other, `gap` apart, so their nodes queue in this order.
inline void startInOrder(Cluster& cluster, const std::vector<curator::LeaderLatchInstance*>& latches, sim::Duration gap) {
  for (curator::LeaderLatchInstance* latch : latches) {
    latch->start();
    cluster.sim.run_for(gap);
  }
}

template <class Node>
std::vector<Node*> leadersOf(const std::vector<Node*>& nodes) {
  std::vector<Node*> leaders;
  for (Node* node : nodes) {
    if (node->up() && node->hasLeadership()) leaders.push_back(node);
  }
  return leaders;
}

inline std::vector<std::string> latchChildren(const Cluster& cluster) {
  const zk::DataNode* node = cluster.leaderTree().getNode(latch_path);
  if (node == nullptr) return {};
  return std::vector<std::string>(node->children.begin(), node->children.end());
}

}  // namespace curator_test
