#include "properties/Property.h"

#include "sim/node.h"

namespace properties {

std::string_view verdict_name(Verdict verdict) {
  switch (verdict) {
    case Verdict::held: return "held";
    case Verdict::violated: return "violated";
    case Verdict::not_judged: return "not-judged";
  }
  return "unknown";
}

void Property::violate(std::string message) {
  violations_total_++;
  if (violations_.size() >= violations_kept_max) return;
  violations_.push_back(Violation{std::string(name()), sim_.now(), message});
  // Into the trace as an observation (neither hashed nor counted, no event scheduled), for the trace
  // file, the timeline and the narration: judging a property must never change the run, or a failure
  // file explore writes (every property observed) would not replay (only the listed ones judged).
  // The sinks added before the checkers have seen the event that broke it first.
  std::string property(name());
  sim_.trace().observe(sim::no_node, "property.violation", {{"property", property}, {"message", message}});
}

const std::string& Property::node_name(sim::NodeId node) const {
  static const std::string none = "sim";
  return node == sim::no_node ? none : sim_.node(node).name();
}

}  // namespace properties
