// Narration: `electsim run FILE --narrate[=LIST]` prints a run as a readable timeline on standard
// error, one sentence per step that matters (the Narrator says what each event means and why),
// filtered by topic, time window and node.
//
// It scales to long runs: a sentence that repeats with only its numbers changed (same node, same
// kind of event, same other nodes) is told the first time, and its repeats are folded into one line
// with their count and time span, printed when the repeats stop (for folding_gap), before a role
// change of that node, and always before a violation. Role changes, faults, elections and the
// other "changes" (NarratedEvent::rank) are never folded.
//
// Every property violation is printed with what led to it: its causal chain, the events that
// happened-before the violating state (through the same node, through messages from send to
// receipt, and through the faults that cut a node), restricted to the nodes that matter (those the
// violation names, the servers their sessions used) and bounded, with a note of what was left out.
//
// It is a trace sink like the property checkers, attached through RunOptions::sinks, and it reads
// only the trace (events and observations), so two runs of a seed narrate the same story.
#pragma once

#include <bitset>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/narrator.h"
#include "properties/Property.h"

namespace harness {

// Which sentences to narrate: topics, a time window, nodes.
class NarrationFilter {
 public:
  // Every topic but net (every message sent and received: many, and asked for by name); no window,
  // every node.
  static NarrationFilter everything();
  // A comma-separated list (spaces allowed) of
  //   topics:      zk, latch, job, es, naive, session, watch, fault, property, net, or all
  //   from=TIME    only sentences at or after TIME (2s, 1500ms, 2.5s)
  //   to=TIME      only sentences at or before TIME
  //   nodes=A+B    only sentences of these nodes or naming them (zk1+i2)
  // No topic in the list means every topic but net. Violations (topic property) are told whatever
  // the window and nodes. Throws std::invalid_argument naming what is wrong and what is expected.
  static NarrationFilter parse(std::string_view list);

  bool wants(NarrationTopic topic) const { return topics_.test(static_cast<std::size_t>(topic)); }
  bool wants(const NarratedEvent& event) const;
  // Whether a sentence of this node at this time passes the window and the node list (names are
  // the run's node names; `text` is the sentence, for "naming them").
  bool wants_time(sim::Instant time) const;
  bool wants_node(std::string_view node, std::string_view text) const;
  // The message sentences (topic net) were asked for.
  bool wants_messages() const { return wants(NarrationTopic::net); }
  // The run must trace messages (RunOptions::message_describer): for the net topic, and for the
  // causal chain of violations (topic property), which follows messages from send to receipt.
  bool needs_messages() const { return wants(NarrationTopic::net) || wants(NarrationTopic::property); }
  std::string describe() const;  // "zk, latch; from 2s; to 5s; nodes zk1+i2"
  const std::vector<std::string>& nodes() const { return nodes_; }

  // The grammar, for usage messages.
  static std::string_view grammar();

 private:
  std::bitset<narration_topic_count> topics_;
  std::optional<sim::Duration> from_;
  std::optional<sim::Duration> to_;
  std::vector<std::string> nodes_;
};

class NarrationSink final : public sim::TraceSink {
 public:
  static constexpr std::size_t context_told_max = 14;   // events told in a violation's causal chain
  // Repeats of a sentence closer together than this are folded into one line.
  static constexpr sim::Duration folding_gap = std::chrono::seconds(2);

  NarrationSink(std::ostream& out, NarrationFilter filter) : out_(out), filter_(std::move(filter)) {}

  void on_attach(const sim::Simulation& sim) override;
  void on_event(const sim::TraceEvent& event) override;
  // After the run: violations judged only at the end (liveness properties) never reach the trace,
  // so they are told here, with the events that led to them, as the others were during the run;
  // folded repeats still open are told first.
  void finish(const std::vector<properties::Violation>& violations);

  std::size_t lines_written() const { return lines_written_; }
  std::size_t lines_folded() const { return lines_folded_; }  // sentences told only as a count

