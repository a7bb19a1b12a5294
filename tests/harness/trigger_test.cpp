// Step-triggered faults: parsing and its errors, the run's report, and that a fault lands exactly at
// the step that triggers it (mutation-checked: without the hold at a site, the step goes on past the
// site before the crash, and these tests fail).
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "harness/cluster.h"
#include "harness/recipe.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/scenario_writer.h"
#include "harness/shrink.h"
#include "harness/trigger_kinds.h"
#include "model/zk/quorum/QuorumPeer.h"

namespace {

using namespace harness;
using namespace std::chrono_literals;

std::string error_of(const std::string& yaml) {
  try {
    parse_scenario_text(yaml, "t.yaml");
  } catch (const ScenarioError& error) {
    return error.what();
  }
  return "no error";
}

const std::string none_head = "name: t\nduration: 20s\nclients: {writers: 1}\nfaults:\n";

// Every event and site a run sees, sites included, in order (a TraceRecorder that also reads sites).
class StepRecorder final : public sim::TraceSink {
 public:
  struct Step {
    sim::Instant time;
    sim::NodeId node;
    std::string kind;
    std::int64_t epoch;
  };
  void on_event(const sim::TraceEvent& event) override {
    steps.push_back(Step{event.time, event.node, std::string(event.kind), event.integer("epoch", -1)});
  }
  bool reads_sites() const override { return true; }
  std::vector<Step> steps;
};

TEST(Triggers, ParseAndWriteBack) {
  Scenario scenario = parse_scenario_text(none_head + R"(  - {after: {event: zab.current_epoch_written, node: zk1, nth: 2}, crash: zk1}
  - {after: {event: zab.proposal_sent, node: zk3, nth: 4}, delay: 5ms, power_off: zk3}
  - {after: {event: zk.state, node: zk1, where: {state: LEADING}}, at: 2s, until: 15s, partition: [[zk2], [zk1, zk3]]}
  - {at: 1s, crash: zk2}
)",
                                          "t.yaml");
  ASSERT_EQ(scenario.faults.size(), 4u);
  // Sorted by `at`: the two triggered faults without one count from 0.
  EXPECT_FALSE(scenario.faults[0].after.has_value() && scenario.faults[0].at != 0s);
  const Fault& crash = scenario.faults[0];
  ASSERT_TRUE(crash.after);
  EXPECT_EQ(crash.after->event, "zab.current_epoch_written");
  EXPECT_EQ(crash.after->node, "zk1");
  EXPECT_EQ(crash.after->occurrence, 2);
  EXPECT_EQ(crash.kind, FaultKind::crash);
  const Fault& power_off = scenario.faults[1];
  EXPECT_EQ(power_off.delay, 5ms);
  const Fault& timed = scenario.faults[2];
  EXPECT_FALSE(timed.after.has_value());
  const Fault& partition = scenario.faults[3];
  ASSERT_TRUE(partition.after);
  EXPECT_EQ(partition.after->where.at("state"), "LEADING");
  EXPECT_EQ(partition.at, 2s);
  EXPECT_EQ(partition.until, std::optional<sim::Duration>(15s));
  EXPECT_EQ(parse_scenario_text(write_scenario(scenario), "again.yaml"), scenario);
}

TEST(Triggers, BadTriggersAreRefusedWithTheirPlace) {
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zab.current_epoch_writen, node: zk1}, crash: zk1}\n"),
            "t.yaml:5:21: unknown event kind 'zab.current_epoch_writen' for a trigger (did you mean 'zab.current_epoch_written'?)");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zab.current_epoch_written, node: w1}, crash: zk1}\n"),
            "t.yaml:5:54: 'w1' never emits 'zab.current_epoch_written': it is a workload client, and only servers do");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zab.current_epoch_written, node: zk1, nth: 0}, crash: zk1}\n"),
            "t.yaml:5:64: nth counts occurrences from 1 (the first time the node emits it), got 0");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zab.current_epoch_written, node: zk1, nth: -3}, crash: zk1}\n"),
            "t.yaml:5:64: nth counts occurrences from 1 (the first time the node emits it), got -3");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: job.leader, node: zk1}, crash: zk1}\n"),
            "t.yaml:5:21: no node emits 'job.leader' with recipe none");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zk.state, node: zk4}, crash: zk1}\n"),
            "t.yaml:5:37: unknown node 'zk4': zookeeper.servers is 3, so servers are zk1..zk3");
  EXPECT_EQ(error_of(none_head + "  - {at: 1s, delay: 1s, crash: zk1}\n"),
            "t.yaml:5:14: 'delay' belongs to a fault with 'after' (a step-triggered fault), not to one at a fixed time");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zk.state, node: zk1, where: {stat: LEADING}}, crash: zk1}\n"),
            "t.yaml:5:50: unknown key 'stat' in faults.after.where (did you mean 'state'?)");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zk.state, node: zk1}, at: 5s, until: 2s, crash: zk1}\n"),
            "t.yaml:5:58: until 2s is before at 5s: the trigger could never fire");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: zk.state, node: zk1}, until: 21s, crash: zk1}\n"),
            "t.yaml:5:50: until 21s is after the end of the scenario (duration 20s)");
  EXPECT_EQ(error_of(none_head + "  - {after: {event: node.crash, node: zk1, where: {x: 1}}, crash: zk1}\n"),
            "t.yaml:5:51: 'node.crash' has no fields for 'where' to test");
}

