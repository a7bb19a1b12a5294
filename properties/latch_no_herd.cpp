#include "properties/latch_no_herd.h"

namespace properties {

std::span<const std::string_view> LatchNoHerd::kinds() const {
  // What on_event compares its kind with (ClientSessions reads client.state).
  static constexpr std::string_view read[] = {"client.state", "watch.register"};
  return read;
}

void LatchNoHerd::on_event(const sim::TraceEvent& event) {
  sessions_.observe(event);
  if (event.kind != "watch.register" || event.text("table") != "child" || event.text("path") != latchPath_) return;
  std::int64_t session = event.integer("session");
  if (!reported_.insert(session).second) return;
  violate(sessions_.describe(sim(), session) + " watches the children of " + latchPath_ + " on " + node_name(event.node) +
          ": every join and handover notifies every contender (the herd effect); a contender watches only its predecessor");
}

}  // namespace properties
