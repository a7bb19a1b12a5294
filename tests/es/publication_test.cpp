// Two-phase cluster-state publication: PublishClusterStateAction between nodes that only run the
// transport and the action (diff or full state, the full resend after an incompatible diff, commit
// at minimum_master_nodes - 1 acks with earlier acks buffered, commit_timeout, publish_timeout),
// then in whole clusters (a master whose publication cannot commit rejoins; followers apply only
// committed states).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <optional>

#include "es_test_support.h"
#include "model/es/PublishClusterStateAction.h"
#include "sim/sync.h"

namespace {

using namespace std::chrono_literals;
using es::ClusterState;
using es::ClusterStatePtr;

// A node with only the transport and the publication action; as a follower it accepts every
// state and answers every commit at once.
class PublishNode final : public sim::Node, public es::PublishClusterStateAction::IncomingClusterStateListener {
 public:
  PublishNode(sim::Simulation& sim, std::string name, const es::EsConfig& config) : Node(sim, std::move(name)), config_(config) {}

  std::unique_ptr<es::TransportService> transport;
  std::unique_ptr<es::PublishClusterStateAction> action;
  std::vector<ClusterStatePtr> received;
  std::vector<std::uint64_t> committed;
  bool rejectAll = false;
  std::optional<std::string> outcome;  // of the last publish on this node
  std::optional<sim::Instant> finished;

  void onIncomingClusterState(const ClusterStatePtr& incomingState) override {
    if (rejectAll) throw es::EsException(es::ErrorKind::illegal_state, "rejecting");
    received.push_back(incomingState);
  }
  void onClusterStateCommitted(std::uint64_t stateUUID, es::PublishClusterStateAction::CommitListener listener) override {
    committed.push_back(stateUUID);
    listener.onResponse();
  }
  sim::Task<void> publish(es::ClusterChangedEvent event, int minimumMasterNodes, bool singlePhase) {
    outcome.reset();
    std::optional<std::string> result;
    try {
      if (singlePhase) {
        co_await action->publishSinglePhase(event);
      } else {
        co_await action->publish(event, minimumMasterNodes);
      }
      result = "ok";
    } catch (const es::EsException& error) {
      result = std::string(es::errorName(error.kind()));
    }
    outcome = result;
    finished = sim().now();
  }

 protected:
  void on_start() override {
    transport = std::make_unique<es::TransportService>(*this, config_.connect_timeout);
    action = std::make_unique<es::PublishClusterStateAction>(*this, *transport, *this, config_);
    transport->start();
  }
  void on_stop() override {
    action.reset();
    transport.reset();
  }

 private:
  const es::EsConfig& config_;
};

struct Publications final : sim::TraceSink {
  std::vector<std::string> lines;  // "to:diff" for es.publish, "commit:v" for es.commit
  std::optional<sim::Instant> commitTime;
  bool timedOut = false;
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind == "es.publish") lines.push_back(std::string(event.text("to")) + (event.boolean("diff") ? ":diff" : ":full"));
    if (event.kind == "es.commit") {
      lines.push_back("commit:" + std::to_string(event.integer("version")));
      commitTime = event.time;
    }
    if (event.kind == "es.publish_timeout") timedOut = true;
  }
};

std::vector<std::string> sorted(std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  return lines;
}

struct Fixture {
  es::EsConfig config;
  sim::Simulation sim{11};
  std::vector<PublishNode*> nodes;
  Publications publications;
  std::uint64_t uuids = 1000;

  explicit Fixture(std::size_t count, sim::Duration commitTimeout = 30s) {
    config.commit_timeout = commitTimeout;
    sim.network().set_latency(1ms, 5ms);
    for (std::size_t i = 1; i <= count; i++) nodes.push_back(&sim.add_node<PublishNode>("es" + std::to_string(i), config));
    for (PublishNode* node : nodes) node->start();
    sim.trace().add_sink(&publications);
  }
  ~Fixture() { sim.trace().remove_sink(&publications); }

  PublishNode& master() { return *nodes.front(); }
  ClusterStatePtr state(std::int64_t version, const std::vector<std::size_t>& members, std::string value) {
    auto state = std::make_shared<ClusterState>();
    state->version = version;
    state->stateUUID = uuids++;
    state->masterNodeId = master().id();
    for (std::size_t number : members) state->addNode(nodes[number - 1]->id());
    state->stateNotRecovered = false;
    state->noMasterBlock = false;
    state->origin = ClusterState::Origin::master_service;
    state->metadata["key"] = std::move(value);
    return state;
  }
  void publish(ClusterStatePtr previous, ClusterStatePtr next, int minimumMasterNodes, bool singlePhase = false) {
    master().spawn(master().publish(es::ClusterChangedEvent{"test", std::move(next), std::move(previous)}, minimumMasterNodes, singlePhase));
  }
};

