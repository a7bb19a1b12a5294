// LeadershipBeliefs: who believes they lead, as the trace tells it. The single-leader properties
// of the job level (latch-single-leader, job-single-leader) judge beliefs, not the znodes: a process
// that believes it leads acts as the leader whatever ZooKeeper says.
//
// A belief only counts while its process is live (started, not crashed), unpaused, and its client
// believes it is connected: a leader that knows it is cut off is expected to hold back (Curator's
// SUSPENDED), and a paused one cannot act. Overlaps are judged at the end of each instant, so the
// order of events inside one instant (a resume and the SUSPENDED it causes) never counts as overlap.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace properties {

class LeadershipBeliefs {
 public:
  // Node lifecycle and client state, from node.* and client.state events. Call for every event.
  void observe(const sim::TraceEvent& event);
  // The node's belief about `group` (a latch path, a job name).
  void setBelief(const std::string& group, sim::NodeId node, bool leads);

  // The nodes whose belief about `group` counts now (live, unpaused, connected), in id order.
  std::vector<sim::NodeId> activeLeaders(const std::string& group) const;
  // Every group anybody ever believed in, sorted.
  std::vector<std::string> groups() const;

 private:
  struct Process {
    bool live = false;
    bool paused = false;
    bool connected = false;
    bool curator_seen = false;  // once Curator reports states, its view wins over the raw client's
  };
  bool counts(sim::NodeId node) const;

  std::map<sim::NodeId, Process> processes_;
  std::map<std::string, std::set<sim::NodeId>> believers_;  // group -> nodes believing they lead it
};

}  // namespace properties
