#include "harness/run_diff.h"

#include <deque>

#include "harness/message_summary.h"
#include "harness/narrator.h"
#include "harness/view.h"
#include "sim/node.h"

namespace harness {

namespace {

// The events a trace hash covers: observations (messages, sites, violations) are not compared.
bool compared(std::string_view kind) { return !kind.starts_with("net.") && !kind.starts_with("site.") && kind != "property.violation"; }

std::string fields_text(const sim::TraceEvent& event) {
  std::string text;
  for (const sim::TraceField& field : event.fields) {
    if (!text.empty()) text += ' ';
    text += field.key;
    text += '=';
    switch (field.value.type) {
      case sim::TraceValue::Type::integer: text += std::to_string(field.value.integer); break;
      case sim::TraceValue::Type::unsigned_integer: text += std::to_string(static_cast<std::uint64_t>(field.value.integer)); break;
      case sim::TraceValue::Type::boolean: text += field.value.integer != 0 ? "true" : "false"; break;
      case sim::TraceValue::Type::text: text += field.value.text; break;
    }
  }
  return text;
}

// FNV-1a over the event's time, node, kind and fields: the same on every platform.
std::uint64_t digest(const sim::TraceEvent& event, const std::string& fields) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;
  auto mix = [&](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 0x100000001b3ULL;
    }
    hash ^= 0xff;  // a separator, so "ab","c" and "a","bc" differ
    hash *= 0x100000001b3ULL;
  };
  std::int64_t time = (event.time - sim::epoch).count();
  mix(std::string_view(reinterpret_cast<const char*>(&time), sizeof time));
  std::uint32_t node = event.node;
  mix(std::string_view(reinterpret_cast<const char*>(&node), sizeof node));
  mix(event.kind);
  mix(fields);
  return hash;
}

// One sink for the three runs: digests (A's first run), compare (B's run), capture (A again).
class DiffRecorder final : public sim::TraceSink {
 public:
  enum class Mode { digest, compare, capture };

  DiffRecorder(Mode mode, const DiffOptions& options, std::vector<std::uint64_t>& digests, RunDiff& diff)
      : mode_(mode), options_(options), digests_(digests), diff_(diff) {}

  void on_attach(const sim::Simulation& sim) override {
    sim_ = &sim;
    narrator_.attach(sim);
  }

  void on_event(const sim::TraceEvent& event) override {
    bool after = diff_.divergence && index_ >= *diff_.divergence;
    if (mode_ != Mode::digest) {
      if (std::optional<NarratedEvent> told = narrator_.narrate(event)) tell(event, told->text, after);
    }
    if (!compared(event.kind)) return;
    std::string fields = fields_text(event);
    if (mode_ == Mode::digest) {
      digests_.push_back(digest(event, fields));
    } else if (mode_ == Mode::compare && !diff_.divergence) {
      if (index_ >= digests_.size() || digests_[index_] != digest(event, fields)) {
        diff_.divergence = index_;
        diff_.divergence_time = event.time;
        after = true;
      }
    }
    DiffEvent record{index_, event.time, name(event.node), std::string(event.kind), std::move(fields)};
    index_++;
    if (after) {
      std::vector<DiffEvent>& list = mode_ == Mode::compare ? diff_.b_after : diff_.a_after;
      if (list.size() <= options_.context_events) list.push_back(std::move(record));
    } else if (mode_ == Mode::compare) {
      recent_events_.push_back(std::move(record));
      if (recent_events_.size() > options_.context_events) recent_events_.pop_front();
    }
  }

  // B's run ended: what both shared before the divergence (B's copy of it, the same as A's).
  void finish_compare() {
    if (!diff_.divergence && index_ < digests_.size()) {
      diff_.divergence = index_;  // B ended where A went on
    }
    diff_.before.assign(recent_events_.begin(), recent_events_.end());
    diff_.told_before.assign(recent_sentences_.begin(), recent_sentences_.end());
  }
  std::uint64_t events() const { return index_; }

 private:
  std::string name(sim::NodeId node) const { return node < sim_->node_count() ? sim_->node(node).name() : std::string("sim"); }

  void tell(const sim::TraceEvent& event, std::string text, bool after) {
    DiffSentence sentence{event.time, name(event.node), std::move(text)};
    if (after) {
      std::vector<DiffSentence>& list = mode_ == Mode::compare ? diff_.b_told_after : diff_.a_told_after;
      if (list.size() < options_.context_sentences) list.push_back(std::move(sentence));
    } else if (mode_ == Mode::compare) {
      recent_sentences_.push_back(std::move(sentence));
      if (recent_sentences_.size() > options_.context_sentences) recent_sentences_.pop_front();
    }
  }

  Mode mode_;
  const DiffOptions& options_;
  std::vector<std::uint64_t>& digests_;
  RunDiff& diff_;
  const sim::Simulation* sim_ = nullptr;
  Narrator narrator_;
  std::uint64_t index_ = 0;
  std::deque<DiffEvent> recent_events_;
  std::deque<DiffSentence> recent_sentences_;
};

RunResult run_with(const Scenario& scenario, const DiffOptions& options, sim::TraceSink& recorder, ViewSink* view) {
  RunOptions run;
  run.limits = options.limits;
  run.timeline = false;
  run.sinks.push_back(&recorder);
  if (view != nullptr) {
    run.sinks.push_back(view);
    run.message_describer = &describe_message;
  }
  return runScenario(scenario, run);
}

}  // namespace

RunDiff diff_runs(const Scenario& a, const Scenario& b, const DiffOptions& options) {
  RunDiff diff;
  std::vector<std::uint64_t> digests;
  {
    DiffRecorder first(DiffRecorder::Mode::digest, options, digests, diff);
    diff.a = run_with(a, options, first, nullptr);
    diff.events_a = first.events();
  }
  {
    DiffRecorder compare(DiffRecorder::Mode::compare, options, digests, diff);
    diff.b = run_with(b, options, compare, options.view_b);
    diff.events_b = compare.events();
    compare.finish_compare();
  }
  digests.clear();
  digests.shrink_to_fit();
  if (diff.divergence || options.view_a != nullptr) {
    DiffRecorder capture(DiffRecorder::Mode::capture, options, digests, diff);
    diff.a = run_with(a, options, capture, options.view_a);
  }
  if (diff.divergence && !diff.divergence_time) {
    // One run ended where the other went on: the divergence is the longer one's next event.
    const std::vector<DiffEvent>& more = diff.a_after.empty() ? diff.b_after : diff.a_after;
    if (!more.empty()) diff.divergence_time = more.front().time;
  } else if (diff.divergence && !diff.a_after.empty()) {
    diff.divergence_time = std::min(*diff.divergence_time, diff.a_after.front().time);
  }
  return diff;
}

}  // namespace harness