// zk3 crashes right after it persists the epoch of the leader it syncs with for the second time
// (its first sync is at start-up; the second after the restart at 4 s).
const std::string crash_at_epoch = R"(name: crash-at-epoch
duration: 20s
clients: {writers: 1, write_interval: 200ms}
faults:
  - {at: 3s, crash: zk3}
  - {at: 4s, restart: zk3}
  - {after: {event: zab.current_epoch_written, node: zk3, nth: 2}, crash: zk3}
)";

TEST(Triggers, ACrashAtAHoldingSiteLandsExactlyThere) {
  Scenario scenario = parse_scenario_text(crash_at_epoch, "t.yaml");
  StepRecorder recorder;
  RunOptions options;
  options.sinks = {&recorder};
  RunResult result = runScenario(scenario, options);
  ASSERT_EQ(result.triggers.size(), 1u);
  ASSERT_TRUE(result.triggers[0].fired.has_value());
  EXPECT_EQ(result.triggers[0].applied, result.triggers[0].fired);
  EXPECT_EQ(result.triggers[0].seen, 2);

  // zk3's steps from its second epoch write on: the crash, and nothing of zk3 in between, not even
  // its NEWLEADER ACK (the step after the write).
  const std::vector<StepRecorder::Step>& steps = recorder.steps;
  auto site = std::find_if(steps.begin(), steps.end(), [&, seen = 0](const StepRecorder::Step& step) mutable {
    return step.kind == "zab.current_epoch_written" && step.node == 2 && ++seen == 2;
  });
  ASSERT_NE(site, steps.end());
  auto next = std::find_if(site + 1, steps.end(), [](const StepRecorder::Step& step) { return step.node == 2; });
  ASSERT_NE(next, steps.end());
  EXPECT_EQ(next->kind, "fault.crash");
  EXPECT_EQ(next->time, site->time);
  for (auto step = site + 1; step != next; ++step) EXPECT_NE(step->kind, "zab.newleader_acked") << "at " << sim::format_instant(step->time);
  EXPECT_TRUE(std::none_of(steps.begin(), steps.end(),
                           [&](const StepRecorder::Step& step) { return step.node == 2 && step.kind == "zab.newleader_acked" && step.time == site->time; }));
}

TEST(Triggers, TheCrashedFollowerKeepsTheEpochButNotTheSyncedTxns) {
  // ZOOKEEPER-4643's window, aimed at: after the epoch write, before the DIFF txns reach the log.
  Scenario scenario = parse_scenario_text(crash_at_epoch, "t.yaml");
  Cluster cluster(scenario, scenario.seed, {});
  std::unique_ptr<RecipeDriver> driver = makeRecipeDriver(scenario);
  driver->build(cluster);
  StepRecorder recorder;
  cluster.sim().trace().add_sink(&recorder);
  cluster.scheduleStartsAndFaults(*driver);
  auto site = [&recorder] {
    int seen = 0;
    for (const auto& step : recorder.steps) {
      if (step.kind == "zab.current_epoch_written" && step.node == 2 && ++seen == 2) return step;
    }
    return StepRecorder::Step{sim::instant_max, 0, "", -1};
  };
  cluster.sim().run_until(sim::epoch + 10s);
  StepRecorder::Step written = site();
  ASSERT_NE(written.time, sim::instant_max);
  zk::QuorumPeer& zk3 = cluster.ensemble()->server(3);
  EXPECT_FALSE(zk3.up());
  EXPECT_EQ(zk3.disk().current_epoch, written.epoch);
  // The leader's history has txns of the first epoch that zk3 missed while down; none reached zk3's log.
  zk::QuorumPeer& leader = cluster.ensemble()->server(*cluster.ensemble()->leader());
  EXPECT_GT(leader.disk().last_logged_zxid(), zk3.disk().last_logged_zxid());
  cluster.sim().trace().remove_sink(&recorder);
}

TEST(Triggers, ATriggerThatNeverFiresIsReported) {
  Scenario scenario = parse_scenario_text(none_head + "  - {after: {event: zab.current_epoch_written, node: zk1, nth: 50}, crash: zk1}\n", "t.yaml");
  RunResult result = runScenario(scenario, {});
  ASSERT_EQ(result.triggers.size(), 1u);
  EXPECT_FALSE(result.triggers[0].fired.has_value());
  EXPECT_EQ(result.triggers[0].seen, 1);
  nlohmann::ordered_json json = toJson(result);
  ASSERT_TRUE(json.contains("triggers"));
  EXPECT_TRUE(json["triggers"][0]["fired"].is_null());
  EXPECT_EQ(json["triggers"][0]["occurrences"], 1);
}

