#include "harness/view.h"

#include <algorithm>

#include "harness/trigger_kinds.h"
#include "harness/view_page.h"
#include "sim/node.h"

namespace harness {

namespace {

std::int64_t ns(sim::Instant time) { return (time - sim::epoch).count(); }

std::int64_t lane_number(std::size_t lane) { return lane == NodeStates::cluster_lane ? -1 : static_cast<std::int64_t>(lane); }

nlohmann::ordered_json changes_json(const std::vector<FieldChange>& changes) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const FieldChange& change : changes) list.push_back({lane_number(change.lane), change.field, change.value});
  return list;
}

std::string role_of(std::string_view name) {
  std::size_t digits = name.find_first_of("0123456789");
  return digits == std::string_view::npos ? "node" : std::string(name.substr(0, digits));
}

}  // namespace

void ViewSink::on_attach(const sim::Simulation& sim) {
  narrator_.attach(sim);
  states_.attach(sim);
  lanes_.clear();
  for (sim::NodeId id = 0; id < sim.node_count(); id++) lanes_.push_back(sim.node(id).name());
  show_next_ = limits_.head_steps;
}

bool ViewSink::in_window(sim::Instant time) const {
  if (!limits_.window_from && !limits_.window_to) return false;
  return (!limits_.window_from || time >= *limits_.window_from) && (!limits_.window_to || time <= *limits_.window_to);
}

void ViewSink::on_event(const sim::TraceEvent& event) {
  if (event.kind.starts_with("net.") && event.kind != "net.links") {
    on_message(event);
    return;
  }
  if (event.kind == "property.violation") {
    if (violations_.size() < limits_.violations_detailed) show_next_ = std::max(show_next_, limits_.violation_steps_after + 1);
    violations_.emplace_back(event.time, std::string(event.text("property")) + ": " + std::string(event.text("message")));
  }
  states_.on_event(event);
  // A site (sim/site.h) feeds the panel (a txn logged) but is no step: the narration does not tell
  // it either (it reads no sites), and the page's steps are the narration's sentences.
  auto site = site_kinds_.find(event.kind);
  if (site == site_kinds_.end()) {
    const TriggerKind* kind = find_trigger_kind(event.kind);
    site = site_kinds_.emplace(std::string(event.kind), kind != nullptr && kind->site != nullptr).first;
  }
  if (site->second) return;
  std::optional<NarratedEvent> told = narrator_.narrate(event);
  if (!told) return;
  std::size_t lane = event.node < lanes_.size() ? static_cast<std::size_t>(event.node) : NodeStates::cluster_lane;
  tell(Step{event.time, lane, std::string(event.kind), told->topics, std::move(told->text), states_.take_changes(), steps_told_});
}

void ViewSink::tell(Step step) {
  steps_told_++;
  if (show_next_ > 0 || in_window(step.time)) {
    if (show_next_ > 0) show_next_--;
    show(std::move(step));
    return;
  }
  recent_.push_back(std::move(step));
  if (recent_.size() > limits_.violation_steps_before) {
    fold(std::move(recent_.front()));
    recent_.pop_front();
  }
}

void ViewSink::show(Step step) {
  flush_recent();
  settle_messages(step.ordinal, true);
  shown_.push_back(step_json(step));
}

void ViewSink::fold(Step step) {
  if (gap_.steps == 0) gap_.from = step.time;
  gap_.to = step.time;
  gap_.steps++;
  gap_.kinds[step.kind]++;
  for (FieldChange& change : step.changes) gap_.changes[{change.lane, change.field}] = std::move(change.value);
  settle_messages(step.ordinal, false);
}

void ViewSink::flush_recent() {
  flush_gap();
  while (!recent_.empty()) {
    Step step = std::move(recent_.front());
    recent_.pop_front();
    settle_messages(step.ordinal, true);
    shown_.push_back(step_json(step));
  }
}

void ViewSink::flush_gap() {
  if (gap_.steps == 0) return;
  std::vector<FieldChange> changes;
  for (auto& [key, value] : gap_.changes) changes.push_back(FieldChange{key.first, key.second, value});
  nlohmann::ordered_json kinds = nlohmann::ordered_json::object();
  for (const auto& [kind, count] : gap_.kinds) kinds[kind] = count;
  shown_.push_back({{"t", ns(gap_.from)},
                    {"t2", ns(gap_.to)},
                    {"l", -1},
                    {"k", "folded"},
                    {"gap", gap_.steps},
                    {"kinds", kinds},
                    {"m", gap_.messages},
                    {"d", changes_json(changes)}});
  gap_ = Gap{};
}

nlohmann::ordered_json ViewSink::step_json(const Step& step) const {
  return {{"t", ns(step.time)}, {"l", lane_number(step.lane)}, {"k", step.kind}, {"p", step.topics}, {"x", step.text}, {"d", changes_json(step.changes)}};
}

