#include "properties/es_eventual_master.h"

#include "sim/node.h"

namespace properties {

EsEventualMaster::EsEventualMaster(sim::Simulation& sim, std::vector<sim::NodeId> nodes, sim::Duration bound)
    : Property(sim), nodes_(std::move(nodes)), bound_(bound) {
  for (sim::NodeId node : nodes_) follows_[node] = sim::no_node;
}

std::span<const std::string_view> EsEventualMaster::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"es.apply", "es.master", "node.crash", "node.power_off", "node.start"};
  return read;
}

void EsEventualMaster::on_event(const sim::TraceEvent& event) {
  auto it = follows_.find(event.node);
  if (it == follows_.end()) return;
  if (event.kind == "es.apply") {
    std::string_view master = event.text("master");
    sim::NodeId followed = sim::no_node;
    for (sim::NodeId node : nodes_) {
      if (sim().node(node).name() == master) followed = node;
    }
    it->second = followed;
  } else if (event.kind == "es.master") {
    if (!event.boolean("master")) it->second = sim::no_node;
  } else if (event.kind == "node.crash" || event.kind == "node.power_off" || event.kind == "node.start") {
    it->second = sim::no_node;
  } else {
    return;
  }
  update();
}

void EsEventualMaster::update() {
  sim::NodeId master = follows_.begin()->second;
  bool agreed = master != sim::no_node && follows_.contains(master) && follows_.at(master) == master;
  for (const auto& [node, followed] : follows_) agreed = agreed && followed == master;
  if (!agreed) {
    agreedSince_.reset();
  } else if (!agreedSince_) {
    agreedSince_ = sim().now();
  }
}

void EsEventualMaster::finish(const RunFacts& facts) {
  if (!facts.healed_at_end || facts.end < facts.last_fault + bound_) return;  // cannot judge
  judged_ = true;
  if (agreedSince_ && *agreedSince_ <= facts.last_fault + bound_) return;
  std::string found = agreedSince_ ? "only from " + sim::format_instant(*agreedSince_) : std::string("not by the end");
  violate("no single master followed by every node within " + sim::format_duration(bound_) + " of the last fault (at " +
          sim::format_instant(facts.last_fault) + "): " + found);
}

Verdict EsEventualMaster::verdict() const {
  if (!judged_) return Verdict::not_judged;
  return Property::verdict();
}

}  // namespace properties
