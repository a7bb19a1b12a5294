// The catalogue of names a scenario file may use: bug switches, properties, recipes and sharding
// strategies, each with a one-line summary. The parser validates against it and `electsim bugs`,
// `electsim properties` and `electsim strategies` print it.
//
// The lists are the contract's names; the models and checkers that implement them live elsewhere.
// strategy_names() is a stand-in until the strategy library's own registry is wired in: keep the two
// in step (a test there should compare them).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/scenario.h"

namespace harness {

struct Entry {
  std::string_view name;
  std::string_view summary;
};

// Switches that re-introduce a known mistake into a model; each summary names its origin.
const std::vector<Entry>& bug_switches();
// Properties a run can judge (docs/ defines each precisely).
const std::vector<Entry>& properties();
// Recipes, under their file spelling (`recipe:`).
const std::vector<Entry>& recipes();
// Sharding strategies, for validating a job's `strategy:`.
const std::vector<Entry>& strategy_names();

bool is_known_bug(std::string_view name);
// Whether `recipe` runs the code the (known) bug switch changes: ZooKeeper's switches (fle-, zab-,
// zk-) every recipe but es-zen, Curator's (latch-, curator-) leader-latch and leader-selector,
// ElasticJob's elasticjob, naive- naive-master, es- es-zen. A switch of another recipe would be
// accepted and change nothing, so files and explore refuse it.
bool bug_applies_to(std::string_view bug, Recipe recipe);
// The recipes it applies to, for that message: "leader-latch and leader-selector".
std::string bug_recipes(std::string_view bug);
bool is_known_property(std::string_view name);
// Whether a run of `recipe` can judge the (known) property: the ZooKeeper-level ones need an
// ensemble, the recipe-level ones their recipe. Elsewhere it would be "not judged": a vacuous pass.
bool property_applies_to(std::string_view property, Recipe recipe);
std::string property_recipes(std::string_view property);  // "leader-latch and leader-selector"
bool is_known_recipe(std::string_view name);
bool is_known_strategy(std::string_view name);

}  // namespace harness
