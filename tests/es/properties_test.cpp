// The es-* properties: their definitions on hand-made traces; the two timing windows in which the
// faithful Zen1 model (like Elasticsearch 6.8) does break state agreement; and the RapidCheck
// property that, under random faults outside those windows and with minimum_master_nodes a quorum,
// es-single-master and es-state-agreement hold and es-eventual-master holds once everything healed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <ostream>

#include "es_test_support.h"
#include "tests/support/idle_node.h"

namespace {

using namespace std::chrono_literals;
using es::Priority;
using properties::Verdict;

// ---- the definitions, on hand-made traces ----

using Dummy = test_support::IdleNode;

struct Trace {
  sim::Simulation sim{1};
  std::vector<sim::NodeId> ids;
  Trace() {
    for (const char* name : {"es1", "es2", "es3"}) ids.push_back(sim.add_node<Dummy>(name).id());
  }
  void at(sim::Duration when, std::function<void()> action) {
    sim.schedule_callback(sim::epoch + when, sim::no_node, std::move(action));
  }
  void commit(std::size_t node, std::int64_t version) { sim.trace().emit(ids[node - 1], "es.commit", {{"version", version}, {"hash", std::uint64_t{1}}}); }
  void apply(std::size_t node, std::int64_t version, std::uint64_t hash, std::string_view master, bool local = false, bool recovered = true) {
    sim.trace().emit(ids[node - 1], "es.apply", {{"version", version}, {"hash", hash}, {"master", master}, {"local", local}, {"recovered", recovered}});
  }
  void stepDown(std::size_t node) { sim.trace().emit(ids[node - 1], "es.master", {{"master", false}, {"version", std::int64_t{0}}, {"what", "stepped down"}}); }
};

TEST(EsSingleMaster, AHandOverIsFineOverlappingCommitsAreNot) {
  Trace t;
  properties::EsSingleMaster property(t.sim);
  t.sim.trace().add_sink(&property);
  t.at(1s, [&] { t.commit(1, 5); });
  t.at(2s, [&] { t.commit(1, 6); });
  t.at(3s, [&] { t.stepDown(1); });
  t.at(4s, [&] { t.commit(2, 7); });  // es2 takes over after es1 stepped down
  t.at(5s, [&] { t.commit(2, 8); });
  t.sim.run_for(6s);
  EXPECT_EQ(property.verdict(), Verdict::held);
  // A stale es1 that believes it is master but commits nothing is fine too; one that commits is not.
  t.at(7s, [&] { t.commit(3, 9); });
  t.at(8s, [&] { t.commit(2, 9); });
  t.sim.run_for(3s);
  EXPECT_EQ(property.verdict(), Verdict::violated);
  ASSERT_EQ(property.violations().size(), 1U);
  EXPECT_NE(property.violations().front().message.find("es2 committed version 9 while es3"), std::string::npos);
  t.sim.trace().remove_sink(&property);
}

TEST(EsSingleMaster, ACrashEndsATenure) {
  Trace t;
  properties::EsSingleMaster property(t.sim);
  t.sim.trace().add_sink(&property);
  t.at(1s, [&] { t.commit(1, 5); });
  t.at(2s, [&] { t.sim.trace().emit(t.ids[0], "node.crash"); });
  t.at(3s, [&] { t.commit(2, 6); });
  t.sim.run_for(4s);
  EXPECT_EQ(property.verdict(), Verdict::held);
  t.sim.trace().remove_sink(&property);
}

TEST(EsStateAgreement, SameVersionMustMeanSameContentForPublishedRecoveredStates) {
  Trace t;
  properties::EsStateAgreement property(t.sim);
  t.sim.trace().add_sink(&property);
  t.at(1s, [&] { t.apply(1, 5, 100, "es1"); });
  t.at(2s, [&] { t.apply(2, 5, 100, "es1"); });
  t.at(3s, [&] { t.apply(3, 5, 555, "", true); });         // a rejoin's local no-master state: not judged
  t.at(4s, [&] { t.apply(3, 1, 777, "es1", false, false); });  // not recovered: not judged
  t.sim.run_for(5s);
  EXPECT_EQ(property.verdict(), Verdict::held);
  t.at(6s, [&] { t.apply(3, 5, 200, "es2"); });
  t.sim.run_for(2s);
  EXPECT_EQ(property.verdict(), Verdict::violated);
  t.sim.trace().remove_sink(&property);
}

TEST(EsEventualMaster, JudgesOnlyHealedRunsLongEnoughAndNeedsEveryNodeOnOneMaster) {
  Trace t;
  properties::EsEventualMaster property(t.sim, t.ids, 100s);
  t.sim.trace().add_sink(&property);
  t.at(10s, [&] {
    t.apply(1, 5, 1, "es1");
    t.apply(2, 5, 1, "es1");
  });
  t.at(20s, [&] { t.apply(3, 5, 1, "es1"); });
  t.sim.run_for(200s);
  properties::EsEventualMaster notHealed(t.sim, t.ids, 100s);
  notHealed.finish(properties::RunFacts{t.sim.now(), sim::epoch + 5s, false});
  EXPECT_EQ(notHealed.verdict(), Verdict::not_judged);
  properties::EsEventualMaster tooShort(t.sim, t.ids, 100s);
  tooShort.finish(properties::RunFacts{t.sim.now(), sim::epoch + 150s, true});
  EXPECT_EQ(tooShort.verdict(), Verdict::not_judged);
  EXPECT_EQ(property.agreedSince(), sim::epoch + 20s);
  property.finish(properties::RunFacts{t.sim.now(), sim::epoch + 5s, true});
  EXPECT_EQ(property.verdict(), Verdict::held);
  t.sim.trace().remove_sink(&property);

  properties::EsEventualMaster split(t.sim, t.ids, 100s);
  t.sim.trace().add_sink(&split);
  t.at(210s, [&] {
    t.apply(1, 9, 1, "es1");
    t.apply(2, 9, 2, "es2");
    t.apply(3, 9, 2, "es2");
  });
  t.sim.run_for(200s);
  split.finish(properties::RunFacts{t.sim.now(), sim::epoch + 205s, true});
  EXPECT_EQ(split.verdict(), Verdict::violated);
  t.sim.trace().remove_sink(&split);
}

// ---- the windows in which Zen1 itself breaks agreement (Zen2's terms close both) ----

// Runs `action` once, the first time `node` emits `kind`.
struct OnEvent final : sim::TraceSink {
  OnEvent(sim::NodeId node, std::string kind, std::function<void()> action) : node(node), kind(std::move(kind)), action(std::move(action)) {}
  sim::NodeId node;
  std::string kind;
  std::function<void()> action;
  bool fired = false;
  void on_event(const sim::TraceEvent& event) override {
    if (fired || event.node != node || event.kind != kind) return;
    fired = true;
    action();
  }
};

TEST(Zen1Windows, APartitionBetweenTheCommitDecisionAndTheCommitMessagesLosesAppliedStateAgreement) {
  // PR #20384's caveat: the master commits (enough acks came back) and applies; the partition cuts
  // the commit messages; the majority never learns of the commit, elects a master that did not
  // apply it, and publishes another state under the same version.
  estest::Cluster c(estest::config(3, 2, 1.0), 1);
  c.cluster.startAll();
  c.sim.run_for(20s);
  OnEvent trigger(c.id(1), "es.commit", [&] { c.sim.network().isolate(c.id(1)); });
  c.sim.trace().add_sink(&trigger);
  c.sim.run_for(150s);
  c.sim.trace().remove_sink(&trigger);
  c.sim.network().heal_all();
  c.sim.run_for(60s);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::violated);
  EXPECT_EQ(c.singleMaster.verdict(), Verdict::held);  // no overlap: the old master could commit nothing more
  EXPECT_EQ(c.stableMaster(), 2U);
}

