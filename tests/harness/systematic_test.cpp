// The systematic crash-point search: the same summary whatever --jobs, shards that merge into the
// whole search, pruning that loses no violation the unpruned search finds, and failure files that
// replay. Small cases (the default scenario, depth 2), so each test takes about a second.
#include <gtest/gtest.h>

#include <set>

#include "harness/explore.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/systematic.h"

namespace {

using namespace harness;

SystematicSummary search(SystematicOptions options) {
  std::atomic<bool> stop{false};
  return explore_systematic(options, [](const SystematicProgress&) {}, stop);
}

SystematicOptions small_search(std::vector<std::string> bugs, int depth) {
  SystematicOptions options;
  options.base = systematic_default_scenario();
  options.base.bugs = std::move(bugs);
  options.depth = depth;
  options.jobs = 2;
  return options;
}

// The summary's deterministic part: everything but the wall times.
nlohmann::ordered_json without_wall_times(const SystematicSummary& summary) {
  nlohmann::ordered_json json = toJson(summary);
  json.erase("wall_seconds");
  json.erase("wall_to_first_failure");
  return json;
}

TEST(Systematic, TheSummaryDoesNotDependOnTheNumberOfThreads) {
  SystematicOptions options = small_search({"zab-335-epoch-from-zxid"}, 2);
  options.jobs = 1;
  SystematicSummary one = search(options);
  options.jobs = 2;
  SystematicSummary two = search(options);
  EXPECT_EQ(without_wall_times(one), without_wall_times(two));
  EXPECT_GT(one.failures, 0u);
  EXPECT_GT(one.pruned, 0u) << "the default scenario has points that lead to the same state";
  EXPECT_EQ(one.runs, one.distinct_states);
}

TEST(Systematic, ShardsMergeIntoTheWholeSearch) {
  SystematicOptions options = small_search({"zab-335-epoch-from-zxid"}, 2);
  SystematicSummary whole = search(options);
  std::vector<SystematicSummary> shards;
  options.shard_count = 3;
  for (unsigned index = 1; index <= 3; index++) {
    options.shard_index = index;
    // Through JSON, as merge reads them.
    shards.push_back(systematic_summary_from_json(nlohmann::json::parse(toJson(search(options)).dump())));
  }
  SystematicSummary merged = merge_systematic(shards);
  EXPECT_EQ(without_wall_times(merged), without_wall_times(whole));
}

TEST(Systematic, PruningLosesNoViolationTheUnprunedSearchFinds) {
  for (const char* bug : {"zab-335-epoch-from-zxid", "zab-commit-without-quorum"}) {
    SystematicOptions options = small_search({bug}, 2);
    options.prune = false;
    SystematicSummary unpruned = search(options);
    options.prune = true;
    SystematicSummary pruned = search(options);
    EXPECT_LT(pruned.runs, unpruned.runs) << bug;
    ASSERT_FALSE(unpruned.failures_by_property.empty()) << bug;
    for (const auto& [property, count] : unpruned.failures_by_property) {
      EXPECT_GT(pruned.failures_by_property[property], 0u) << bug << ": " << property << " lost by pruning";
    }
  }
}

TEST(Systematic, AFailureFileIsAnOrdinaryScenarioThatReplays) {
  SystematicOptions options = small_search({"zab-335-epoch-from-zxid"}, 2);
  options.stop_at_first_failure = true;
  options.out_dir = ::testing::TempDir() + "systematic-failures";
  SystematicSummary summary = search(options);
  ASSERT_TRUE(summary.first_failure.has_value());
  EXPECT_TRUE(summary.stopped_at_first_failure);
  ASSERT_FALSE(summary.first_failure->file.empty());
  Scenario failing = parse_scenario_file(summary.first_failure->file);
  ASSERT_TRUE(failing.failure.has_value());
  std::size_t triggered = 0;
  for (const Fault& fault : failing.faults) triggered += fault.after.has_value() ? 1 : 0;
  EXPECT_EQ(triggered, 4u) << "two crashes, each with its restart";
  RunResult again = runScenario(failing, {});
  EXPECT_EQ(sim::format_hash(again.trace_hash), failing.failure->trace_hash);
  // The file expects the property to hold, so that `run` shows it failing.
  EXPECT_EQ(again.properties[failing.failure->property], properties::Verdict::violated);
  EXPECT_FALSE(again.expectations_met);
}

TEST(Systematic, TheSitesAndNodesCanBeNarrowed) {
  SystematicOptions options = small_search({}, 1);
  options.sites = {"zab.current_epoch_written"};
  options.nodes = {"zk1"};
  options.prune = false;
  SystematicSummary summary = search(options);
  ASSERT_EQ(summary.levels.size(), 1u);
  // zk1 writes currentEpoch once, at its first sync.
  EXPECT_EQ(summary.levels[0].points, 1u);
  EXPECT_EQ(summary.runs, 1u);
}

// A budget too small for the next level is shared by every run of the level above, its earliest
// points first: not taken whole by the first subtrees (the search of ZOOKEEPER-4646 needs a subtree
// far down level 1, docs/exploration.md).
TEST(Systematic, ABudgetTooSmallForALevelIsSharedByEverySubtree) {
  SystematicOptions options = small_search({}, 2);
  options.max_runs = 1000000;
  SystematicSummary whole = search(options);
  ASSERT_EQ(whole.levels.size(), 2u);
  std::uint64_t roots = whole.levels[0].runs;
  ASSERT_GT(roots, 10u);
  ASSERT_GT(whole.levels[1].runs, 3 * roots);  // the default scenario's subtrees have several points each
  EXPECT_LE(whole.levels[1].subtrees, roots);

  options.max_runs = roots + 2 * roots;  // room for two points a subtree
  SystematicSummary tight = search(options);
  ASSERT_EQ(tight.levels.size(), 2u);
  EXPECT_TRUE(tight.budget_exhausted);
  EXPECT_GT(tight.levels[1].runs, roots);
  EXPECT_LE(tight.levels[1].runs, 2 * roots);
  // Every subtree that has points gets its share; without sharing the first few took all of it.
  EXPECT_EQ(tight.levels[1].subtrees, whole.levels[1].subtrees);
}

}  // namespace

