#include "properties/leadership_beliefs.h"

#include "sim/node.h"

namespace properties {

void LeadershipBeliefs::observe(const sim::TraceEvent& event) {
  if (event.node == sim::no_node) return;
  const std::string_view kind = event.kind;
  if (kind == "node.start") {
    processes_[event.node] = Process{true, false, false, false};
  } else if (kind == "node.crash" || kind == "node.power_off") {
    processes_[event.node] = Process{};
    // The process is gone, and its beliefs with it.
    for (auto& [group, nodes] : believers_) nodes.erase(event.node);
  } else if (kind == "node.pause") {
    processes_[event.node].paused = true;
  } else if (kind == "node.resume") {
    processes_[event.node].paused = false;
  } else if (kind == "client.state") {
    Process& process = processes_[event.node];
    std::string_view state = event.text("state");
    if (event.text("layer") == "curator") {
      process.curator_seen = true;
      process.connected = state == "CONNECTED" || state == "RECONNECTED";
    } else if (!process.curator_seen) {
      process.connected = state == "CONNECTED";
    }
  }
}

void LeadershipBeliefs::setBelief(const std::string& group, sim::NodeId node, bool leads) {
  if (leads) {
    believers_[group].insert(node);
  } else if (auto found = believers_.find(group); found != believers_.end()) {
    found->second.erase(node);
  }
}

bool LeadershipBeliefs::counts(sim::NodeId node) const {
  auto found = processes_.find(node);
  return found != processes_.end() && found->second.live && !found->second.paused && found->second.connected;
}

std::vector<sim::NodeId> LeadershipBeliefs::activeLeaders(const std::string& group) const {
  std::vector<sim::NodeId> result;
  auto found = believers_.find(group);
  if (found == believers_.end()) return result;
  for (sim::NodeId node : found->second) {
    if (counts(node)) result.push_back(node);
  }
  return result;
}

std::vector<std::string> LeadershipBeliefs::groups() const {
  std::vector<std::string> result;
  for (const auto& [group, nodes] : believers_) result.push_back(group);
  return result;
}

}  // namespace properties
