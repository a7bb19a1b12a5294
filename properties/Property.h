// A property is a checker fed by trace events. It subscribes to the run's trace, judges every event
// as it happens, and at the end says whether the property held, was violated (with the events that
// broke it), or could not be judged (a liveness property whose faults never stopped).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "sim/simulation.h"
#include "sim/trace.h"

namespace properties {

enum class Verdict : std::uint8_t { held, violated, not_judged };
std::string_view verdict_name(Verdict verdict);  // "held", "violated", "not-judged"

struct Violation {
  std::string property;
  sim::Instant time;
  std::string message;
};

// What a liveness property needs to know about the run's faults.
struct RunFacts {
  sim::Instant end;                  // when the run stopped
  sim::Instant last_fault;           // the last fault action (or the start)
  bool healed_at_end = true;         // no partition, pause or stopped node left at the end
};

class Property : public sim::TraceSink {
 public:
  explicit Property(sim::Simulation& sim) : sim_(sim) {}
  virtual std::string_view name() const = 0;
  // Called once, after the last event.
  virtual void finish(const RunFacts& facts) { (void)facts; }
  virtual Verdict verdict() const { return violations_.empty() ? Verdict::held : Verdict::violated; }
  const std::vector<Violation>& violations() const { return violations_; }

 protected:
  // Records a violation at the current simulated time (the first few are kept in full).
  void violate(std::string message);
  const std::string& node_name(sim::NodeId node) const;
  sim::Simulation& sim() const { return sim_; }

 private:
  static constexpr std::size_t violations_kept_max = 16;
  sim::Simulation& sim_;
  std::vector<Violation> violations_;
  std::size_t violations_total_ = 0;
};

}  // namespace properties