namespace {

// latch-unprotected-create needs a connection loss in the few milliseconds between a server applying
// a latch's create and its reply reaching the client. The swarm draws its way there in about two
// thousand runs; the systematic search, isolating each server at each txn it applies, in a handful.
TEST(Systematic, FindsANarrowStepBugInFewerRunsThanTheSwarm) {
  Scenario base = parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/bug-latch-unprotected-create.yaml");
  std::erase_if(base.faults, [](const Fault& fault) { return fault.after.has_value(); });  // the file's own aim at the step
  base.expect = Expect{};
  SystematicOptions options;
  options.base = base;
  options.fault = FaultKind::isolate;
  options.restart_after = std::chrono::milliseconds(4500);
  options.sites = {"zab.commit"};
  options.stop_at_first_failure = true;
  options.jobs = 2;
  SystematicSummary systematic = search(options);
  ASSERT_TRUE(systematic.first_failure.has_value());
  EXPECT_EQ(systematic.first_failure->property, "eventual-leader");

  ExploreOptions swarm;
  swarm.swarm.recipe = Recipe::leader_latch;
  swarm.swarm.bugs = {"latch-unprotected-create"};
  swarm.swarm.duration = std::chrono::seconds(60);
  swarm.runs = 3000;
  swarm.jobs = 2;
  swarm.out_dir = "";
  swarm.stop_at_first_failure = true;
  std::atomic<bool> stop{false};
  ExploreSummary swept = explore(swarm, [](const ExploreProgress&) {}, stop);
  ASSERT_TRUE(swept.first_failure.has_value());
  std::uint64_t swarm_runs = swept.first_failure->seed - swarm.seed + 1;
  std::cout << "latch-unprotected-create: systematic run " << systematic.first_failure->run << ", swarm run " << swarm_runs << "\n";
  EXPECT_LT(systematic.first_failure->run * 10, swarm_runs);
}

}  // namespace
