// latch-single-leader: the promise of Curator's LeaderLatch and LeaderSelector. Per latch path, no
// two live, unpaused, connected contenders believe they lead at once (LeaderLatch.hasLeadership,
// or being inside LeaderSelectorListener.takeLeadership). See leadership_beliefs.h for what counts.
#pragma once

#include <map>
#include <string>

#include "properties/Property.h"
#include "properties/leadership_beliefs.h"

namespace properties {

class LatchSingleLeader final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "latch-single-leader"; }
  void on_event(const sim::TraceEvent& event) override;
  void finish(const RunFacts& facts) override;

 private:
  // Judges the state as it stands at the end of the instant `instant_` (scheduled 1 ns after it).
  void judge();

  LeadershipBeliefs beliefs_;
  sim::Instant instant_{};
  bool dirty_ = false;
  std::map<std::string, bool> overlapping_;  // per path: an overlap is in progress (reported once)
};

}  // namespace properties
