#include "properties/eventual_leader.h"

#include <algorithm>

namespace properties {

std::span<const std::string_view> EventualLeader::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"zk.state", "node.crash", "node.power_off"};
  return read;
}

void EventualLeader::on_event(const sim::TraceEvent& event) {
  if (event.kind == "zk.state") {
    if (event.text("state") == "LOOKING") {
      looking_since_.emplace(event.node, event.time);  // keeps the first: still the same search
    } else {
      looking_since_.erase(event.node);
    }
  } else if (event.kind == "node.crash" || event.kind == "node.power_off") {
    looking_since_.erase(event.node);
  }
}

sim::Duration EventualLeader::lookingBackoffBound(sim::Instant now, sim::Duration finalize_wait, sim::Duration max_interval) const {
  sim::Duration bound = finalize_wait;
  for (const auto& [node, since] : looking_since_) bound = std::max(bound, std::min(max_interval, (now - since) + finalize_wait));
  return bound;
}

void EventualLeader::sample(bool leader_present, const std::string& description) {
  sampled_ = leader_present;
  if (!leader_present) violate(description);
}

void EventualLeader::finish(const RunFacts& facts) {
  judged_ = sampled_.has_value() && facts.healed_at_end && !without_candidates_;
}

Verdict EventualLeader::verdict() const {
  if (!judged_) return Verdict::not_judged;
  return violations().empty() ? Verdict::held : Verdict::violated;
}

}  // namespace properties
