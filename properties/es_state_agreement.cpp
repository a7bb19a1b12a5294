#include "properties/es_state_agreement.h"

namespace properties {

std::span<const std::string_view> EsStateAgreement::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"es.apply"};
  return read;
}

void EsStateAgreement::on_event(const sim::TraceEvent& event) {
  if (event.kind != "es.apply") return;
  if (event.text("master").empty() || event.boolean("local") || !event.boolean("recovered")) return;
  std::int64_t version = event.integer("version");
  auto hash = static_cast<std::uint64_t>(event.integer("hash"));
  auto [it, inserted] = first_.emplace(version, Applied{hash, event.node, std::string(event.text("master"))});
  if (inserted || it->second.hash == hash) return;
  violate(node_name(event.node) + " applied version " + std::to_string(version) + " from " + std::string(event.text("master")) +
          " with content " + sim::format_hash(hash) + ", but " + node_name(it->second.node) + " applied it from " + it->second.master +
          " with content " + sim::format_hash(it->second.hash));
}

}  // namespace properties
