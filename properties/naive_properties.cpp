#include "properties/naive_properties.h"

namespace properties {

void NaiveMasterStable::on_event(const sim::TraceEvent& event) {
  if (event.kind == "node.start") alive_[node_name(event.node)] = true;
  if (event.kind == "node.crash" || event.kind == "node.power_off") alive_[node_name(event.node)] = false;
  if (event.kind != "naive.master") return;
  std::string taker(event.text("name"));
  if (master_ && *master_ != taker && alive_[*master_]) {
    violate("mastership moved from " + *master_ + " to " + taker + " while " + *master_ +
            " was alive: the slaves resynchronise for nothing (no anti-jitter delay)");
  }
  master_ = taker;
}

}  // namespace properties
