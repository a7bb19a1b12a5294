// The narrator: turns trace events into sentences a student can follow ("zk1 adopts zk3's vote:
// same peerEpoch and zxid, higher sid"), remembering what it needs from earlier events to explain
// later ones: each server's previous vote, when its quorum formed, which client owns a session,
// who holds which latch node. It reads only the trace (and node names), so the story is as
// deterministic as the run. Choosing which sentences to print is narration.h's job.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/trace_text.h"
#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

// What a sentence is about: the --narrate topics.
enum class NarrationTopic : std::uint8_t { zk, latch, job, es, naive, session, watch, fault, property, net };
inline constexpr std::size_t narration_topic_count = 10;
std::string_view narration_topic_name(NarrationTopic topic);  // "zk", "latch", ...

// How much a sentence matters to the story, for folding and for causal chains:
//  - detail: may be folded with its repeats (a vote heard, a message, a watch registered);
//  - step:   may be folded, and is kept for causal chains (a quorum formed, a latch node created);
//  - change: never folded: a role change, a disconnect, an election, a master decision, a belief;
//  - fault:  never folded: a fault the scenario injected, a process stopping or starting.
enum class NarrationRank : std::uint8_t { detail, step, change, fault };

struct NarratedEvent {
  std::uint16_t topics = 0;  // a bit per NarrationTopic: a latch node's watch is both latch and watch
  std::string text;
  NarrationRank rank = NarrationRank::detail;

  bool about(NarrationTopic topic) const { return (topics & (1U << static_cast<unsigned>(topic))) != 0; }
};

class Narrator {
 public:
  void attach(const sim::Simulation& sim);
  // The sentence for this event, or nothing when it adds nothing to the story (a server's own vote
  // coming back through the loopback, the second server applying the same committed txn). The
  // observations of kind why.* (the model saying why it is about to do something) are remembered
  // and told in the sentence they explain.
  std::optional<NarratedEvent> narrate(const sim::TraceEvent& event);
  std::string node_name(sim::NodeId node) const;
  // Every node name, for finding the nodes a violation message talks about.
  const std::vector<std::string>& node_names() const { return names_; }

 private:
  struct Vote {
    std::int64_t leader = -1;
    std::int64_t zxid = -1;
    std::int64_t peer_epoch = -1;
  };

  std::optional<NarratedEvent> narrate_fault(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_election(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_zab(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_session(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_znode(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_watch(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_latch(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_job(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_es(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_naive(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_net(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_why(const sim::TraceEvent& event, std::string_view kind);
  std::optional<NarratedEvent> narrate_kind(const sim::TraceEvent& event, std::string_view kind);
  static NarrationRank rank_of(std::string_view kind, const NarratedEvent& told);
  std::string looking_cause(sim::NodeId node, sim::Instant time);
  std::string disconnect_cause(sim::NodeId server, sim::Instant time);

  // A committed txn is applied, and traced, by every server; tell it once, from the first.
  bool first_telling(const sim::TraceEvent& event) { return first_telling_(event); }
  std::string session_text(std::int64_t session) const;  // "i1's session 0x3000000000000000"
  std::string latch_child_text(const std::string& path) const;  // "latch-0000000001 (i2's)"
  const std::string* latch_parent_of(std::string_view path) const;

  const sim::Simulation* sim_ = nullptr;
  std::vector<std::string> names_;
  std::size_t servers_ = 0;  // nodes named zkN: the ensemble, for "3 of 5"

  std::map<sim::NodeId, Vote> votes_;                    // each server's current FLE vote
  std::map<sim::NodeId, sim::Instant> quorum_since_;     // servers waiting out finalizeWait
  std::map<std::int64_t, std::string> session_owner_;    // session -> client node name
  std::map<std::int64_t, std::int64_t> session_timeout_ms_;
  std::map<sim::NodeId, std::string> curator_state_;     // last Curator connection state per client
  std::map<std::string, std::string> ephemeral_owner_;   // path -> client node name
  std::set<std::string> latch_parents_;
  // addWatch registrations: (session, path) -> recursive; their events do not use them up.
  std::map<std::pair<std::int64_t, std::string>, bool> persistent_watches_;
  std::map<std::string, std::set<std::string>> latch_children_;  // parent -> child names
  FirstTelling first_telling_;                           // harness/trace_text.h
  struct Fault {
    sim::Instant time;
    sim::NodeId node;
  };
  std::optional<Fault> last_fault_;                      // so node.crash after fault.crash is not told twice
  std::map<std::string, std::string> message_text_;       // net.* pairing: "connection/generation/direction/seq" -> text

  // The why of role changes and disconnects: what each node was, since when, and what the model
  // said (why.* observations) or the trace showed just before it changed.
  struct ServerState {
    std::string state;               // "LOOKING", "FOLLOWING", "LEADING"; empty before the first
    sim::Instant since{};
    std::int64_t leader = -1;        // whom it follows
    bool serving = false;            // it served clients (UPTODATE, or a quorum acknowledged NEWLEADER)
    std::string why;                 // the reason the model gave for leaving its role, if any
    std::int64_t round = -1;         // its FLE round (logicalclock), from its votes
    bool started = false;            // a node.start came since its last LOOKING
    bool down = false;               // crashed or powered off
    sim::Instant down_since{};
    std::string looking_because;     // what the LOOKING sentence said, for its clients' disconnects
    std::size_t dropped_in_wait = 0; // worse notifications dropped during finalizeWait
    std::int64_t finalize_wait = 200'000'000;  // ns, as the model said
    sim::Instant last_dropped{};
  };
  std::map<sim::NodeId, ServerState> zk_;
  std::map<sim::NodeId, std::string> client_why_;        // why.client_disconnect / zk.client.timeout, until DISCONNECTED
  std::map<sim::NodeId, std::string> last_disconnect_;   // the client's last disconnect, for Curator's SUSPENDED
  std::map<std::int64_t, std::pair<sim::Instant, std::string>> session_ended_;  // session -> when, and how (expired / closed)
  std::map<sim::NodeId, std::int64_t> es_minimum_master_nodes_;
  std::map<sim::NodeId, bool> es_legacy_;
  std::map<sim::NodeId, std::string> job_why_;            // why.job_belief, until job.not_leader
  std::map<sim::NodeId, std::string> job_election_;       // the kind of the last election it ran
};

// Helpers shared by the narrator's files.
std::string hex(std::int64_t value);                            // "0x100000000"
std::string time_text(sim::Instant time);                       // "2.212243s": a time in a sentence, as the time column writes it
std::string short_node_name(std::string_view path);             // ".../_c_<uuid>-latch-0000000001" -> "latch-0000000001"
std::string generic_fields(const sim::TraceEvent& event);       // "job=a, item=3"

}  // namespace harness