TEST(Zen1Windows, AMasterFrozenLongerThanFaultDetectionCompletesAPublicationTheOthersAbandoned) {
  // A GC pause that outlasts fault detection, starting just after the master decided to commit and
  // before its commit messages left: the others drop the uncommitted state, elect a new master and
  // apply its states; the frozen master wakes up, finishes its publication and applies a state the
  // rest of the cluster never committed, under a version the new master has used too.
  estest::Cluster c(estest::config(3, 2, 1.0), 1);
  c.cluster.startAll();
  c.sim.run_for(20s);
  OnEvent trigger(c.id(1), "es.commit", [&] { c.node(1).pause(); });
  c.sim.trace().add_sink(&trigger);
  c.sim.run_for(10s);
  c.sim.trace().remove_sink(&trigger);
  ASSERT_TRUE(c.node(1).paused());
  c.sim.run_for(120s);  // more than fd_ping_interval + 3 x fd_ping_timeout
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U);
  c.node(1).resume();
  c.sim.run_for(60s);
  EXPECT_EQ(c.stateAgreement.verdict(), Verdict::violated) << c.recorder.dump();
}

// ---- random faults, minimum_master_nodes a quorum ----

enum class FaultKind : int { crash, power_off, pause, isolate, partition, bridge, drop, count };

