#include "harness/recipe.h"

#include "harness/cluster.h"
#include "harness/recipes.h"

namespace harness {

void RecipeDriver::startInstance(Cluster& cluster, const std::string& name) { cluster.node(name).start(); }

bool RecipeDriver::applyFault(Cluster&, const Fault&) { return false; }

std::unique_ptr<properties::Property> RecipeDriver::makeProperty(std::string_view, Cluster&) { return nullptr; }

bool RecipeDriver::hasCandidates(Cluster&) const { return true; }

sim::Duration RecipeDriver::leaderBound(const Scenario&) const { return sim::Duration::zero(); }

void RecipeDriver::reportFinal(Cluster&, nlohmann::ordered_json&) const {}

sim::Duration zookeeper_leader_bound(const Scenario& scenario, std::optional<sim::Duration> backoff) {
  const ZooKeeperConfig& zk = scenario.zookeeper;
  return backoff.value_or(zk::QuorumPeerConfig{}.max_notification_interval) + (zk.init_limit + zk.sync_limit + 2) * zk.tick_time;
}

sim::Duration zookeeper_client_bound(const Scenario& scenario) {
  sim::Duration session_timeout = scenario.clients.session_timeout;
  sim::Duration expiry = session_timeout + 2 * scenario.zookeeper.tick_time;
  sim::Duration reconnect = session_timeout / scenario.zookeeper.servers + 2s;
  return std::max(expiry, reconnect) + 1s;
}

std::unique_ptr<RecipeDriver> makeRecipeDriver(const Scenario& scenario) {
  switch (scenario.recipe) {
    case Recipe::none: return makeZooKeeperRecipe();
    case Recipe::elasticjob: return makeElasticJobRecipe();
    case Recipe::leader_latch: return makeLeaderLatchRecipe();
    case Recipe::leader_selector: return makeLeaderSelectorRecipe();
    case Recipe::es_zen: return makeEsRecipe();
    case Recipe::naive_master: return makeNaiveRecipe();
  }
  throw std::runtime_error("recipe " + std::string(recipe_name(scenario.recipe)) + " is not available in this build yet");
}

}  // namespace harness