ViewSink::Message* ViewSink::find_message(std::uint64_t id) {
  if (auto pending = pending_.find(id); pending != pending_.end()) return &pending->second;
  auto kept = std::lower_bound(kept_.begin(), kept_.end(), id, [](const auto& entry, std::uint64_t wanted) { return entry.first < wanted; });
  if (kept != kept_.end() && kept->first == id) return &kept->second;
  return nullptr;  // folded with its step
}

// Messages sent before the step `through_step` was told go with it: shown, or folded.
void ViewSink::settle_messages(std::uint64_t through_step, bool keep) {
  while (!pending_.empty() && pending_.begin()->second.step <= through_step) {
    auto first = pending_.begin();
    if (keep && kept_.size() < limits_.messages_max) {
      kept_.emplace_back(first->first, std::move(first->second));
    } else if (keep) {
      messages_skipped_++;
    } else {
      gap_.messages++;
    }
    pending_.erase(first);
  }
}

void ViewSink::on_message(const sim::TraceEvent& event) {
  auto key = std::make_tuple(event.integer("connection"), event.integer("generation"), event.integer("direction"), event.integer("seq"));
  if (event.kind == "net.send") {
    auto to = std::find(lanes_.begin(), lanes_.end(), event.text("to"));
    if (to == lanes_.end() || event.node >= lanes_.size()) return;
    std::uint64_t id = next_message_id_++;
    in_flight_[key] = id;
    pending_.emplace(id, Message{steps_told_, TracedMessage::sent_by(event, event.node, static_cast<std::size_t>(to - lanes_.begin()))});
    return;
  }
  auto sent = in_flight_.find(key);
  if (sent == in_flight_.end()) return;
  if (Message* message = find_message(sent->second)) message->traced.ended(event);
  in_flight_.erase(sent);
}

nlohmann::ordered_json ViewSink::data(sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations) {
  // Liveness violations are judged after the run: told last, at their time.
  for (const properties::Violation& violation : violations) {
    std::string text = violation.property + ": " + violation.message;
    bool seen = std::any_of(violations_.begin(), violations_.end(), [&](const auto& v) { return v.first == violation.time && v.second == text; });
    if (seen) continue;
    violations_.emplace_back(violation.time, text);
    show_next_ = std::max<std::size_t>(show_next_, 1);
    tell(Step{violation.time, NodeStates::cluster_lane, "property.violation", 1U << static_cast<unsigned>(NarrationTopic::property),
              "VIOLATION of " + text + " (judged at the end of the run)", states_.take_changes(), steps_told_});
  }
  // The tail: the last steps, after what is folded before them; then what changed after the last step.
  while (recent_.size() > limits_.tail_steps) {
    fold(std::move(recent_.front()));
    recent_.pop_front();
  }
  flush_recent();
  std::vector<FieldChange> last = states_.take_changes();
  settle_messages(steps_told_, true);
  shown_.push_back({{"t", ns(end)}, {"l", -1}, {"k", "run.end"}, {"p", 0}, {"x", "the run ends"}, {"d", changes_json(last)}});

  nlohmann::ordered_json lanes = nlohmann::ordered_json::array();
  for (const std::string& name : lanes_) lanes.push_back({{"name", name}, {"role", role_of(name)}});
  nlohmann::ordered_json messages = nlohmann::ordered_json::array();
  for (const auto& [id, kept] : kept_) {
    // An array, not an object: a page holds tens of thousands (view_script.js names the places).
    const TracedMessage& message = kept.traced;
    nlohmann::ordered_json entry = nlohmann::ordered_json::array(
        {kept.step, message.from, message.to, ns(message.sent),
         message.received ? nlohmann::ordered_json(ns(*message.received)) : nlohmann::ordered_json(nullptr), message.what, message.category,
         message.heartbeat ? 1 : 0});
    if (!message.lost.empty()) entry.push_back(message.lost);
    messages.push_back(std::move(entry));
  }
  nlohmann::ordered_json told_violations = nlohmann::ordered_json::array();
  for (const auto& [time, text] : violations_) told_violations.push_back({{"t", ns(time)}, {"x", text}});
  nlohmann::ordered_json topics = nlohmann::ordered_json::array();
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) topics.push_back(narration_topic_name(static_cast<NarrationTopic>(topic)));
  return {{"title", title},
          {"end", ns(end)},
          {"lanes", lanes},
          {"topics", topics},
          {"steps", std::move(shown_)},
          {"steps_told", steps_told_},
          {"messages", messages},
          {"messages_skipped", messages_skipped_},
          {"violations", told_violations}};
}

void ViewSink::write_html(std::ostream& out, sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations) {
  write_view_page(out, data(end, title, violations));
}

}  // namespace harness