TEST(PublishClusterStateAction, SendsADiffToNodesOfThePreviousStateAndTheFullStateToNewOnes) {
  Fixture f(3);
  ClusterStatePtr s0 = f.state(1, {1, 2}, "a");
  ClusterStatePtr s1 = f.state(2, {1, 2, 3}, "b");
  f.publish(s0, s1, 2);
  f.sim.run_for(1s);
  ASSERT_EQ(f.master().outcome, "ok");
  // es2 was in the previous state: a diff. But es2 has no state to apply it to: it answers with
  // IncompatibleClusterStateVersionException and the full state follows.
  EXPECT_EQ(sorted(f.publications.lines), (std::vector<std::string>{"commit:2", "es2:diff", "es2:full", "es3:full"}));
  EXPECT_EQ(f.nodes[1]->action->stats().incompatibleClusterStateDiffReceivedCount, 1U);
  EXPECT_EQ(f.nodes[1]->action->stats().fullClusterStateReceivedCount, 1U);

  f.publications.lines.clear();
  ClusterStatePtr s2 = f.state(3, {1, 2, 3}, "c");
  f.publish(s1, s2, 2);
  f.sim.run_for(1s);
  ASSERT_EQ(f.master().outcome, "ok");
  EXPECT_EQ(f.publications.lines, (std::vector<std::string>{"es2:diff", "es3:diff", "commit:3"}));
  for (std::size_t follower : {1U, 2U}) {
    EXPECT_EQ(f.nodes[follower]->action->stats().compatibleClusterStateDiffReceivedCount, 1U);
    ASSERT_FALSE(f.nodes[follower]->received.empty());
    // The state a follower rebuilt from the diff is the master's state.
    EXPECT_EQ(f.nodes[follower]->received.back()->contentHash(), s2->contentHash());
    EXPECT_EQ(f.nodes[follower]->received.back()->stateUUID, s2->stateUUID);
  }
}

TEST(PublishClusterStateAction, ResendsTheFullStateToANodeThatCannotApplyTheDiff) {
  Fixture f(2);
  f.publish(f.state(1, {1}, "a"), f.state(2, {1, 2}, "b"), 2);
  f.sim.run_for(1s);
  ASSERT_EQ(f.nodes[1]->action->stats().fullClusterStateReceivedCount, 1U);
  // The next diff is computed against a state es2 never saw.
  f.publications.lines.clear();
  f.publish(f.state(2, {1, 2}, "other"), f.state(3, {1, 2}, "c"), 2);
  f.sim.run_for(1s);
  EXPECT_EQ(f.master().outcome, "ok");
  EXPECT_EQ(f.publications.lines, (std::vector<std::string>{"es2:diff", "es2:full", "commit:3"}));
  EXPECT_EQ(f.nodes[1]->action->stats().incompatibleClusterStateDiffReceivedCount, 1U);
  EXPECT_EQ(f.nodes[1]->action->stats().fullClusterStateReceivedCount, 2U);
}

TEST(PublishClusterStateAction, CommitsOnceMinimumMasterNodesMinusOneAckedAndCommitsToLaterAcksToo) {
  Fixture f(5);
  ClusterStatePtr previous = f.state(1, {1, 2, 3, 4, 5}, "a");
  f.publish(f.state(1, {1}, "x"), previous, 1);  // everyone has a state
  f.sim.run_for(1s);
  f.nodes[3]->pause();
  f.nodes[4]->pause();
  ClusterStatePtr next = f.state(2, {1, 2, 3, 4, 5}, "b");
  sim::Instant start = f.sim.now();
  f.publish(previous, next, 3);  // needs acks from 2 of the 4 others
  f.sim.run_for(10s);
  ASSERT_TRUE(f.publications.commitTime.has_value());
  EXPECT_LT(*f.publications.commitTime - start, 100ms);
  // es2 and es3 acked: the first ack waited (buffered) for the second, then both got the commit.
  EXPECT_EQ(f.nodes[1]->committed.back(), next->stateUUID);
  EXPECT_EQ(f.nodes[2]->committed.back(), next->stateUUID);
  EXPECT_FALSE(f.master().outcome.has_value());  // still waiting for es4 and es5
  f.nodes[3]->resume();                          // a late ack gets its commit at once
  f.sim.run_for(1s);
  EXPECT_EQ(f.nodes[3]->committed.back(), next->stateUUID);
  f.sim.run_for(30s);
  EXPECT_EQ(f.master().outcome, "ok");  // es5 never answered: only a warning
  EXPECT_TRUE(f.publications.timedOut);
  EXPECT_EQ(*f.master().finished - start, 30s);  // publish_timeout, counted from the start
  f.nodes[4]->resume();
}

TEST(PublishClusterStateAction, FailsToCommitWhenTooFewAckBeforeCommitTimeout) {
  Fixture f(5, 5s);
  ClusterStatePtr previous = f.state(1, {1, 2, 3, 4, 5}, "a");
  f.publish(f.state(1, {1}, "x"), previous, 1);
  f.sim.run_for(1s);
  f.nodes[3]->pause();
  f.nodes[4]->pause();
  sim::Instant start = f.sim.now();
  ClusterStatePtr next = f.state(2, {1, 2, 3, 4, 5}, "b");
  f.publish(previous, next, 4);  // needs 3 acks; only es2 and es3 can
  f.sim.run_for(10s);
  EXPECT_EQ(f.master().outcome, "FailedToCommitClusterStateException");
  EXPECT_EQ(*f.master().finished - start, 5s);  // commit_timeout
  for (std::size_t follower : {1U, 2U}) EXPECT_NE(f.nodes[follower]->committed.back(), next->stateUUID);
  f.nodes[3]->resume();
  f.nodes[4]->resume();
}

