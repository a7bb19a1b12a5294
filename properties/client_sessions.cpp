#include "properties/client_sessions.h"

#include <cstdio>

#include "sim/node.h"

namespace properties {

void ClientSessions::observe(const sim::TraceEvent& event) {
  if (event.kind != "client.state" || event.text("layer") != "zookeeper" || event.node == sim::no_node) return;
  std::int64_t session = event.integer("session");
  if (session != 0) nodes_[session] = event.node;
}

std::optional<sim::NodeId> ClientSessions::nodeOf(std::int64_t session) const {
  auto found = nodes_.find(session);
  if (found == nodes_.end()) return std::nullopt;
  return found->second;
}

std::string ClientSessions::describe(const sim::Simulation& sim, std::int64_t session) const {
  std::optional<sim::NodeId> node = nodeOf(session);
  std::string who = node ? sim.node(*node).name() : std::string("an unknown client");
  return who + " (session " + formatHex(session) + ")";
}

std::string formatHex(std::int64_t session) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(session));
  return text;
}

}  // namespace properties
