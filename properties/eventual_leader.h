// eventual-leader (liveness): after the last fault heals, a leader exists within a bound derived
// from the timeouts. The harness samples the recipe's ground truth ("is there exactly one leader
// now?") once, at the last fault + the bound; a run that ends before, or with faults not healed,
// cannot judge it.
#pragma once

#include <functional>
#include <optional>

#include "properties/Property.h"

namespace properties {

class EventualLeader final : public Property {
 public:
  EventualLeader(sim::Simulation& sim, sim::Duration bound) : Property(sim), bound_(bound) {}
  std::string_view name() const override { return "eventual-leader"; }
  void on_event(const sim::TraceEvent&) override {}
  sim::Duration bound() const { return bound_; }
  // The harness calls this at last_fault + bound with what the recipe sees.
  void sample(bool leader_present, const std::string& description);
  void finish(const RunFacts& facts) override;
  Verdict verdict() const override;

 private:
  sim::Duration bound_;
  std::optional<bool> sampled_;
  bool judged_ = false;
};

}  // namespace properties
