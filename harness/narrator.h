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

#include "sim/simulation.h"
#include "sim/trace.h"

namespace harness {

// What a sentence is about: the --narrate topics.
enum class NarrationTopic : std::uint8_t { zk, latch, job, es, naive, session, watch, fault, property, net };
inline constexpr std::size_t narration_topic_count = 10;
std::string_view narration_topic_name(NarrationTopic topic);  // "zk", "latch", ...

struct NarratedEvent {
  std::uint16_t topics = 0;  // a bit per NarrationTopic: a latch node's watch is both latch and watch
  std::string text;

  bool about(NarrationTopic topic) const { return (topics & (1U << static_cast<unsigned>(topic))) != 0; }
};

class Narrator {
 public:
  void attach(const sim::Simulation& sim);
  // The sentence for this event, or nothing when it adds nothing to the story (a server's own vote
  // coming back through the loopback, the second server applying the same committed txn).
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

  // A committed txn is applied, and traced, by every server; tell it once, from the first.
  bool first_telling(const sim::TraceEvent& event);
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
  std::int64_t told_zxid_ = -1;                          // first_telling's memory
  sim::NodeId told_node_ = sim::no_node;
  struct Fault {
    sim::Instant time;
    sim::NodeId node;
  };
  std::optional<Fault> last_fault_;                      // so node.crash after fault.crash is not told twice
  std::map<std::string, std::string> message_text_;       // net.* pairing: "connection/generation/direction/seq" -> text
};

// Helpers shared by the narrator's files.
std::string hex(std::int64_t value);                            // "0x100000000"
std::string short_node_name(std::string_view path);             // ".../_c_<uuid>-latch-0000000001" -> "latch-0000000001"
std::string generic_fields(const sim::TraceEvent& event);       // "job=a, item=3"

}  // namespace harness
