#include "properties/curator_properties.h"

#include "sim/assert.h"
#include "sim/simulation.h"
#include "sim/time.h"

namespace properties {

std::span<const std::string_view> LatchSingleLeader::kinds() const {
  // What on_event compares its kind with (LeadershipBeliefs reads node.* and client.state).
  static constexpr std::string_view read[] = {"node.", "client.state", "session.close", "latch.leader", "selector.leader", "latch.not_leader", "selector.released"};
  return read;
}

void LatchSingleLeader::on_event(const sim::TraceEvent& event) {
  beliefs_.observe(event);
  const std::string_view kind = event.kind;
  if (kind == "session.close") {
    closed_sessions_.emplace(event.integer("session"), event.time);  // keeps the first
  } else if (kind == "client.state" && event.text("layer") == "zookeeper" && event.text("state") == "CONNECTED") {
    sessions_[event.node] = event.integer("session");
  } else if (kind == "node.start") {
    sessions_.erase(event.node);  // a new process: no session yet
  }
  if (kind == "session.close") {
    // A believer's session may just have closed.
  } else if (kind == "latch.leader" || kind == "selector.leader") {
    beliefs_.setBelief(std::string(event.text("path")), event.node, true);
    believes_since_[{std::string(event.text("path")), event.node}] = event.time;
  } else if (kind == "latch.not_leader" || kind == "selector.released") {
    beliefs_.setBelief(std::string(event.text("path")), event.node, false);
  } else if (!kind.starts_with("node.") && kind != "client.state") {
    return;
  }
  if (dirty_) return;
  // Judge once this instant is over: 1 ns later, after everything else that happens at it.
  dirty_ = true;
  instant_ = event.time;
  sim().schedule_callback(event.time + std::chrono::nanoseconds(1), sim::no_node, [this] { judge(); });
}

void LatchSingleLeader::judge() {
  dirty_ = false;
  for (const std::string& path : beliefs_.groups()) {
    std::vector<sim::NodeId> leaders = beliefs_.activeLeaders(path);
    std::erase_if(leaders, [this, &path](sim::NodeId node) { return beganOnAClosedSession(path, node); });
    bool overlap = leaders.size() > 1;
    bool& reported = overlapping_[path];
    if (overlap && !reported) {
      std::string names;
      for (sim::NodeId node : leaders) names += (names.empty() ? "" : " and ") + node_name(node);
      violate(names + " both believe they hold " + path + " since " + sim::format_instant(instant_) +
              " (each live, unpaused and connected)");
    }
    reported = overlap;
  }
}

bool LatchSingleLeader::beganOnAClosedSession(const std::string& path, sim::NodeId node) const {
  auto session = sessions_.find(node);
  if (session == sessions_.end()) return false;
  auto closed = closed_sessions_.find(session->second);
  auto since = believes_since_.find({path, node});
  ELECTSIM_ASSERT(since != believes_since_.end());  // a believer has a leader event
  return closed != closed_sessions_.end() && closed->second <= since->second;
}

void LatchSingleLeader::finish(const RunFacts&) {
  if (dirty_) judge();  // the run ended inside the instant
}

}  // namespace properties
