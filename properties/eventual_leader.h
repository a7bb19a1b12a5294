// eventual-leader (liveness): after the last fault heals, a leader exists within a bound derived
// from the timeouts. For recipes on ZooKeeper the bound has two stages: the ensemble has an
// established leader within zookeeper_leader_bound of the last fault, then the recipe has its
// leader within the recipe's own bound of that moment. Both stages also wait for the data the
// faults left held in cut connections, until its retransmission (Network::queued_retransmissions):
// the first for all of it, the second for what clients and servers exchange. The harness samples
// the recipe's ground truth ("is there exactly one leader now?") once, at the end of the bound; a
// run that ends before, or with faults not healed, cannot judge it.
#pragma once

#include <functional>
#include <map>
#include <optional>

#include "properties/Property.h"

namespace properties {

class EventualLeader final : public Property {
 public:
  // `bound`: the recipe's own time to a leader, once ZooKeeper serves (or after the last fault).
  EventualLeader(sim::Simulation& sim, sim::Duration bound) : Property(sim), bound_(bound) {}
  std::string_view name() const override { return "eventual-leader"; }
  // Follows which ZooKeeper servers are LOOKING, and since when (zk.state events).
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  // The longest notification backoff a LOOKING server may be in at `now`: FastLeaderElection's
  // timeout starts at 200 ms and doubles only on timeouts, so after looking for L it is at most
  // L + 200 ms, and never more than `max_interval`. 200 ms when no server is looking.
  sim::Duration lookingBackoffBound(sim::Instant now, sim::Duration finalize_wait, sim::Duration max_interval) const;
  sim::Duration bound() const { return bound_; }
  // The harness calls this at the end of the bound with what the recipe sees; `description` says
  // what was expected by when, and what was found.
  void sample(bool leader_present, const std::string& description);
  // The faults left nobody who could lead: the property cannot be judged in this run.
  void sampleWithoutCandidates() { without_candidates_ = true; }
  void finish(const RunFacts& facts) override;
  Verdict verdict() const override;

 private:
  sim::Duration bound_;
  std::optional<bool> sampled_;
  bool judged_ = false;
  bool without_candidates_ = false;
  std::map<sim::NodeId, sim::Instant> looking_since_;
};

}  // namespace properties
