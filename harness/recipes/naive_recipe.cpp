// Recipe naive-master: source 002's master election on an ephemeral /master (model/naive). Its
// demo promises that masters do not churn: the anti-jitter delay hands mastership back to the last
// master after a release or a jitter.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness/cluster.h"
#include "harness/recipes.h"
#include "model/naive/WorkServer.h"
#include "properties/naive_properties.h"

namespace harness {

namespace {

class NaiveRecipe final : public RecipeDriver {
 public:
  void build(Cluster& cluster) override {
    const Scenario& scenario = cluster.scenario();
    naive::WorkServerConfig config;
    config.servers = cluster.zookeeperServers();
    config.session_timeout = scenario.clients.session_timeout;
    config.anti_jitter = !cluster.hasBug("naive-no-anti-jitter");
    for (int number = 1; number <= scenario.instances.count; number++) {
      std::string name = "i" + std::to_string(number);
      auto& server = cluster.sim().add_node<naive::WorkServer>(name, number, config);
      cluster.registerNode(name, server);
      servers_.push_back(&server);
    }
  }
  bool hasCandidates(Cluster&) const override {
    return std::any_of(servers_.begin(), servers_.end(), [](naive::WorkServer* server) { return server->up(); });
  }
  // Once ZooKeeper serves: the clients' bound, plus the anti-jitter delay before others race.
  sim::Duration leaderBound(const Scenario& scenario) const override {
    return zookeeper_client_bound(scenario) + naive::WorkServerConfig{}.anti_jitter_delay;
  }
  std::vector<std::string> promisedProperties() const override { return {"naive-master-stable", "eventual-leader"}; }
  std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster) override {
    if (name == "naive-master-stable") return std::make_unique<properties::NaiveMasterStable>(cluster.sim());
    return nullptr;
  }
  std::optional<std::string> leaderNow(Cluster&) const override {
    std::optional<std::string> master;
    for (naive::WorkServer* server : servers_) {
      if (!server->up() || !server->isMaster()) continue;
      if (master) return std::nullopt;
      master = server->name();
    }
    return master;
  }
  void reportFinal(Cluster& cluster, nlohmann::ordered_json& final) const override {
    std::optional<std::string> master = leaderNow(cluster);
    final["naive"] = {{"master", master ? nlohmann::ordered_json(*master) : nlohmann::ordered_json(nullptr)}};
  }

 private:
  std::vector<naive::WorkServer*> servers_;
};

}  // namespace

std::unique_ptr<RecipeDriver> makeNaiveRecipe() { return std::make_unique<NaiveRecipe>(); }

}  // namespace harness
