// Test support: a trace sink that keeps every event of a simulation, its fields copied, for
// assertions after (or, through `hook`, during) a run. Shared by the Curator and ElasticJob tests.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/simulation.h"
#include "sim/trace.h"

namespace test_support {

class TraceRecorder final : public sim::TraceSink {
 public:
  struct Event {
    sim::Instant time;
    sim::NodeId node;
    std::string kind;
    std::map<std::string, std::string> text;
    std::map<std::string, std::int64_t> integer;
    std::string field(const std::string& key) const {
      auto found = text.find(key);
      return found == text.end() ? std::string() : found->second;
    }
    std::int64_t number(const std::string& key) const {
      auto found = integer.find(key);
      return found == integer.end() ? -1 : found->second;
    }
  };
  explicit TraceRecorder(sim::Simulation& sim) : sim_(sim) { sim_.trace().add_sink(this); }
  ~TraceRecorder() override { sim_.trace().remove_sink(this); }
  TraceRecorder(const TraceRecorder&) = delete;
  TraceRecorder& operator=(const TraceRecorder&) = delete;

  void on_event(const sim::TraceEvent& event) override {
    Event copy{event.time, event.node, std::string(event.kind), {}, {}};
    for (const sim::TraceField& field : event.fields) {
      if (field.value.type == sim::TraceValue::Type::text) {
        copy.text.emplace(std::string(field.key), std::string(field.value.text));
      } else {
        copy.integer.emplace(std::string(field.key), field.value.integer);
      }
    }
    if (hook) {
      std::function<void(const Event&)> running = hook;  // the hook may replace itself
      running(copy);
    }
    events.push_back(std::move(copy));
  }
  std::vector<Event> of(const std::string& kind, std::optional<sim::NodeId> node = std::nullopt) const {
    std::vector<Event> result;
    for (const Event& event : events) {
      if (event.kind == kind && (!node || event.node == *node)) result.push_back(event);
    }
    return result;
  }
  std::size_t count(const std::string& kind) const { return of(kind).size(); }

  std::vector<Event> events;
  std::function<void(const Event&)> hook;  // runs for each event, before it is stored

 private:
  sim::Simulation& sim_;
};

}  // namespace test_support