TEST(PublishClusterStateAction, FailsAtOnceWhenTooFewMastersAreLeftToAck) {
  Fixture f(3);
  ClusterStatePtr previous = f.state(1, {1, 2, 3}, "a");
  f.publish(f.state(1, {1}, "x"), previous, 1);
  f.sim.run_for(1s);
  f.nodes[2]->rejectAll = true;
  sim::Instant start = f.sim.now();
  f.publish(previous, f.state(2, {1, 2, 3}, "b"), 3);  // needs both; es3 refuses
  f.sim.run_for(1s);
  EXPECT_EQ(f.master().outcome, "FailedToCommitClusterStateException");
  EXPECT_LT(*f.master().finished - start, 100ms);
  // And at once when the state has fewer master nodes than minimum_master_nodes.
  f.publish(previous, f.state(3, {1, 2}, "c"), 3);
  f.sim.run_for(1s);
  EXPECT_EQ(f.master().outcome, "FailedToCommitClusterStateException");
}

TEST(PublishClusterStateAction, SinglePhasePublicationOfElasticsearch1SendsFullStatesAndNeverFails) {
  Fixture f(3);
  f.nodes[2]->rejectAll = true;
  f.publish(f.state(1, {1, 2, 3}, "a"), f.state(2, {1, 2, 3}, "b"), 3, true);
  f.sim.run_for(1s);
  EXPECT_EQ(f.master().outcome, "ok");
  // Committed as it is sent: one phase.
  EXPECT_EQ(f.publications.lines, (std::vector<std::string>{"commit:2", "es2:full", "es3:full"}));
  EXPECT_TRUE(f.nodes[1]->committed.empty());  // no second phase
}

// ---- whole clusters ----

TEST(Publication, AMasterWhosePublicationCannotCommitWithinCommitTimeoutRejoins) {
  estest::Cluster c(estest::config(3, 2, 1.0), 5);
  c.cluster.startAll();
  c.sim.run_for(20s);
  ASSERT_EQ(c.stableMaster(), 1U);
  sim::Instant cut = c.sim.now();
  c.sim.network().isolate(c.id(1));
  c.sim.run_for(45s);
  std::optional<sim::Instant> failed = c.recorder.first("es.publish_failed", c.id(1));
  ASSERT_TRUE(failed.has_value()) << c.recorder.dump();
  EXPECT_LE(*failed - cut, 32s);  // the first task after the cut, plus commit_timeout
  EXPECT_GE(*failed - cut, 30s);
  EXPECT_EQ(c.recorder.first("es.rejoin", c.id(1), "zen-disco-failed-to-publish"), failed);
  EXPECT_EQ(c.recorder.first("es.master", c.id(1), "master=false"), failed);
  EXPECT_TRUE(c.masters().empty());  // es2 and es3 have not noticed yet (fault detection takes 91 s)
  c.sim.run_for(100s);
  EXPECT_EQ(c.stableMasterAmong({2, 3}), 2U);
}

TEST(Publication, FollowersApplyOnlyStatesTheirMasterCommittedUsingDiffs) {
  estest::Cluster c(estest::config(3, 2, 4.0), 6);
  c.cluster.startAll();
  c.sim.run_for(60s);
  ASSERT_EQ(c.stableMaster(), 1U);
  // Every state a follower applied was committed by the master before.
  std::map<std::int64_t, sim::Instant> commits;
  std::size_t checked = 0;
  for (const estest::Recorder::Line& line : c.recorder.lines) {
    if (line.kind == "es.commit") commits.emplace(std::stoll(line.fields.substr(line.fields.find("version=") + 8)), line.time);
    if (line.kind != "es.apply" || line.node == c.id(1)) continue;
    std::int64_t version = std::stoll(line.fields.substr(line.fields.find("version=") + 8));
    ASSERT_TRUE(commits.contains(version)) << "version " << version;
    EXPECT_LT(commits.at(version), line.time);
    checked++;
  }
  EXPECT_GT(checked, 300U);
  for (std::size_t follower : {2U, 3U}) {
    const auto& stats = c.node(follower).discovery().publishClusterState().stats();
    EXPECT_GT(stats.compatibleClusterStateDiffReceivedCount, 100U);
    EXPECT_LE(stats.fullClusterStateReceivedCount, 2U);  // the first state(s), before it was in the node list
    EXPECT_EQ(c.node(follower).appliedState()->contentHash(), c.node(1).appliedState()->contentHash());
  }
  EXPECT_EQ(c.singleMaster.verdict(), properties::Verdict::held);
  EXPECT_EQ(c.stateAgreement.verdict(), properties::Verdict::held);
}

}  // namespace
