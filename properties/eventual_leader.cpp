#include "properties/eventual_leader.h"

namespace properties {

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