struct FaultSpec {
  FaultKind kind;
  sim::Duration delay;   // after the previous fault healed
  sim::Duration length;  // until this one heals
  std::vector<std::size_t> nodes;  // a permutation of 1..N: the first ones are the fault's victims
};

std::ostream& operator<<(std::ostream& out, const FaultSpec& fault) {
  static const char* names[] = {"crash", "power_off", "pause", "isolate", "partition", "bridge", "drop"};
  out << names[static_cast<int>(fault.kind)] << " after " << sim::format_duration(fault.delay) << " for "
      << sim::format_duration(fault.length) << " nodes";
  for (std::size_t node : fault.nodes) out << " es" << node;
  return out;
}

struct Outcome {
  Verdict single;
  Verdict agreement;
  Verdict eventual;
  Verdict order;
  std::string violations;
};

// Applies `apply` once no node has a publication in flight (Zen1's commit window, see docs), then
// `heal` after `length`.
void scheduleFault(estest::Cluster& c, sim::Instant at, sim::Duration length, std::function<void()> apply, std::function<void()> heal,
                   sim::Instant& healedAt) {
  struct Step {
    static void attempt(estest::Cluster& c, sim::Duration length, std::function<void()> apply, std::function<void()> heal, int tries) {
      bool inFlight = false;
      for (std::size_t n = 1; n <= c.cluster.size(); n++) {
        es::EsNode& node = c.node(n);
        if (node.up() && node.discovery().publishClusterState().publicationsInFlight() > 0) inFlight = true;
      }
      if (inFlight && tries < 60'000) {
        c.sim.schedule_callback(c.sim.now() + 5ms, sim::no_node, [&c, length, apply, heal, tries] { attempt(c, length, apply, heal, tries + 1); });
        return;
      }
      apply();
      c.sim.schedule_callback(c.sim.now() + length, sim::no_node, heal);
    }
  };
  c.sim.schedule_callback(at, sim::no_node, [&c, length, apply, heal] { Step::attempt(c, length, apply, heal, 0); });
  healedAt = at + length;  // at the earliest; the run waits for the real heal below
}

Outcome runWithFaults(std::uint64_t seed, std::size_t nodes, double rate, const std::vector<Priority>& priorities, bool sharedExecutor,
                      const std::vector<FaultSpec>& faults) {
  es::EsConfig config = estest::config(nodes, static_cast<int>(nodes / 2 + 1), rate);
  config.cluster_tasks.priorities = priorities;
  config.cluster_tasks.sharedExecutor = sharedExecutor;
  estest::Cluster c(config, seed);
  c.cluster.startAll();
  c.sim.run_for(20s);
  sim::Network& network = c.sim.network();
  for (const FaultSpec& fault : faults) {
    std::vector<sim::NodeId> ids;
    for (std::size_t number : fault.nodes) ids.push_back(c.id(number));
    es::EsNode* victim = &c.node(fault.nodes.front());
    std::function<void()> apply;
    std::function<void()> heal = [&network] { network.heal_all(); };
    switch (fault.kind) {
      case FaultKind::crash:
        apply = [victim] { victim->crash(); };
        heal = [victim] { victim->start(); };
        break;
      case FaultKind::power_off:
        apply = [victim] { victim->power_off(); };
        heal = [victim] { victim->start(); };
        break;
      case FaultKind::pause:
        apply = [victim] { victim->pause(); };
        heal = [victim] { victim->resume(); };
        break;
      case FaultKind::isolate: apply = [&network, ids] { network.isolate(ids.front()); }; break;
      case FaultKind::partition: {
        // A random split: the first k nodes against the rest.
        std::size_t k = 1 + static_cast<std::size_t>(fault.length.count() % static_cast<std::int64_t>(ids.size() - 1));
        std::vector<sim::NodeId> a(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(k));
        std::vector<sim::NodeId> b(ids.begin() + static_cast<std::ptrdiff_t>(k), ids.end());
        apply = [&network, a, b] { network.partition({a, b}); };
        break;
      }
      case FaultKind::bridge: apply = [&network, ids] { network.bridge(ids[0], {ids[1]}, {ids[2]}); }; break;
      case FaultKind::drop: apply = [&network, ids] { network.drop(ids[0], ids[1]); }; break;
      case FaultKind::count: break;
    }
    sim::Instant healedAt;
    scheduleFault(c, c.sim.now() + fault.delay, fault.length, apply, heal, healedAt);
    // Faults do not overlap: run until this one has healed (its start may have waited).
    c.sim.run_until(healedAt);
    bool healed = false;
    while (!healed) {
      healed = true;
      for (std::size_t n = 1; n <= c.cluster.size(); n++) healed = healed && c.node(n).up() && !c.node(n).paused();
      healed = healed && network.reachability().strongly_connected_groups().size() == 1;
      if (!healed) c.sim.run_for(1s);
    }
  }
  sim::Instant lastFault = c.sim.now();
  sim::Instant end = lastFault + config.stabilisationTime() + 10s;
  c.sim.run_until(end);
  c.eventualMaster.finish(properties::RunFacts{end, lastFault, true});
  Outcome outcome{c.singleMaster.verdict(), c.stateAgreement.verdict(), c.eventualMaster.verdict(), c.taskOrder.verdict(), {}};
  for (const auto* property :
       std::initializer_list<const properties::Property*>{&c.singleMaster, &c.stateAgreement, &c.eventualMaster, &c.taskOrder}) {
    for (const properties::Violation& violation : property->violations()) outcome.violations += violation.property + ": " + violation.message + "\n";
  }
  return outcome;
}

