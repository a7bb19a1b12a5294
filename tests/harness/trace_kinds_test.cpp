// A property reads only the trace events of the kinds it lists (TraceSink::kinds). This checks the
// lists are complete: the same runs, once with every property handed every event, must judge the
// same, violation for violation. Runs of each recipe, clean and with each bug switch, so that every
// property sees runs that violate it and runs that do not.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "harness/explore.h"
#include "harness/registry.h"
#include "harness/swarm.h"

namespace {

using harness::ExploreOptions;
using harness::Recipe;

constexpr std::uint64_t runs_per_case = 8;

struct Case {
  Recipe recipe;
  std::string bug;  // empty: the clean recipe
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (Recipe recipe : {Recipe::none, Recipe::leader_latch, Recipe::leader_selector, Recipe::naive_master, Recipe::elasticjob, Recipe::es_zen}) {
    all.push_back(Case{recipe, ""});
  }
  for (const harness::Entry& bug : harness::bug_switches()) {
    std::optional<Recipe> recipe = harness::recipe_for_bug(bug.name);
    EXPECT_TRUE(recipe.has_value()) << bug.name;
    if (recipe) all.push_back(Case{*recipe, std::string(bug.name)});
  }
  return all;
}

std::string describe(const harness::RunResult& result) {
  std::string text = "trace " + std::to_string(result.trace_hash) + ", " + std::to_string(result.events) + " events\n";
  for (const auto& [property, verdict] : result.properties) text += property + ": " + std::string(properties::verdict_name(verdict)) + "\n";
  for (const properties::Violation& violation : result.violations) {
    text += violation.property + " at " + std::to_string(sim::nanos(violation.time)) + ": " + violation.message + "\n";
  }
  return text;
}

TEST(TraceKinds, EveryPropertyJudgesTheSameWhenHandedEveryEvent) {
  std::uint64_t violations_seen = 0;
  for (const Case& test : cases()) {
    ExploreOptions options;
    options.swarm.recipe = test.recipe;
    if (!test.bug.empty()) options.swarm.bugs = {test.bug};
    options.out_dir = "";
    for (std::uint64_t seed = 1; seed <= runs_per_case; seed++) {
      options.test_hook = nullptr;
      harness::ExploreRun filtered = harness::explore_one(options, seed);
      options.test_hook = [](sim::Simulation& sim) { sim.trace().deliver_every_kind(true); };
      harness::ExploreRun every = harness::explore_one(options, seed);
      ASSERT_EQ(describe(filtered.result), describe(every.result))
          << "recipe " << harness::recipe_name(test.recipe) << ", bug '" << test.bug << "', seed " << seed;
      violations_seen += filtered.result.violations.size();
    }
  }
  // The comparison means something only if properties were violated along the way.
  EXPECT_GT(violations_seen, 20u);
  std::cout << violations_seen << " violations judged the same both ways\n";
}

}  // namespace
