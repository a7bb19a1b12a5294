// Diagrams: `electsim run FILE --diagram OUT.html` draws a run as a Lamport space-time diagram in
// one self-contained HTML page (inline SVG, CSS and JavaScript, nothing fetched): a lane per node,
// an arrow per message from its send to its delivery (hover for what it said; lost ones end in a
// cross), ZooKeeper states and leader periods as coloured bands (LEADING, latch, selector and job
// leaders, the Elasticsearch master, the naive /master), faults shaded (down, paused, cut off),
// marks for state changes, and property violations as red lines. Drag across the plot, or type a
// window, to zoom.
//
// DiagramSink collects all of that from the trace (it needs the network's message trace:
// RunOptions::message_describer); diagram_page.h turns the collection into the page.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <tuple>
#include <vector>

#include "harness/message_summary.h"
#include "properties/Property.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

class DiagramSink final : public sim::TraceSink {
 public:
  // Beyond these the page would be too heavy to draw; the rest are counted and the page says so.
  static constexpr std::size_t messages_max = 30000;
  static constexpr std::size_t marks_max = 20000;

  void on_attach(const sim::Simulation& sim) override;
  void on_event(const sim::TraceEvent& event) override;

  // The page's data, with every band still open at `end` closed there. Violations judged after
  // the run (liveness) are not in the trace: pass the run's to have them all.
  nlohmann::ordered_json data(sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations) const;
  void write_html(std::ostream& out, sim::Instant end, const std::string& title, const std::vector<properties::Violation>& violations) const;

 private:
  struct Band {
    std::size_t lane;
    std::string kind;   // zk-LEADING, latch-leader, down, paused, cut, cut-some, exec ...
    std::string label;
    sim::Instant from;
    std::optional<sim::Instant> to;
  };
  struct Mark {
    std::size_t lane;
    sim::Instant time;
    std::string kind;  // state, fault, watch, session, job, es ...
    std::string label;
  };
  using Message = TracedMessage;
  using MessageKey = std::tuple<std::int64_t, std::int64_t, std::int64_t, std::int64_t>;  // connection, generation, direction, seq

  void open_band(std::size_t lane, std::string kind, std::string key, std::string label, sim::Instant at);
  void close_band(std::size_t lane, const std::string& key, sim::Instant at);
  void close_lane_bands(std::size_t lane, sim::Instant at, bool keep_beliefs);
  void mark(std::size_t lane, sim::Instant at, std::string kind, std::string label);
  void on_state_event(const sim::TraceEvent& event, std::size_t lane);
  void on_message_event(const sim::TraceEvent& event);
  void on_links(const sim::TraceEvent& event);
  std::optional<std::size_t> lane_of(std::string_view name) const;

  std::vector<std::string> lanes_;
  std::vector<Band> bands_;
  std::map<std::pair<std::size_t, std::string>, std::size_t> open_bands_;  // (lane, key) -> index in bands_
  std::vector<Mark> marks_;
  std::vector<Message> messages_;
  std::map<MessageKey, std::size_t> in_flight_;  // index in messages_
  std::vector<std::string> cut_;                 // per lane: whom it cannot reach, as shown
  std::vector<std::pair<sim::Instant, std::string>> violations_seen_;  // (time, "property: message")
  std::size_t messages_skipped_ = 0;
  std::size_t marks_skipped_ = 0;
};

}  // namespace harness
