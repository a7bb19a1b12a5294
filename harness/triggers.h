// Step-triggered faults at run time: a sink on the trace that counts, for each fault with `after`,
// the occurrences of its event at its node (from `at` to `until`) and, at the n-th, applies the fault
// `delay` later. With no delay the fault is urgent (sim/simulation.h): it lands before anything else
// due now, and a coroutine that reached a holding site (sim/site.h) waits for it there, so a crash
// triggered by zab.current_epoch_written happens with the epoch written and nothing after it.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

class Cluster;

// What became of one step-triggered fault, for the run's report.
struct TriggerReport {
  std::size_t fault = 0;      // its index in the scenario's (sorted) faults
  std::string description;    // "crash zk1 after zk1's 1st zab.current_epoch_written"
  int seen = 0;               // matching occurrences counted
  std::optional<sim::Instant> fired;    // when the n-th occurrence came
  std::optional<sim::Instant> applied;  // when the fault itself happened (fired + delay, if within the run)
};

class FaultTriggers final : public sim::TraceSink {
 public:
  using Apply = std::function<void(const Fault&)>;
  // Arms every fault of `faults` that has a trigger; `node_id` finds a node by its scenario name.
  FaultTriggers(sim::Simulation& sim, const std::vector<Fault>& faults, const std::function<sim::NodeId(const std::string&)>& node_id,
                Apply apply);

  bool armed() const { return !triggers_.empty(); }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override { return kinds_; }
  bool reads_sites() const override { return true; }
  std::vector<TriggerReport> reports() const;

 private:
  struct Armed {
    std::size_t index;
    Fault fault;
    sim::NodeId node;
    sim::Instant from;
    sim::Instant until;
    int seen = 0;
    std::optional<sim::Instant> fired;
    std::optional<sim::Instant> applied;
  };
  void fire(Armed& armed);

  sim::Simulation& sim_;
  Apply apply_;
  std::vector<Armed> triggers_;
  std::vector<std::string_view> kinds_;  // views into the armed faults' event names
};

// "crash zk1", "partition [zk1] | [zk2, zk3]", ...: a fault's action in a few words.
std::string describe_action(const Fault& fault);
// Whether a traced field's value matches the text a scenario's `where` gives for it.
bool field_matches(const sim::TraceField& field, std::string_view expected);

}  // namespace harness
