#include "harness/recipe.h"

#include "harness/cluster.h"
#include "harness/recipes.h"

namespace harness {

void RecipeDriver::startInstance(Cluster& cluster, const std::string& name) { cluster.node(name).start(); }

bool RecipeDriver::applyFault(Cluster&, const Fault&) { return false; }

std::unique_ptr<properties::Property> RecipeDriver::makeProperty(std::string_view, Cluster&) { return nullptr; }

sim::Duration RecipeDriver::leaderBound(const Scenario& scenario) const { return zookeeper_leader_bound(scenario); }

void RecipeDriver::reportFinal(Cluster&, nlohmann::ordered_json&) const {}

sim::Duration zookeeper_leader_bound(const Scenario& scenario) {
  const ZooKeeperConfig& zk = scenario.zookeeper;
  return zk::QuorumPeerConfig{}.max_notification_interval + (zk.init_limit + zk.sync_limit + 2) * zk.tick_time;
}

std::unique_ptr<RecipeDriver> makeRecipeDriver(const Scenario& scenario) {
  switch (scenario.recipe) {
    case Recipe::none: return makeZooKeeperRecipe();
    case Recipe::elasticjob:
    case Recipe::leader_latch:
    case Recipe::leader_selector:
    case Recipe::es_zen: return makeEsRecipe();
    case Recipe::naive_master: return makeNaiveRecipe();
  }
  throw std::runtime_error("recipe " + std::string(recipe_name(scenario.recipe)) + " is not available in this build yet");
}

}  // namespace harness
