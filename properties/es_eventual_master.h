// es-eventual-master (liveness): once every fault has healed, one master that every node follows
// exists within a bound derived from the timeouts (EsConfig::stabilisationTime).
//
// Followed masters are read from the trace: es.apply sets the master a node follows (the state's
// master; none for a rejoin's no-master state), es.master with master=false and a node's crash,
// power-off or restart clear it. finish() holds when, from some instant no later than the last
// fault plus the bound until the end, every node of the cluster followed one node that followed
// itself. Not judged when faults never healed, or the run ended before the bound.
#pragma once

#include <map>
#include <optional>
#include <vector>

#include "properties/Property.h"

namespace properties {

class EsEventualMaster final : public Property {
 public:
  EsEventualMaster(sim::Simulation& sim, std::vector<sim::NodeId> nodes, sim::Duration bound);
  std::string_view name() const override { return "es-eventual-master"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  void finish(const RunFacts& facts) override;
  Verdict verdict() const override;
  sim::Duration bound() const { return bound_; }
  // Since when every node has followed one master (empty while they do not).
  std::optional<sim::Instant> agreedSince() const { return agreedSince_; }

 private:
  void update();

  std::vector<sim::NodeId> nodes_;
  sim::Duration bound_;
  std::map<sim::NodeId, sim::NodeId> follows_;
  std::optional<sim::Instant> agreedSince_;
  bool judged_ = false;
};

}  // namespace properties
