// es-state-agreement: two nodes that applied the same cluster-state version applied the same
// content (Elasticsearch's coordinator tests check the same, keyed by term and version).
//
// Judged on es.apply events of published states: a state with a master, built by a master's
// master service (local=false) and recovered (recovered=true). Excluded are the node-local states
// Zen1 derives without publishing them (the no-master state of a rejoin), and states still under
// STATE_NOT_RECOVERED_BLOCK, whose versions restart after a full cluster restart in Elasticsearch.
#pragma once

#include <cstdint>
#include <map>

#include "properties/Property.h"

namespace properties {

class EsStateAgreement final : public Property {
 public:
  explicit EsStateAgreement(sim::Simulation& sim) : Property(sim) {}
  std::string_view name() const override { return "es-state-agreement"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  std::size_t versionsSeen() const { return first_.size(); }

 private:
  struct Applied {
    std::uint64_t hash;
    sim::NodeId node;
    std::string master;
  };
  std::map<std::int64_t, Applied> first_;  // version -> the first application seen
};

}  // namespace properties
