// The pieces below publication: ClusterApplierService (appliers by priority, then visibility, then
// listeners; failures isolated), PendingClusterStatesQueue (commit, highest committed first, the
// limit of 25), ClusterStateDiff, and ElectMasterService's ordering.
#include <gtest/gtest.h>

#include <memory>
#include <stdexcept>

#include "model/es/ClusterApplierService.h"
#include "model/es/ElectMasterService.h"
#include "model/es/PendingClusterStatesQueue.h"
#include "sim/network.h"
#include "sim/trace.h"

namespace {

using namespace std::chrono_literals;
using es::ClusterState;
using es::ClusterStatePtr;

ClusterStatePtr makeState(std::int64_t version, std::uint64_t uuid, sim::NodeId master, std::string key = "k") {
  auto state = std::make_shared<ClusterState>();
  state->version = version;
  state->stateUUID = uuid;
  state->masterNodeId = master;
  state->nodes = {0, 1, 2};
  state->stateNotRecovered = false;
  state->noMasterBlock = master == sim::no_node;
  state->origin = ClusterState::Origin::master_service;
  state->metadata[key] = std::to_string(version);
  return state;
}

class ApplierNode final : public sim::Node {
 public:
  explicit ApplierNode(sim::Simulation& sim) : Node(sim, "es1") {}
  std::unique_ptr<es::ClusterApplierService> applier;

 protected:
  void on_start() override {
    applier = std::make_unique<es::ClusterApplierService>(*this);
    applier->setInitialState(makeState(0, 1, sim::no_node));
    applier->start();
  }
  void on_stop() override { applier.reset(); }
};

struct Failures final : sim::TraceSink {
  std::vector<std::string> names;
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind == "es.applier_failure") names.emplace_back(event.text("name"));
  }
};

TEST(ClusterApplierService, CallsAppliersByPriorityBeforeTheStateIsVisibleThenListeners) {
  sim::Simulation sim(3);
  auto& node = sim.add_node<ApplierNode>();
  node.start();
  sim.run_for(1ms);
  es::ClusterApplierService& applier = *node.applier;
  std::vector<std::string> calls;
  ClusterStatePtr next = makeState(1, 2, 0);
  auto visible = [&] { return applier.state() == next ? "visible" : "hidden"; };
  applier.addLowPriorityApplier("low", [&](const es::ClusterChangedEvent&) { calls.push_back(std::string("low:") + visible()); });
  applier.addStateApplier("normal", [&](const es::ClusterChangedEvent&) { calls.push_back(std::string("normal:") + visible()); });
  applier.addHighPriorityApplier("high", [&](const es::ClusterChangedEvent&) { calls.push_back(std::string("high:") + visible()); });
  applier.addListener("listener", [&](const es::ClusterChangedEvent& event) {
    calls.push_back(std::string("listener:") + visible());
    EXPECT_EQ(event.previousState->version, 0);
    EXPECT_EQ(event.state, next);
  });
  bool succeeded = false;
  applier.onNewClusterState("test", [&] { return next; }, {[&](const std::string&) { succeeded = true; }, nullptr});
  sim.run_for(1ms);
  EXPECT_TRUE(succeeded);
  EXPECT_EQ(calls, (std::vector<std::string>{"high:hidden", "normal:hidden", "low:hidden", "listener:visible"}));
}

TEST(ClusterApplierService, AFailingApplierOrListenerIsLoggedAndTheOthersStillRun) {
  sim::Simulation sim(3);
  Failures failures;
  sim.trace().add_sink(&failures);
  auto& node = sim.add_node<ApplierNode>();
  node.start();
  sim.run_for(1ms);
  es::ClusterApplierService& applier = *node.applier;
  std::vector<std::string> calls;
  applier.addStateApplier("broken", [&](const es::ClusterChangedEvent&) { throw std::runtime_error("boom"); });
  applier.addStateApplier("fine", [&](const es::ClusterChangedEvent&) { calls.push_back("fine"); });
  applier.addListener("broken-listener", [&](const es::ClusterChangedEvent&) { throw std::runtime_error("bang"); });
  applier.addListener("fine-listener", [&](const es::ClusterChangedEvent&) { calls.push_back("fine-listener"); });
  ClusterStatePtr next = makeState(1, 2, 0);
  applier.onNewClusterState("test", [&] { return next; }, {});
  sim.run_for(1ms);
  EXPECT_EQ(calls, (std::vector<std::string>{"fine", "fine-listener"}));
  EXPECT_EQ(applier.state(), next);
  EXPECT_EQ(failures.names, (std::vector<std::string>{"broken", "broken-listener"}));
  sim.trace().remove_sink(&failures);
}

TEST(ClusterApplierService, TheSameStateTwiceIsAppliedOnce) {
  sim::Simulation sim(3);
  auto& node = sim.add_node<ApplierNode>();
  node.start();
  sim.run_for(1ms);
  int applied = 0;
  node.applier->addStateApplier("count", [&](const es::ClusterChangedEvent&) { applied++; });
  ClusterStatePtr next = makeState(1, 2, 0);
  int successes = 0;
  for (int i = 0; i < 2; i++) node.applier->onNewClusterState("test", [&] { return next; }, {[&](const std::string&) { successes++; }, nullptr});
  sim.run_for(1ms);
  EXPECT_EQ(applied, 1);
  EXPECT_EQ(successes, 2);
}

