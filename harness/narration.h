// Narration: `electsim run FILE --narrate[=zk,latch,...]` prints a run as a readable timeline on
// standard error, one sentence per step that matters (the Narrator says what each event means),
// filtered by topic. Every property violation is printed with the events that led to it: the last
// few sentences, of any topic, about the nodes its message names.
//
// It is a trace sink like the property checkers, attached through RunOptions::sinks, and it reads
// only the trace, so two runs of a seed narrate the same story.
#pragma once

#include <bitset>
#include <deque>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/narrator.h"
#include "properties/Property.h"

namespace harness {

// Which topics to narrate.
class NarrationFilter {
 public:
  // Every topic but net (every message sent and received: many, and asked for by name).
  static NarrationFilter everything();
  // "zk,latch" (spaces allowed). An empty list or "all" is everything(); "all,net" adds messages.
  // Throws std::invalid_argument naming the unknown topic and the known ones.
  static NarrationFilter parse(std::string_view list);

  bool wants(NarrationTopic topic) const { return topics_.test(static_cast<std::size_t>(topic)); }
  bool wants(const NarratedEvent& event) const;
  bool wants_messages() const { return wants(NarrationTopic::net); }
  std::string describe() const;  // "zk, latch"

 private:
  std::bitset<narration_topic_count> topics_;
};

class NarrationSink final : public sim::TraceSink {
 public:
  static constexpr std::size_t context_kept_max = 400;  // sentences remembered for violations
  static constexpr std::size_t context_told_max = 8;    // of which at most this many are told

  NarrationSink(std::ostream& out, NarrationFilter filter) : out_(out), filter_(filter) {}

  void on_attach(const sim::Simulation& sim) override;
  void on_event(const sim::TraceEvent& event) override;
  // After the run: violations judged only at the end (liveness properties) never reach the trace,
  // so they are told here, with the events that led to them, as the others were during the run.
  void finish(const std::vector<properties::Violation>& violations);

  std::size_t lines_written() const { return lines_written_; }

 private:
  struct Line {
    sim::Instant time;
    std::string node;
    NarratedEvent event;
  };

  void write(const Line& line, std::string_view indent = "");
  void tell_violation(sim::Instant time, const std::string& property, const std::string& message);
  std::vector<const Line*> lead_up(const std::string& message) const;

  std::ostream& out_;
  NarrationFilter filter_;
  Narrator narrator_;
  std::size_t node_width_ = 4;
  std::deque<Line> recent_;                                   // the last context_kept_max sentences
  std::set<std::pair<sim::Instant, std::string>> told_violations_;  // (time, property)
  std::size_t lines_written_ = 0;
};

}  // namespace harness
