// The trace: every meaningful step of a run as a structured event (time, node, kind, fields).
//
// Recording is cheap when nobody listens: emit() folds the event into a running 64-bit hash and calls
// the subscribed sinks, if any. Field values are views into the caller's data, valid only during
// emit(); a sink that keeps anything copies it. The hash is defined over a fixed little-endian
// encoding, so a seed gives the same trace hash on every platform.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/string_hash.h"
#include "sim/time.h"

namespace sim {

using NodeId = std::uint32_t;
class Simulation;

struct TraceValue {
  enum class Type : std::uint8_t { integer, unsigned_integer, text, boolean };
  Type type;
  std::int64_t integer = 0;
  std::string_view text;

  TraceValue(std::int64_t value) : type(Type::integer), integer(value) {}
  TraceValue(std::int32_t value) : type(Type::integer), integer(value) {}
  TraceValue(std::uint32_t value) : type(Type::integer), integer(value) {}
  TraceValue(std::uint64_t value) : type(Type::unsigned_integer), integer(static_cast<std::int64_t>(value)) {}
  TraceValue(bool value) : type(Type::boolean), integer(value ? 1 : 0) {}
  TraceValue(std::string_view value) : type(Type::text), text(value) {}
  TraceValue(const char* value) : type(Type::text), text(value) {}
  TraceValue(const std::string& value) : type(Type::text), text(value) {}
  TraceValue(Duration value) : type(Type::integer), integer(value.count()) {}
};

struct TraceField {
  std::string_view key;
  TraceValue value;
};

struct TraceEvent {
  Instant time;
  NodeId node;
  std::string_view kind;
  std::span<const TraceField> fields;

  const TraceField* find(std::string_view key) const;
  std::int64_t integer(std::string_view key, std::int64_t fallback = 0) const;
  std::string_view text(std::string_view key, std::string_view fallback = {}) const;
  bool boolean(std::string_view key, bool fallback = false) const;
};

class TraceSink {
 public:
  virtual ~TraceSink() = default;
  virtual void on_event(const TraceEvent& event) = 0;
  // The event kinds this sink reads: a kind ("znode.create"), or a family ending in '.' ("node." is
  // every node.* kind). Empty, the default: every kind. The trace hands a sink only the events of
  // its kinds; a property lists exactly the kinds its on_event looks at, so the events it would
  // ignore cost it nothing.
  virtual std::span<const std::string_view> kinds() const { return {}; }
  // Called by Trace::add_sink. A sink made before its simulation (one a caller hands to the runner)
  // learns here which simulation it listens to, for node names.
  virtual void on_attach(const Simulation& sim) { (void)sim; }
  // Whether this sink also reads site observations (Trace::site: a model reached one of its named
  // steps, sim/site.h). Few do (a trace file, the fault triggers, the systematic search's recorder),
  // so a run where none listens pays one test per site reached.
  virtual bool reads_sites() const { return false; }
};

class Trace {
 public:
  explicit Trace(Simulation& sim) : sim_(sim) {}

  void emit(NodeId node, std::string_view kind, std::initializer_list<TraceField> fields = {});
  void emit(NodeId node, std::string_view kind, std::span<const TraceField> fields);
  // An observation outside the run's record: handed to the sinks, but neither hashed nor counted.
  // For what exists only when a tool asks for it (the network's message trace, net.*), so that
  // asking for a diagram does not change the trace hash a failure file records.
  void observe(NodeId node, std::string_view kind, std::initializer_list<TraceField> fields = {});
  // A model reached a named site (sim/site.h): an observation, neither hashed nor counted, handed to
  // the sinks that read sites. Returns whether one of them asked to hold the step there
  // (hold_step(), from its on_event): the site's awaiter then lets urgent events run first.
  bool site(NodeId node, std::string_view kind, std::span<const TraceField> fields);
  void hold_step() { hold_requested_ = true; }
  bool has_site_readers() const { return !site_readers_.empty(); }

  std::uint64_t hash() const { return hash_; }
  std::uint64_t events() const { return events_; }
  bool has_sinks() const { return !sinks_.empty(); }

  // Sinks are not owned; they must outlive the run or be removed first.
  void add_sink(TraceSink* sink);
  void remove_sink(TraceSink* sink);
  // Hands every sink every event, whatever its kinds(): the check that a sink's list is complete
  // (a sink judges the same with or without it; tests/harness/trace_kinds_test.cpp).
  void deliver_every_kind(bool every);

 private:
  const std::vector<TraceSink*>& sinks_for(std::string_view kind);

  Simulation& sim_;
  std::uint64_t hash_ = 0xcbf29ce484222325ULL;
  std::uint64_t events_ = 0;
  std::vector<TraceSink*> sinks_;
  std::vector<TraceSink*> site_readers_;  // the sinks whose reads_sites() is true, in order
  bool hold_requested_ = false;
  bool every_kind_ = false;
  // A kind's sinks, in the order they were added: found once per kind and run, then looked up.
  // Emptied whenever the sinks change.
  std::unordered_map<std::string, std::vector<TraceSink*>, StringHash, std::equal_to<>> sinks_by_kind_;
};

std::string format_hash(std::uint64_t hash);  // 16 lowercase hex digits

// Writes each event as one JSON object a line: {"t": ns, "node": "zk2", "kind": "...", ...fields}.
class JsonLinesSink final : public TraceSink {
 public:
  JsonLinesSink(const Simulation& sim, std::ostream& out) : sim_(sim), out_(out) {}
  void on_event(const TraceEvent& event) override;
  bool reads_sites() const override { return true; }

 private:
  const Simulation& sim_;
  std::ostream& out_;
};

}  // namespace sim
