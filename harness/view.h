// The run viewer: `electsim run FILE --view OUT.html` writes one self-contained page (view_page.h)
// to step through a run. Its data, collected here from the trace:
//   - steps: every event the narrator tells (harness/narrator.h), each with its sentence, and the
//     node fields it changed (view_state.h), so the page shows every node's state at any step and
//     highlights what changed;
//   - messages (net.* observations), each tied to the step it was sent after;
//   - violations, each tied to its step.
//
// Scale: a run may tell millions of steps (fle-1419's 150 s: over a million). The page keeps every
// step of the first `head_steps`, of `violation_steps_before` before and `violation_steps_after`
// after each of the first `violations_detailed` violations, and the last `tail_steps`; between them
// a gap step stands for what was folded: how many steps, of which kinds, over which time, and it
// carries their state changes, so the state panel stays exact at every step shown. The page says
// what was folded and how to see it (a shorter scenario, or --view-from/--view-to).
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "harness/message_summary.h"
#include "harness/narrator.h"
#include "harness/view_state.h"
#include "properties/Property.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

struct ViewLimits {
  std::size_t head_steps = 6000;
  std::size_t tail_steps = 1500;
  std::size_t violation_steps_before = 3000;
  std::size_t violation_steps_after = 1500;
  std::size_t violations_detailed = 3;
  std::size_t messages_max = 20000;  // of the steps shown; the rest are counted (a page stays under 5 MB)
  // Keep every step within [from, to] of simulated time (the command line's --view-from/--view-to),
  // on top of the windows above. Empty: none.
  std::optional<sim::Instant> window_from;
  std::optional<sim::Instant> window_to;
};

class ViewSink final : public sim::TraceSink {
 public:
  explicit ViewSink(ViewLimits limits = {}) : limits_(limits) {}

  void on_attach(const sim::Simulation& sim) override;
  void on_event(const sim::TraceEvent& event) override;
  // The models' named steps (a txn appended to the log, synced): the panel's "logged" zxid.
  bool reads_sites() const override { return true; }

  // The page's data, the run having ended at `end`: call once, after the run (it hands over what
  // it collected). Violations judged only after the run (liveness) are not in the trace: pass the
  // run's to have them all.
  nlohmann::ordered_json data(sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations);
  void write_html(std::ostream& out, sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations);

  std::uint64_t steps_told() const { return steps_told_; }

 private:
  struct Step {
    sim::Instant time;
    std::size_t lane;       // the node, or NodeStates::cluster_lane for the simulation itself
    std::string kind;       // the trace kind ("fle.vote")
    std::uint16_t topics;   // NarrationTopic bits
    std::string text;       // the sentence
    std::vector<FieldChange> changes;
    std::uint64_t ordinal;  // the how-manieth step told, from 0
  };
  struct Message {
    std::uint64_t step;  // the ordinal of the next step told when it was sent
    TracedMessage traced;
  };
  // What was folded between two shown steps.
  struct Gap {
    std::uint64_t steps = 0;
    sim::Instant from{};
    sim::Instant to{};
    std::map<std::string, std::uint64_t> kinds;
    std::map<std::pair<std::size_t, std::string>, std::string> changes;  // the last value per field
    std::uint64_t messages = 0;
  };

  void tell(Step step);
  bool in_window(sim::Instant time) const;
  void show(Step step);
  void fold(Step step);
  void flush_recent();
  void flush_gap();
  void on_message(const sim::TraceEvent& event);
  nlohmann::ordered_json step_json(const Step& step) const;

  ViewLimits limits_;
  Narrator narrator_;
  NodeStates states_;
  std::vector<std::string> lanes_;

  std::uint64_t steps_told_ = 0;
  std::size_t show_next_ = 0;  // steps still to show directly (the head, after a violation)
  std::vector<nlohmann::ordered_json> shown_;  // steps and gaps, in order, as JSON
  std::deque<Step> recent_;                    // the last steps not shown, up to the window before a violation
  Gap gap_;                                    // what recent_ let go of since the last step shown

  // Messages: pending while the step they precede may still be folded, then kept (in send order)
  // or dropped with it.
  std::map<std::uint64_t, Message> pending_;  // by id
  std::vector<std::pair<std::uint64_t, Message>> kept_;  // (id, message), ids ascending
  std::uint64_t next_message_id_ = 0;
  std::map<std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>, std::uint64_t> in_flight_;  // key -> id
  Message* find_message(std::uint64_t id);
  void settle_messages(std::uint64_t through_step, bool keep);
  std::uint64_t messages_skipped_ = 0;
  std::vector<std::pair<sim::Instant, std::string>> violations_;  // (time, "property: message"), as seen
  std::map<std::string, bool, std::less<>> site_kinds_;  // kind -> whether it is a site
};

}  // namespace harness
