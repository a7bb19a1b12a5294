#include "harness/triggers.h"

#include <algorithm>

#include "harness/scenario_yaml.h"
#include "harness/trigger_kinds.h"

namespace harness {

std::string describe_action(const Fault& fault) {
  std::string text(fault_kind_name(fault.kind));
  auto group_text = [](const std::vector<std::string>& group) {
    std::string names;
    for (const std::string& name : group) names += (names.empty() ? "" : ", ") + name;
    return "[" + names + "]";
  };
  switch (fault.kind) {
    case FaultKind::partition:
    case FaultKind::bridge: {
      std::string groups;
      for (const auto& group : fault.groups) groups += (groups.empty() ? "" : " | ") + group_text(group);
      return text + (fault.kind == FaultKind::bridge ? " " + fault.node + " between " : " ") + groups;
    }
    case FaultKind::drop: return text + " " + fault.from + " -> " + fault.to;
    case FaultKind::heal: return "heal all";
    case FaultKind::set_sharding_total_count: return text + " " + fault.job + " = " + std::to_string(fault.value);
    case FaultKind::pause: return text + " " + fault.node + " for " + sim::format_duration(fault.pause_for);
    default: return text + " " + fault.node;
  }
}

bool field_matches(const sim::TraceField& field, std::string_view expected) {
  switch (field.value.type) {
    case sim::TraceValue::Type::text: return field.value.text == expected;
    case sim::TraceValue::Type::boolean: return expected == (field.value.integer != 0 ? "true" : "false");
    case sim::TraceValue::Type::integer: {
      auto number = scenario_yaml::parse_integer_text(expected);
      return number && *number == field.value.integer;
    }
    case sim::TraceValue::Type::unsigned_integer: {
      auto number = scenario_yaml::parse_unsigned_text(expected);
      return number && *number == static_cast<std::uint64_t>(field.value.integer);
    }
  }
  return false;
}

FaultTriggers::FaultTriggers(sim::Simulation& sim, const std::vector<Fault>& faults,
                             const std::function<sim::NodeId(const std::string&)>& node_id, Apply apply)
    : sim_(sim), apply_(std::move(apply)) {
  triggers_.reserve(faults.size());
  for (std::size_t index = 0; index < faults.size(); index++) {
    const Fault& fault = faults[index];
    if (!fault.after) continue;
    sim::Instant until = fault.until ? sim::epoch + *fault.until : sim::instant_max;
    triggers_.push_back(Armed{index, fault, node_id(fault.after->node), sim::epoch + fault.at, until});
  }
  // The kinds, once each; the views point into triggers_' faults, which never move again.
  for (const Armed& armed : triggers_) {
    std::string_view kind = armed.fault.after->event;
    if (std::find(kinds_.begin(), kinds_.end(), kind) == kinds_.end()) kinds_.push_back(kind);
  }
}

void FaultTriggers::on_event(const sim::TraceEvent& event) {
  for (Armed& armed : triggers_) {
    const Trigger& trigger = *armed.fault.after;
    if (armed.fired || event.node != armed.node || event.kind != trigger.event) continue;
    if (event.time < armed.from || event.time > armed.until) continue;
    bool matches = std::all_of(trigger.where.begin(), trigger.where.end(), [&event](const auto& filter) {
      const sim::TraceField* field = event.find(filter.first);
      return field != nullptr && field_matches(*field, filter.second);
    });
    if (!matches) continue;
    armed.seen++;
    if (armed.seen == trigger.occurrence) fire(armed);
  }
}

void FaultTriggers::fire(Armed& armed) {
  armed.fired = sim_.now();
  Armed* target = &armed;  // triggers_ never reallocates after construction
  auto apply = [this, target] {
    target->applied = sim_.now();
    apply_(target->fault);
  };
  if (armed.fault.delay == sim::Duration::zero()) {
    // Right at the step: before anything else due now, and the step's coroutine waits for it.
    sim_.schedule_urgent_callback(std::move(apply));
    sim_.trace().hold_step();
  } else {
    sim_.schedule_callback(sim_.now() + armed.fault.delay, sim::no_node, std::move(apply));
  }
}

std::vector<TriggerReport> FaultTriggers::reports() const {
  std::vector<TriggerReport> reports;
  for (const Armed& armed : triggers_) {
    std::string description = describe_action(armed.fault) + " " +
                              (armed.fault.delay == sim::Duration::zero() ? "" : sim::format_duration(armed.fault.delay) + " ") + "after " +
                              describe_trigger(*armed.fault.after);
    reports.push_back(TriggerReport{armed.index, std::move(description), armed.seen, armed.fired, armed.applied});
  }
  return reports;
}

}  // namespace harness
