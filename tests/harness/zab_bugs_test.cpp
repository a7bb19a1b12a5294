// ZooKeeper 3.8.0's own Zab bugs, one scenario each (scenarios/bug-zk-NNNN-*.yaml): each violates its
// properties on the release it is written for and holds them on the release that fixed it; the
// older bugs' switches (ZOOKEEPER-2845, 3911) break what holds without them.
#include <gtest/gtest.h>

#include <string>

#include "harness/runner.h"
#include "harness/scenario_parser.h"

namespace {

using namespace harness;

struct BugFile {
  const char* file;
  const char* fixed_in;  // the release whose model holds every property the file expects to fail
};

class ZabBug : public ::testing::TestWithParam<BugFile> {};

Scenario load(const char* file) { return parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/" + file); }

TEST_P(ZabBug, FailsOnItsReleaseAndHoldsOnTheFix) {
  Scenario scenario = load(GetParam().file);
  ASSERT_FALSE(scenario.expect.fail.empty());
  RunResult broken = runScenario(scenario, {});
  EXPECT_TRUE(broken.expectations_met) << GetParam().file;
  for (const std::string& property : scenario.expect.fail) {
    EXPECT_EQ(broken.properties[property], properties::Verdict::violated) << GetParam().file << ": " << property;
  }
  scenario.zookeeper.version = GetParam().fixed_in;
  scenario.expect = Expect{};
  RunResult fixed = runScenario(scenario, {});
  for (const auto& [property, verdict] : fixed.properties) {
    if (!property.starts_with("zab-")) continue;
    EXPECT_EQ(verdict, properties::Verdict::held) << GetParam().file << " on " << GetParam().fixed_in << ": " << property;
  }
}

INSTANTIATE_TEST_SUITE_P(Zab, ZabBug,
                         ::testing::Values(BugFile{"bug-zk-4643-epoch-before-txns.yaml", "3.8.5"},
                                           BugFile{"bug-zk-4646-ack-before-txns.yaml", "3.8.5"},
                                           BugFile{"bug-zk-4685-proposal-ack-first.yaml", "3.8.5"},
                                           BugFile{"bug-zk-4394-commit-after-newleader.yaml", "3.9.3"},
                                           BugFile{"bug-zk-4712-log-writer-outlives-shutdown.yaml", "3.9.3"}),
                         [](const ::testing::TestParamInfo<BugFile>& info) {
                           std::string name = std::string(info.param.file).substr(7, 4);
                           return "zk" + name;
                         });

// ZOOKEEPER-4394 and 4712 are not fixed in any 3.8 release: 3.8.5 still fails them.
TEST(ZabBug, The38ReleasesKeep4394And4712) {
  for (const char* file : {"bug-zk-4394-commit-after-newleader.yaml", "bug-zk-4712-log-writer-outlives-shutdown.yaml"}) {
    Scenario scenario = load(file);
    scenario.zookeeper.version = "3.8.5";
    RunResult result = runScenario(scenario, {});
    EXPECT_TRUE(result.expectations_met) << file;
  }
}

TEST(ZabBug, TheOlderBugsSwitchesBreakWhatHoldsWithoutThem) {
  for (const char* file : {"bug-zk-2845-retain-database.yaml", "bug-zk-3911-diff-logged-after-uptodate.yaml"}) {
    Scenario scenario = load(file);
    ASSERT_EQ(scenario.bugs.size(), 1u) << file;
    RunResult broken = runScenario(scenario, {});
    EXPECT_TRUE(broken.expectations_met) << file;
    std::vector<std::string> failing = scenario.expect.fail;
    scenario.bugs.clear();
    scenario.expect = Expect{};
    RunResult clean = runScenario(scenario, {});
    for (const std::string& property : failing) EXPECT_EQ(clean.properties[property], properties::Verdict::held) << file << ": " << property;
  }
}

}  // namespace

namespace {

// The order that fixed ZOOKEEPER-4643 has a window of its own: a crash after the sync's new-epoch
// txns are fsynced and before the epoch file leaves a server that refuses to start
// (ZOOKEEPER-2354, open). 3.8.0, which writes the epoch first, does not have it.
TEST(ZabBug, TheFixedOrderHasZooKeeper2354) {
  for (const char* version : {"3.9.3", "3.8.5", "3.8.0"}) {
    Scenario scenario = load("bug-zk-2354-epoch-after-txns.yaml");
    scenario.zookeeper.version = version;
    RunResult result = runScenario(scenario, {});
    properties::Verdict expected = std::string(version) == "3.8.0" ? properties::Verdict::held : properties::Verdict::violated;
    EXPECT_EQ(result.properties["zab-protocol-errors"], expected) << version;
  }
}

}  // namespace