TEST(PendingClusterStatesQueue, KeepsAtMostTwentyFiveStatesDroppingTheOldestAndFailingItIfCommitted) {
  es::PendingClusterStatesQueue queue(25);
  int failed = 0;
  queue.addPending(makeState(1, 101, 0));
  queue.markAsCommitted(101, {[] {}, [&](const es::EsException&) { failed++; }});
  for (std::int64_t version = 2; version <= 30; version++) queue.addPending(makeState(version, 100 + static_cast<std::uint64_t>(version), 0));
  EXPECT_EQ(queue.size(), 25U);
  EXPECT_EQ(failed, 1);  // the committed state 1 was dropped: its listener failed
  EXPECT_EQ(queue.pendingClusterStates().front()->version, 6);
  EXPECT_EQ(queue.pendingClusterStates().back()->version, 30);
  EXPECT_EQ(queue.markAsCommitted(102, {}), nullptr);  // dropped too: an unknown commit
}

TEST(PendingClusterStatesQueue, ProcessesOnlyCommittedStatesTheHighestFromOneMasterFirst) {
  es::PendingClusterStatesQueue queue(25);
  for (std::int64_t version = 1; version <= 4; version++) queue.addPending(makeState(version, 100 + static_cast<std::uint64_t>(version), 0));
  EXPECT_EQ(queue.getNextClusterStateToProcess(), nullptr);  // nothing committed
  std::vector<std::string> outcomes;
  auto listener = [&](std::string name) {
    return es::PendingClusterStatesQueue::StateProcessedListener{[&outcomes, name] { outcomes.push_back(name + ":processed"); },
                                                                  [&outcomes, name](const es::EsException&) { outcomes.push_back(name + ":failed"); }};
  };
  queue.markAsCommitted(101, listener("v1"));
  queue.markAsCommitted(103, listener("v3"));
  ClusterStatePtr next = queue.getNextClusterStateToProcess();
  ASSERT_NE(next, nullptr);
  EXPECT_EQ(next->version, 3);  // the highest committed, skipping v1
  EXPECT_THROW(queue.markAsCommitted(103, listener("again")), es::EsException);
  queue.markAsProcessed(*next);
  EXPECT_EQ(outcomes, (std::vector<std::string>{"v1:processed", "v3:processed"}));
  ASSERT_EQ(queue.size(), 1U);  // v4, not committed yet, stays
  EXPECT_EQ(queue.pendingClusterStates().front()->version, 4);
  // A state from another master processed: the old master's states go.
  queue.addPending(makeState(5, 205, 1));
  queue.markAsCommitted(205, listener("other"));
  queue.markAsProcessed(*queue.getNextClusterStateToProcess());
  EXPECT_EQ(queue.size(), 0U);
}

TEST(PendingClusterStatesQueue, FailAllStatesAndClearFailsTheCommittedOnes) {
  es::PendingClusterStatesQueue queue(25);
  int failed = 0;
  queue.addPending(makeState(1, 101, 0));
  queue.addPending(makeState(2, 102, 0));
  queue.markAsCommitted(102, {[] {}, [&](const es::EsException&) { failed++; }});
  queue.failAllStatesAndClear(es::EsException(es::ErrorKind::elasticsearch, "master left"));
  EXPECT_EQ(failed, 1);
  EXPECT_EQ(queue.size(), 0U);
}

TEST(ClusterStateDiff, AppliesOnlyToTheStateItWasComputedFrom) {
  ClusterStatePtr base = makeState(4, 104, 0, "a");
  auto next = es::builder(*base);
  next->version = 5;
  next->stateUUID = 105;
  next->metadata.erase("a");
  next->metadata["b"] = "x";
  next->nodes = {0, 2};
  es::ClusterStateDiff diff = es::ClusterStateDiff::between(*base, *next);
  ClusterStatePtr applied = diff.apply(*base);
  EXPECT_EQ(applied->version, 5);
  EXPECT_EQ(applied->stateUUID, 105U);
  EXPECT_EQ(applied->contentHash(), next->contentHash());
  EXPECT_NE(applied->contentHash(), base->contentHash());
  ClusterStatePtr other = makeState(4, 999, 0, "a");  // same version, another state
  try {
    (void)diff.apply(*other);
    FAIL() << "a diff applied to the wrong base";
  } catch (const es::EsException& error) {
    EXPECT_EQ(error.kind(), es::ErrorKind::incompatible_cluster_state_version);
  }
}

TEST(ElectMasterService, PrefersTheHighestClusterStateVersionThenTheLowestNodeId) {
  es::ElectMasterService elect(2);
  using Candidate = es::ElectMasterService::MasterCandidate;
  EXPECT_FALSE(elect.hasEnoughCandidates({Candidate{3, 5}}));
  EXPECT_EQ(elect.electMaster({Candidate{3, 5}, Candidate{1, 5}, Candidate{2, 5}}).node, 1U);
  EXPECT_EQ(elect.electMaster({Candidate{3, 7}, Candidate{1, 5}, Candidate{2, 6}}).node, 3U);
  EXPECT_EQ(elect.electMaster({Candidate{1, es::unrecovered_cluster_version}, Candidate{2, 0}}).node, 2U);
  EXPECT_EQ(elect.tieBreakActiveMasters({4, 2, 3}), 2U);
  EXPECT_TRUE(elect.hasEnoughMasterNodes({0, 1}));
  EXPECT_FALSE(elect.hasEnoughMasterNodes({0}));
  EXPECT_TRUE(elect.hasTooManyMasterNodes({0, 1, 2, 3}));   // 2 of 4 is not a quorum
  EXPECT_FALSE(elect.hasTooManyMasterNodes({0, 1, 2}));     // 2 of 3 is
  EXPECT_EQ(elect.electMasterByNodeId({5, 3, 4}), 3U);
}

}  // namespace
