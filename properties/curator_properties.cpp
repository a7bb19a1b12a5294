#include "properties/curator_properties.h"

#include "sim/simulation.h"
#include "sim/time.h"

namespace properties {

void LatchSingleLeader::on_event(const sim::TraceEvent& event) {
  beliefs_.observe(event);
  const std::string_view kind = event.kind;
  if (kind == "latch.leader" || kind == "selector.leader") {
    beliefs_.setBelief(std::string(event.text("path")), event.node, true);
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

void LatchSingleLeader::finish(const RunFacts&) {
  if (dirty_) judge();  // the run ended inside the instant
}

}  // namespace properties