TEST(Triggers, WhereFiltersAndATimeWindowCountOnlyWhatMatches) {
  // The first server to become LEADING after 5 s: zk3 leads from the start; killing it at 6 s makes
  // another lead, and that is the one the partition isolates.
  Scenario scenario = parse_scenario_text(none_head + R"(  - {at: 6s, crash: zk3}
  - {after: {event: zk.state, node: zk2, where: {state: LEADING}}, at: 5s, isolate: zk2}
  - {after: {event: zk.state, node: zk3, where: {state: LEADING}}, at: 5s, until: 10s, isolate: zk1}
)",
                                          "t.yaml");
  RunResult result = runScenario(scenario, {});
  ASSERT_EQ(result.triggers.size(), 2u);
  EXPECT_TRUE(result.triggers[0].fired.has_value());
  EXPECT_GE(*result.triggers[0].fired, sim::epoch + 6s);
  EXPECT_FALSE(result.triggers[1].fired.has_value()) << "zk3 led before 5 s only";
}

TEST(Triggers, APauseAtAHoldingSiteResumesTheStepAfterwards) {
  // The follower pauses right after writing the epoch; when it resumes, it sends its NEWLEADER ACK.
  Scenario scenario = parse_scenario_text(R"(name: pause-at-epoch
duration: 20s
faults:
  - {at: 3s, crash: zk2}
  - {at: 4s, restart: zk2}
  - {after: {event: zab.current_epoch_written, node: zk2, nth: 2}, pause: zk2, for: 1s}
)",
                                          "t.yaml");
  StepRecorder recorder;
  RunOptions options;
  options.sinks = {&recorder};
  RunResult result = runScenario(scenario, options);
  ASSERT_TRUE(result.triggers.at(0).fired.has_value());
  sim::Instant fired = *result.triggers[0].fired;
  auto acked = std::find_if(recorder.steps.begin(), recorder.steps.end(),
                            [&](const auto& step) { return step.node == 1 && step.kind == "zab.newleader_acked" && step.time >= fired; });
  ASSERT_NE(acked, recorder.steps.end());
  EXPECT_EQ(acked->time, fired + 1s);
}

TEST(Triggers, SameSeedSameTraceHash) {
  Scenario scenario = parse_scenario_text(crash_at_epoch, "t.yaml");
  RunResult first = runScenario(scenario, {});
  RunResult second = runScenario(scenario, {});
  EXPECT_EQ(first.trace_hash, second.trace_hash);
  EXPECT_EQ(first.events, second.events);
  // Watching the sites changes nothing.
  StepRecorder recorder;
  RunOptions options;
  options.sinks = {&recorder};
  EXPECT_EQ(runScenario(scenario, options).trace_hash, first.trace_hash);
}

TEST(Triggers, EveryKindIsUniqueAndEverySiteSaysWhereItIsInJava) {
  std::vector<std::string_view> seen;
  for (const TriggerKind& kind : trigger_kinds()) {
    EXPECT_EQ(std::count(seen.begin(), seen.end(), kind.kind), 0) << kind.kind;
    seen.push_back(kind.kind);
    EXPECT_NE(kind.roles, 0) << kind.kind;
    if (kind.site != nullptr) {
      EXPECT_NE(kind.site->java.find(".java"), std::string_view::npos) << kind.kind;
      EXPECT_FALSE(kind.site->what.empty()) << kind.kind;
    }
  }
  EXPECT_EQ(ordinal(1), "1st");
  EXPECT_EQ(ordinal(2), "2nd");
  EXPECT_EQ(ordinal(3), "3rd");
  EXPECT_EQ(ordinal(11), "11th");
  EXPECT_EQ(ordinal(22), "22nd");
}

}  // namespace

namespace {

// Shrinking a failure whose fault is step-triggered: fewer faults, and the trigger moved to the
// earliest occurrence of its step that still fails (ZOOKEEPER-4712 needs only the leader's crash
// right after any proposal it sent).
TEST(Triggers, ShrinkMovesATriggeredFaultToAnEarlierOccurrence) {
  harness::Scenario failing = harness::parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/bug-zk-4712-log-writer-outlives-shutdown.yaml");
  harness::ShrinkOptions options;
  options.property = "zab-history-consistency";
  options.jobs = 2;
  std::optional<harness::ShrinkResult> result = harness::shrink(failing, options, [](const harness::ShrinkStep&) {});
  ASSERT_TRUE(result.has_value());
  ASSERT_EQ(result->scenario.faults.size(), 1u) << harness::write_scenario(result->scenario);
  const harness::Fault& fault = result->scenario.faults.front();
  ASSERT_TRUE(fault.after.has_value());
  EXPECT_EQ(fault.after->event, "zab.proposal_sent");
  EXPECT_LT(fault.after->occurrence, 10);
  EXPECT_TRUE(harness::violates(result->scenario, "zab-history-consistency"));
}

}  // namespace
