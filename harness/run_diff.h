// Two runs compared: `electsim diff A.yaml B.yaml` (a bug switch on and off, two seeds, two
// versions). The runs are aligned event by event (the events their trace hashes cover, in order)
// and the first event where they part is the divergence: what each run did there, what both did
// just before, and what each told next. Deterministic runs make this exact: everything before the
// divergence happened identically in both, so the difference starts there and nowhere earlier.
//
// Memory: run A is first run keeping one 64-bit digest per event (8 bytes: an hour of the flagship
// is 44 MB), run B is compared as it runs, and run A is run again to show the events around the
// divergence in full.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "harness/runner.h"
#include "harness/scenario.h"
#include "sim/trace.h"

namespace harness {

class ViewSink;

struct DiffEvent {
  std::uint64_t index = 0;  // in its run's sequence of compared events
  sim::Instant time;
  std::string node;
  std::string kind;
  std::string fields;  // "key=value key=value"
};

struct DiffSentence {
  sim::Instant time;
  std::string node;
  std::string text;
};

struct RunDiff {
  std::uint64_t events_a = 0;  // compared events of each run
  std::uint64_t events_b = 0;
  // The index of the first event that differs (or that one run has and the other not); nothing
  // when the runs are the same event for event.
  std::optional<std::uint64_t> divergence;
  std::optional<sim::Instant> divergence_time;  // the earlier of the two events' times
  std::vector<DiffEvent> before;   // the last events both runs share, up to context_events
  std::vector<DiffEvent> a_after;  // from the divergence on, up to context_events + 1
  std::vector<DiffEvent> b_after;
  std::vector<DiffSentence> told_before;  // the last sentences both told before it
  std::vector<DiffSentence> a_told_after;  // what each told from the divergence on
  std::vector<DiffSentence> b_told_after;
  RunResult a;
  RunResult b;
};

struct DiffOptions {
  sim::SimulationLimits limits;
  std::size_t context_events = 6;
  std::size_t context_sentences = 8;
  // Viewers to fill (either may be null): A's on its second run, B's on its run.
  ViewSink* view_a = nullptr;
  ViewSink* view_b = nullptr;
};

RunDiff diff_runs(const Scenario& a, const Scenario& b, const DiffOptions& options);

}  // namespace harness