 private:
  struct Line {
    sim::Instant time;
    sim::NodeId node_id = sim::no_node;
    std::string node;
    NarratedEvent event;
  };
  // A repeated sentence being folded: told once, then counted.
  struct Fold {
    sim::Instant first;       // the first repeat folded (after the one told)
    sim::Instant last;
    std::size_t count = 0;    // repeats folded
    Line last_line;           // the last repeat, told as the example
  };
  // A sentence kept for causal chains (rank step and above): its node's causal frontier when told.
  struct Kept {
    Line line;
    std::vector<std::int32_t> before;  // per origin (node, then the environment): latest kept id it depends on, -1 none
    std::vector<sim::NodeId> affects;  // a fault: the nodes it cut or stopped
  };
  using Frontier = std::vector<std::int32_t>;
  struct MessageKey {
    std::int64_t connection, generation, direction, seq;
    bool operator==(const MessageKey&) const = default;
  };
  struct MessageKeyHash {
    std::size_t operator()(const MessageKey& key) const {
      std::uint64_t h = static_cast<std::uint64_t>(key.connection) * 0x9e3779b97f4a7c15ULL;
      h ^= static_cast<std::uint64_t>(key.generation) + 0x517cc1b727220a95ULL + (h << 6) + (h >> 2);
      h ^= static_cast<std::uint64_t>(key.direction) + (h << 6) + (h >> 2);
      h ^= static_cast<std::uint64_t>(key.seq) * 0xbf58476d1ce4e5b9ULL + (h << 6) + (h >> 2);
      return static_cast<std::size_t>(h);
    }
  };

  void tell(Line line);                       // folding, then filters, then write
  void emit_line(const Line& line);           // filters, then write
  void write(const Line& line, std::string_view indent = "", std::string_view prefix = "");
  void flush_fold(std::map<std::string, Fold>::iterator fold, sim::Instant now);
  void flush_folds(sim::Instant now, bool all, sim::NodeId node = sim::no_node);
  std::string shape_of(const Line& line) const;
  void tell_violation(sim::Instant time, const std::string& property, const std::string& message);
  std::vector<std::int32_t> causal_chain(const std::string& message, std::size_t& left_out, std::vector<std::string>& relevant_names) const;
  void track_causality(const sim::TraceEvent& event);
  void keep(const Line& line);
  Frontier& frontier(sim::NodeId node);
  void merge(Frontier& into, const Frontier& from);

  std::ostream& out_;
  NarrationFilter filter_;
  Narrator narrator_;
  std::size_t node_width_ = 4;
  std::set<std::pair<sim::Instant, std::string>> told_violations_;  // (time, property)
  std::size_t lines_written_ = 0;
  std::size_t lines_folded_ = 0;
  bool warned_nodes_ = false;

  // Folding: by shape (node, sentence with its numbers masked); the last sweep for ended repeats.
  std::map<std::string, Fold> folds_;
  sim::Instant last_sweep_{};
  sim::Instant last_told_{};  // the latest sentence's time: where a fold's line goes in the time column

  // Causality (only when violations are told): kept sentences, each node's frontier (the latest
  // kept sentence of each origin it has heard of), the frontier each message in flight carries.
  bool causal_ = false;
  std::size_t origins_ = 0;  // node count + 1 (the environment: faults of no node)
  std::vector<Kept> kept_;
  std::vector<Frontier> frontiers_;
  std::vector<std::shared_ptr<const Frontier>> snapshots_;  // per node, shared by its messages until it changes
  std::unordered_map<MessageKey, std::shared_ptr<const Frontier>, MessageKeyHash> in_flight_;  // looked up, never iterated
  std::optional<std::int32_t> pending_links_fault_;
  std::vector<sim::NodeId> last_cut_;                 // the nodes the last net.links cut  // a partition's line, waiting for the net.links that says whom it cut
  std::map<sim::NodeId, std::set<sim::NodeId>> servers_of_;  // client -> the servers its sessions used
};

}  // namespace harness
