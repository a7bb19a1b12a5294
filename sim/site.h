// Named sites: the steps of a protocol where a crash, a pause or a delay reveals something.
//
// As FoundationDB's BUGGIFY sites, a site is a place in the model code, next to the Java step it
// mirrors (`Learner.syncWithLeader, after setCurrentEpoch`). Reaching one is an observation of the
// trace (Trace::site: neither hashed nor counted, so a run is the same whether anyone watches), which
// a fault trigger (harness/triggers.h) can name: "crash zk1 right after its 1st
// zab.current_epoch_written". The model says where the step ends:
//
//   co_await sim::reach(sim, id(), sites::current_epoch_written, {"epoch", epoch});
//
// in a coroutine holds it there when a trigger fires: the coroutine stops at the site, the fault runs
// as an urgent event (before anything else due now), and the coroutine goes on after it if its node
// is still up (a crash destroys it at the site: nothing after the step happened). In plain code,
//
//   sim::pass(sim, id(), sites::proposal_sent, {{"zxid", zxid}});
//
// cannot stop: the fault lands when the current event's handler returns, before any other event.
// docs/scenario-format.md (Triggers) says which sites hold and which do not.
#pragma once

#include <coroutine>
#include <initializer_list>
#include <span>
#include <string_view>

#include "sim/simulation.h"

namespace sim {

// Who can reach a site, for validating a trigger against a scenario's nodes.
enum class SiteRole : std::uint8_t { server, client, instance, es_node };

struct Site {
  std::string_view kind;  // the trace kind it is observed as: "zab.current_epoch_written"
  SiteRole role;          // the nodes that reach it
  bool holds;             // reached with co_await reach(): a trigger stops the step exactly there
  std::string_view java;  // the Java step it mirrors, with the release's file and line
  std::string_view what;  // one sentence: what has happened when it is reached, and what has not
  std::string_view fields = {};  // the fields it is observed with, space-separated ("zxid type")
};

class SiteAwaiter {
 public:
  SiteAwaiter(Simulation& sim, NodeId node, bool hold) : sim_(sim), node_(node), hold_(hold) {}
  SiteAwaiter(const SiteAwaiter&) = delete;
  ~SiteAwaiter() { sim_.cancel(token_); }
  bool await_ready() const noexcept { return !hold_; }
  void await_suspend(std::coroutine_handle<> handle) {
    // The trigger's fault was made urgent first, so it runs before this resume.
    token_ = sim_.schedule_urgent_resume(handle, node_);
  }
  void await_resume() noexcept { token_ = {}; }

 private:
  Simulation& sim_;
  NodeId node_;
  bool hold_;
  EventToken token_;
};

// A coroutine reached `site`: co_await the result, which holds the step there when a trigger asks.
// (Fields are separate parameters, not an initializer_list: GCC 12 cannot keep an initializer_list's
// array in a coroutine frame, "array used as initializer".)
[[nodiscard]] inline SiteAwaiter reach_fields(Simulation& sim, NodeId node, const Site& site, std::span<const TraceField> fields) {
  bool hold = sim.trace().has_site_readers() && sim.trace().site(node, site.kind, fields);
  return SiteAwaiter(sim, node, hold);
}
[[nodiscard]] inline SiteAwaiter reach(Simulation& sim, NodeId node, const Site& site) { return reach_fields(sim, node, site, {}); }
[[nodiscard]] inline SiteAwaiter reach(Simulation& sim, NodeId node, const Site& site, TraceField a) {
  return reach_fields(sim, node, site, std::span<const TraceField>(&a, 1));
}
[[nodiscard]] inline SiteAwaiter reach(Simulation& sim, NodeId node, const Site& site, TraceField a, TraceField b) {
  TraceField fields[] = {a, b};
  return reach_fields(sim, node, site, fields);
}
[[nodiscard]] inline SiteAwaiter reach(Simulation& sim, NodeId node, const Site& site, TraceField a, TraceField b, TraceField c) {
  TraceField fields[] = {a, b, c};
  return reach_fields(sim, node, site, fields);
}

// Plain code reached `site`: observed; a fault triggered here lands when the current event ends.
inline void pass(Simulation& sim, NodeId node, const Site& site, std::initializer_list<TraceField> fields = {}) {
  if (sim.trace().has_site_readers()) sim.trace().site(node, site.kind, std::span<const TraceField>(fields.begin(), fields.size()));
}

}  // namespace sim