RC_GTEST_PROP(EsZen1Properties, WithAQuorumOneMasterCommitsAtATimeStatesAgreeAndAMasterReturnsAfterTheHeal, ()) {
  const auto seed = *rc::gen::inRange<std::uint64_t>(1, 1'000'000'000);
  const std::size_t nodes = *rc::gen::element<std::size_t>(3, 5);
  const double rate = *rc::gen::element(0.5, 1.0, 2.0);
  std::vector<Priority> priorities = *rc::gen::nonEmpty(rc::gen::container<std::vector<Priority>>(
      rc::gen::element(Priority::IMMEDIATE, Priority::URGENT, Priority::HIGH, Priority::NORMAL, Priority::LOW, Priority::LANGUID)));
  const bool sharedExecutor = *rc::gen::arbitrary<bool>();
  const int count = *rc::gen::inRange(1, 5);
  std::vector<FaultSpec> faults;
  for (int i = 0; i < count; i++) {
    FaultSpec fault;
    fault.kind = static_cast<FaultKind>(*rc::gen::inRange(0, static_cast<int>(FaultKind::count)));
    fault.delay = std::chrono::milliseconds(*rc::gen::inRange(1'000, 60'000));
    // A pause stays shorter than fault detection (fd_ping_interval + 3 x fd_ping_timeout = 91 s):
    // longer ones open Zen1's frozen-master window (see Zen1Windows above).
    std::int64_t lengthMax = fault.kind == FaultKind::pause ? 60'000 : 150'000;
    fault.length = std::chrono::milliseconds(*rc::gen::inRange<std::int64_t>(1'000, lengthMax));
    for (std::size_t n = 1; n <= nodes; n++) fault.nodes.push_back(n);
    for (std::size_t k = nodes; k > 1; k--) std::swap(fault.nodes[k - 1], fault.nodes[*rc::gen::inRange<std::size_t>(0, k)]);
    faults.push_back(fault);
  }
  Outcome outcome = runWithFaults(seed, nodes, rate, priorities, sharedExecutor, faults);
  RC_LOG() << "seed " << seed << ", " << nodes << " nodes, " << rate << " tasks/s" << (sharedExecutor ? ", shared executor" : "") << "\n";
  for (const FaultSpec& fault : faults) RC_LOG() << "  " << fault << "\n";
  RC_LOG() << outcome.violations;
  RC_ASSERT(outcome.single == Verdict::held);
  RC_ASSERT(outcome.agreement == Verdict::held);
  RC_ASSERT(outcome.eventual == Verdict::held);
  RC_ASSERT(outcome.order == Verdict::held);
}

}  // namespace
