// The catalogue of names: complete, unique, and in step with the Scenario enums.
#include "harness/registry.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

#include "harness/scenario.h"

namespace {

using namespace harness;

std::vector<std::string> names(const std::vector<Entry>& entries) {
  std::vector<std::string> result;
  for (const Entry& entry : entries) result.emplace_back(entry.name);
  return result;
}

void expect_well_formed(const std::vector<Entry>& entries) {
  std::set<std::string_view> seen;
  for (const Entry& entry : entries) {
    SCOPED_TRACE(std::string(entry.name));
    EXPECT_TRUE(seen.insert(entry.name).second) << "listed twice";
    EXPECT_FALSE(entry.summary.empty());
    // One line for `electsim bugs` and friends: no newline, no trailing full stop.
    EXPECT_EQ(entry.summary.find('\n'), std::string_view::npos);
    EXPECT_NE(entry.summary.back(), '.');
    EXPECT_EQ(entry.name.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789-"), std::string_view::npos);
  }
}

TEST(Registry, EveryListIsWellFormed) {
  expect_well_formed(bug_switches());
  expect_well_formed(properties());
  expect_well_formed(recipes());
  expect_well_formed(strategy_names());
}

TEST(Registry, BugSwitchesAreTheDocumentedOnes) {
  EXPECT_EQ(names(bug_switches()),
            (std::vector<std::string>{"fle-1419-nontotal-order", "zab-commit-without-quorum", "zab-335-epoch-from-zxid",
                                      "zk-1208-create-on-closing-session", "zk-2845-retain-database", "zk-3911-diff-logged-after-uptodate", "zk-watch-not-one-shot", "ej-no-has-leader-check",
                                      "ej-any-node-sets-resharding-flag", "latch-ignores-connection-loss",
                                      "latch-watches-parent", "latch-unprotected-create", "curator-696-no-owner-check",
                                      "naive-no-anti-jitter", "es-2488-local-elect", "es-master-service-fifo"}));
}

TEST(Registry, PropertiesAreTheDocumentedOnes) {
  EXPECT_EQ(names(properties()),
            (std::vector<std::string>{"zab-single-leader", "zab-agreement", "zab-committed-durability", "zab-history-consistency", "zab-monotonic-reads", "zab-protocol-errors", "ephemeral-cleanup", "watch-once",
                                      "job-single-leader", "full-coverage", "no-double-execution", "eventual-leader",
                                      "es-single-master", "es-state-agreement", "es-eventual-master",
                                      "naive-master-stable", "model-sanity", "latch-single-leader", "latch-no-herd", "es-task-order"}));
}

TEST(Registry, RecipesMatchTheRecipeEnum) {
  std::vector<std::string> expected;
  for (Recipe recipe : {Recipe::none, Recipe::elasticjob, Recipe::leader_latch, Recipe::leader_selector,
                        Recipe::naive_master, Recipe::es_zen}) {
    expected.emplace_back(recipe_name(recipe));
    EXPECT_EQ(recipe_from_name(recipe_name(recipe)), recipe);
  }
  EXPECT_EQ(names(recipes()), expected);
}

TEST(Registry, StrategiesIncludeElasticJobsThree) {
  for (std::string_view name : {"average", "odevity", "rotate", "consistent-hash", "rendezvous", "sticky"}) {
    EXPECT_TRUE(is_known_strategy(name)) << name;
  }
}

TEST(Registry, Lookups) {
  EXPECT_TRUE(is_known_bug("ej-no-has-leader-check"));
  EXPECT_FALSE(is_known_bug("ej_no_has_leader_check"));
  EXPECT_TRUE(is_known_property("full-coverage"));
  EXPECT_FALSE(is_known_property(""));
  EXPECT_TRUE(is_known_recipe("es-zen"));
  EXPECT_FALSE(is_known_recipe("es_zen"));
  EXPECT_FALSE(is_known_strategy("AVERAGE"));
}

TEST(Registry, EnumNamesRoundTrip) {
  for (int i = 0; i <= static_cast<int>(FaultKind::set_sharding_total_count); i++) {
    auto kind = static_cast<FaultKind>(i);
    EXPECT_EQ(fault_kind_from_name(fault_kind_name(kind)), kind);
  }
  for (int i = 0; i <= static_cast<int>(EsPriority::languid); i++) {
    auto priority = static_cast<EsPriority>(i);
    EXPECT_EQ(es_priority_from_name(es_priority_name(priority)), priority);
  }
  EXPECT_EQ(start_mode_from_name("staggered"), StartMode::staggered);
  EXPECT_EQ(distribution_from_name("uniform"), LatencyDistribution::uniform);
  EXPECT_FALSE(start_mode_from_name("Together").has_value());
}

}  // namespace
