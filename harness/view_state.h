// The state of every node at any step of a run, as the viewer's panel shows it (`electsim run FILE
// --view OUT.html`): a few named fields per node, each a short text ("role": "FOLLOWING", "vote":
// "zk3 (zxid 0x100000004, peerEpoch 1)", "latch": "latch-0000000001, leader"), plus the cluster's
// shared facts (the latch queue and who watches whom, the live sessions, the last sharding).
//
// Derived from the trace alone, like the narration, so the panel says what the run did and two runs
// of a seed show the same states. The picture's bands are drawn from these same fields: a band and
// the panel cannot disagree.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/trace_text.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

// One field of one node changed; an empty value removes the field. `lane` is the node's id, or
// cluster_lane for the cluster's shared facts.
struct FieldChange {
  std::size_t lane = 0;
  std::string field;
  std::string value;
};

class NodeStates {
 public:
  static constexpr std::size_t cluster_lane = static_cast<std::size_t>(-1);

  void attach(const sim::Simulation& sim);
  void on_event(const sim::TraceEvent& event);
  // The changes since the last call, the latest value per (lane, field), in a fixed order.
  std::vector<FieldChange> take_changes();
  // The full state now, as changes from nothing (a keyframe).
  std::vector<FieldChange> snapshot() const;

 private:
  struct LatchChild {
    std::string name;   // "latch-0000000001"
    std::string owner;  // the client whose session created it
  };

  void set(std::size_t lane, std::string_view field, std::string value);
  void on_server_event(const sim::TraceEvent& event, std::size_t lane);
  void on_client_event(const sim::TraceEvent& event, std::size_t lane);
  void on_es_event(const sim::TraceEvent& event, std::size_t lane);
  void on_cluster_event(const sim::TraceEvent& event);
  void show_heard(std::size_t lane);
  void show_latches();
  void show_sessions();
  void show_running(std::size_t lane);
  std::string node_name(std::int64_t node) const;  // a zkN server id, or a node id
  std::string owner_of(std::int64_t session) const;

  std::vector<std::string> names_;
  // Current values: lane -> field -> value; the cluster under cluster_lane.
  std::map<std::size_t, std::map<std::string, std::string, std::less<>>> fields_;
  std::map<std::pair<std::size_t, std::string>, std::string> changed_;  // since take_changes

  std::map<std::size_t, std::map<std::int64_t, std::int64_t>> heard_;  // server -> sid -> the leader it proposes
  std::map<std::size_t, std::int64_t> round_;
  std::map<std::int64_t, std::string> session_owner_;  // session -> client name
  std::set<std::int64_t> sessions_live_;                // created and not yet closed or expired
  // The cluster's facts take a txn from the first server that applies it (a lagging server applying
  // an old create after the delete would bring back a ghost).
  FirstTelling first_telling_;
  std::map<std::string, std::map<std::string, LatchChild>> latches_;  // parent -> sequence -> child
  std::map<std::string, std::string> watchers_;          // watched latch child path -> watching client
  std::map<std::size_t, std::map<std::string, std::set<std::int64_t>>> running_;  // lane -> job -> items
};

}  // namespace harness
