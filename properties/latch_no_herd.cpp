#include "properties/latch_no_herd.h"

#include <sstream>

namespace properties {

void LatchNoHerd::on_event(const sim::TraceEvent& event) {
  if (event.kind == "client.state" && event.text("layer") == "zookeeper" && event.text("state") == "CONNECTED") {
    sessionNodes_[event.integer("session")] = event.node;
    return;
  }
  if (event.kind != "watch.register" || event.text("table") != "child" || event.text("path") != latchPath_) return;
  std::int64_t session = event.integer("session");
  if (!reported_.insert(session).second) return;
  std::ostringstream who;
  auto contender = sessionNodes_.find(session);
  if (contender != sessionNodes_.end()) who << node_name(contender->second) << " (session 0x" << std::hex << session << ")";
  else who << "session 0x" << std::hex << session;
  violate(who.str() + " watches the children of " + latchPath_ + " on " + node_name(event.node) +
          ": every join and handover notifies every contender (the herd effect); a contender watches only its predecessor");
}

}  // namespace properties
