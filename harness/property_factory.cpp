#include "harness/property_factory.h"

#include "harness/cluster.h"
#include "properties/eventual_leader.h"
#include "properties/zab_properties.h"
#include "properties/zookeeper_hygiene.h"

namespace harness {

std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster, RecipeDriver& driver) {
  sim::Simulation& sim = cluster.sim();
  if (auto recipe_level = driver.makeProperty(name, cluster)) return recipe_level;
  if (name == "eventual-leader") return std::make_unique<properties::EventualLeader>(sim, driver.leaderBound(cluster.scenario()));
  if (cluster.ensemble() == nullptr) return nullptr;
  if (name == "zab-single-leader") return std::make_unique<properties::ZabSingleLeader>(sim);
  if (name == "zab-agreement") return std::make_unique<properties::ZabAgreement>(sim);
  if (name == "ephemeral-cleanup") return std::make_unique<properties::EphemeralCleanup>(sim);
  if (name == "watch-once") return std::make_unique<properties::WatchOnce>(sim);
  return nullptr;
}

}  // namespace harness
