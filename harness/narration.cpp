#include "harness/narration.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <stdexcept>

namespace harness {

namespace {

// "    2.012170s": fixed width, integer arithmetic (no floating point near the clock).
std::string format_time(sim::Instant time) {
  std::int64_t nanos = sim::nanos(time);
  char text[40];
  std::snprintf(text, sizeof text, "%6lld.%06llds", static_cast<long long>(nanos / 1000000000), static_cast<long long>(nanos % 1000000000 / 1000));
  return text;
}

std::string trimmed(std::string_view text) {
  std::size_t first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) return {};
  std::size_t last = text.find_last_not_of(' ');
  return std::string(text.substr(first, last - first + 1));
}

// Whether `text` names `name` as a whole word ("i1" is not in "i10").
bool mentions(std::string_view text, std::string_view name) {
  for (std::size_t at = text.find(name); at != std::string_view::npos; at = text.find(name, at + 1)) {
    bool starts = at == 0 || !std::isalnum(static_cast<unsigned char>(text[at - 1]));
    std::size_t end = at + name.size();
    bool ends = end == text.size() || !std::isalnum(static_cast<unsigned char>(text[end]));
    if (starts && ends) return true;
  }
  return false;
}

}  // namespace

NarrationFilter NarrationFilter::everything() {
  NarrationFilter filter;
  filter.topics_.set();
  filter.topics_.reset(static_cast<std::size_t>(NarrationTopic::net));
  return filter;
}

NarrationFilter NarrationFilter::parse(std::string_view list) {
  if (trimmed(list).empty()) return everything();
  NarrationFilter filter;
  std::size_t start = 0;
  while (start <= list.size()) {
    std::size_t comma = std::min(list.find(',', start), list.size());
    std::string name = trimmed(list.substr(start, comma - start));
    start = comma + 1;
    if (name == "all") {
      filter.topics_ |= everything().topics_;
      continue;
    }
    bool known = false;
    for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
      if (narration_topic_name(static_cast<NarrationTopic>(topic)) != name) continue;
      filter.topics_.set(topic);
      known = true;
    }
    if (!known) {
      std::string expected;
      for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
        expected += (topic == 0 ? "" : ", ") + std::string(narration_topic_name(static_cast<NarrationTopic>(topic)));
      }
      throw std::invalid_argument("unknown narration topic '" + name + "' (expected all, " + expected + ")");
    }
  }
  return filter;
}

bool NarrationFilter::wants(const NarratedEvent& event) const {
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
    if (topics_.test(topic) && event.about(static_cast<NarrationTopic>(topic))) return true;
  }
  return false;
}

std::string NarrationFilter::describe() const {
  std::string text;
  for (std::size_t topic = 0; topic < narration_topic_count; topic++) {
    if (topics_.test(topic)) text += (text.empty() ? "" : ", ") + std::string(narration_topic_name(static_cast<NarrationTopic>(topic)));
  }
  return text;
}

void NarrationSink::on_attach(const sim::Simulation& sim) {
  narrator_.attach(sim);
  node_width_ = 4;
  for (const std::string& name : narrator_.node_names()) node_width_ = std::max(node_width_, name.size());
}

void NarrationSink::on_event(const sim::TraceEvent& event) {
  std::optional<NarratedEvent> narrated = narrator_.narrate(event);
  if (!narrated) return;
  if (event.kind == "property.violation") {
    std::string property(event.text("property"));
    std::string message(event.text("message"));
    told_violations_.insert({event.time, property});
    if (filter_.wants(NarrationTopic::property)) tell_violation(event.time, property, message);
    return;
  }
  Line line{event.time, narrator_.node_name(event.node), std::move(*narrated)};
  if (filter_.wants(line.event)) write(line);
  recent_.push_back(std::move(line));
  if (recent_.size() > context_kept_max) recent_.pop_front();
}

void NarrationSink::finish(const std::vector<properties::Violation>& violations) {
  if (!filter_.wants(NarrationTopic::property)) return;
  for (const properties::Violation& violation : violations) {
    if (told_violations_.contains({violation.time, violation.property})) continue;
    told_violations_.insert({violation.time, violation.property});
    tell_violation(violation.time, violation.property, violation.message);
  }
}

void NarrationSink::write(const Line& line, std::string_view indent) {
  std::string node = line.node;
  node.resize(std::max(node.size(), node_width_), ' ');
  out_ << indent << format_time(line.time) << "  " << node << "  " << line.event.text << "\n";
  lines_written_++;
}

void NarrationSink::tell_violation(sim::Instant time, const std::string& property, const std::string& message) {
  Line violation{time, "-", NarratedEvent{0, "VIOLATION of " + property + ": " + message}};
  write(violation);
  std::vector<const Line*> lines = lead_up(message);
  if (lines.empty()) return;
  out_ << "    what led to it:\n";
  for (const Line* line : lines) write(*line, "    ");
}

std::vector<const NarrationSink::Line*> NarrationSink::lead_up(const std::string& message) const {
  // The nodes the message names; without any, the last sentences of the run.
  std::vector<std::string> named;
  for (const std::string& name : narrator_.node_names()) {
    if (mentions(message, name)) named.push_back(name);
  }
  std::vector<const Line*> chosen;
  for (auto line = recent_.rbegin(); line != recent_.rend() && chosen.size() < context_told_max; ++line) {
    bool relevant = named.empty() || std::any_of(named.begin(), named.end(), [&](const std::string& name) {
                      return line->node == name || mentions(line->event.text, name);
                    });
    if (relevant) chosen.push_back(&*line);
  }
  std::reverse(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace harness
