#include "sim/trace.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/assert.h"
#include "sim/hash_fold.h"
#include "sim/node.h"
#include "sim/random.h"
#include "sim/simulation.h"

namespace sim {

const TraceField* TraceEvent::find(std::string_view key) const {
  // Keys are string literals. The one asked for is usually the very literal the event was made with
  // (the linker merges equal literals), and the first character tells most others of the same
  // length apart without a call to memcmp (these comparisons were 1% of an exploration).
  for (const TraceField& field : fields) {
    if (field.key.size() != key.size()) continue;
    if (field.key.data() == key.data()) return &field;
    if (!key.empty() && field.key.front() == key.front() && field.key == key) return &field;
  }
  return nullptr;
}

std::int64_t TraceEvent::integer(std::string_view key, std::int64_t fallback) const {
  const TraceField* field = find(key);
  return field != nullptr && field->value.type != TraceValue::Type::text ? field->value.integer : fallback;
}

std::string_view TraceEvent::text(std::string_view key, std::string_view fallback) const {
  const TraceField* field = find(key);
  return field != nullptr && field->value.type == TraceValue::Type::text ? field->value.text : fallback;
}

bool TraceEvent::boolean(std::string_view key, bool fallback) const {
  const TraceField* field = find(key);
  return field != nullptr && field->value.type == TraceValue::Type::boolean ? field->value.integer != 0 : fallback;
}

void Trace::emit(NodeId node, std::string_view kind, std::initializer_list<TraceField> fields) {
  emit(node, kind, std::span<const TraceField>(fields.begin(), fields.size()));
}

void Trace::emit(NodeId node, std::string_view kind, std::span<const TraceField> fields) {
  events_++;
  std::uint64_t hash = hash_fold(hash_, static_cast<std::uint64_t>(nanos(sim_.now())));
  hash = hash_fold(hash, node);
  hash = hash_fold_text(hash, kind);
  // Keys are not hashed: an event kind always has the same fields in the same order.
  for (const TraceField& field : fields) {
    hash = hash_fold(hash, static_cast<std::uint64_t>(field.value.type));
    hash = field.value.type == TraceValue::Type::text ? hash_fold_text(hash, field.value.text)
                                                      : hash_fold(hash, static_cast<std::uint64_t>(field.value.integer));
  }
  hash_ = hash;
  if (sinks_.empty()) return;
  TraceEvent event{sim_.now(), node, kind, fields};
  for (TraceSink* sink : sinks_for(kind)) sink->on_event(event);
}

void Trace::observe(NodeId node, std::string_view kind, std::initializer_list<TraceField> fields) {
  if (sinks_.empty()) return;
  TraceEvent event{sim_.now(), node, kind, std::span<const TraceField>(fields.begin(), fields.size())};
  for (TraceSink* sink : sinks_for(kind)) sink->on_event(event);
}

bool Trace::site(NodeId node, std::string_view kind, std::span<const TraceField> fields) {
  if (site_readers_.empty()) return false;
  hold_requested_ = false;
  TraceEvent event{sim_.now(), node, kind, fields};
  for (TraceSink* sink : site_readers_) {
    std::span<const std::string_view> kinds = sink->kinds();
    if (!every_kind_ && !kinds.empty() &&
        std::ranges::none_of(kinds, [kind](std::string_view listed) { return listed.ends_with('.') ? kind.starts_with(listed) : kind == listed; })) {
      continue;
    }
    sink->on_event(event);
  }
  bool hold = hold_requested_;
  hold_requested_ = false;
  return hold;
}

namespace {
bool reads(const TraceSink& sink, std::string_view kind) {
  std::span<const std::string_view> kinds = sink.kinds();
  if (kinds.empty()) return true;
  return std::ranges::any_of(kinds, [kind](std::string_view listed) {
    ELECTSIM_ASSERT(!listed.empty());
    return listed.ends_with('.') ? kind.starts_with(listed) : kind == listed;
  });
}
}  // namespace

const std::vector<TraceSink*>& Trace::sinks_for(std::string_view kind) {
  if (every_kind_) return sinks_;
  auto found = sinks_by_kind_.find(kind);
  if (found != sinks_by_kind_.end()) return found->second;
  // A sink may not add or remove sinks from on_event, so the list handed out stays valid.
  std::vector<TraceSink*> readers;
  for (TraceSink* sink : sinks_) {
    if (reads(*sink, kind)) readers.push_back(sink);
  }
  return sinks_by_kind_.emplace(std::string(kind), std::move(readers)).first->second;
}

void Trace::add_sink(TraceSink* sink) {
  sinks_.push_back(sink);
  if (sink->reads_sites()) site_readers_.push_back(sink);
  sinks_by_kind_.clear();
  sink->on_attach(sim_);
}

void Trace::remove_sink(TraceSink* sink) {
  sinks_.erase(std::remove(sinks_.begin(), sinks_.end(), sink), sinks_.end());
  site_readers_.erase(std::remove(site_readers_.begin(), site_readers_.end(), sink), site_readers_.end());
  sinks_by_kind_.clear();
}

void Trace::deliver_every_kind(bool every) {
  every_kind_ = every;
  sinks_by_kind_.clear();
}

std::string format_hash(std::uint64_t hash) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(hash));
  return text;
}

void JsonLinesSink::on_event(const TraceEvent& event) {
  nlohmann::ordered_json line;
  line["t"] = nanos(event.time);
  line["node"] = event.node == no_node ? std::string("sim") : sim_.node(event.node).name();
  line["kind"] = event.kind;
  for (const TraceField& field : event.fields) {
    std::string key(field.key);
    // The line's own t, node and kind are never overwritten: a field of one of those names is
    // written as _t, _node or _kind.
    if (key == "t" || key == "node" || key == "kind") key.insert(0, "_");
    switch (field.value.type) {
      case TraceValue::Type::integer: line[key] = field.value.integer; break;
      case TraceValue::Type::unsigned_integer: line[key] = static_cast<std::uint64_t>(field.value.integer); break;
      case TraceValue::Type::boolean: line[key] = field.value.integer != 0; break;
      case TraceValue::Type::text: line[key] = field.value.text; break;
    }
  }
  // Text that is not UTF-8 (a name from a scenario file, say) is written with U+FFFD in its place
  // rather than throwing in the middle of a run.
  out_ << line.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << '\n';
}

}  // namespace sim
