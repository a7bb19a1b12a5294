// Recipe naive-master: source 002's master election on an ephemeral /master (model/naive). Its
// demo promises that masters do not churn: the anti-jitter delay hands mastership back to the last
// master after a release or a jitter.
#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness/cluster.h"
#include "harness/platform.h"
#include "harness/recipes.h"
#include "model/naive/WorkServer.h"
#include "model/zk/Ensemble.h"
#include "model/zk/quorum/QuorumPeer.h"
#include "sim/time.h"
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
    config.zookeeper_factory = cluster.zookeeperFactory();
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
    if (name == "naive-master-stable") return std::make_unique<properties::NaiveMasterStable>(cluster.sim(), cluster.zookeeperServers());
    return nullptr;
  }
  // eventual-leader's ground truth: the server whose current session owns /master in the serving
  // leader's tree, if it is up and believes it is master. Not "exactly one believer": the demo's
  // masterData can stay stale on a former master for a long time (docs/recipes.md), which changes
  // nothing for the one that holds /master; and a holder may never have seen its create succeed
  // (a create retried after a connection loss finds its own node, and readData names it). The
  // demo's master releases /master every 5 s and takes it back a few round trips later (exists,
  // readData, create), so within handover_allowance of a release an absent /master, or one whose
  // creator has not had the reply yet, still counts as held by the releaser. In live mode the tree is
  // the real one, read through the platform.
  std::optional<std::string> leaderNow(Cluster& cluster) const override {
    std::optional<zk::ServerId> leader = cluster.zookeeperLeader();
    if (!leader) return std::nullopt;
    const zk::DataTree* tree = nullptr;
    if (zk::Ensemble* ensemble = cluster.ensemble()) {
      tree = &ensemble->server(*leader).getZkDb().getDataTree();
    } else {
      ELECTSIM_ASSERT(cluster.platform() != nullptr);
      tree = cluster.platform()->readTree(naive::WorkServer::master_path);  // null: no /master now
    }
    const zk::DataNode* node = tree != nullptr ? tree->getNode(naive::WorkServer::master_path) : nullptr;
    if (node == nullptr) return handingOver(cluster.sim().now());
    for (naive::WorkServer* server : servers_) {
      naive::ZkClient* client = server->up() ? server->zkClient() : nullptr;
      if (client == nullptr || client->sessionId() != node->stat.ephemeral_owner) continue;
      if (!server->isMaster()) return handingOver(cluster.sim().now());  // its create's reply is on the way
      return server->name();
    }
    return std::nullopt;  // an expiring session's node
  }
  void reportFinal(Cluster& cluster, nlohmann::ordered_json& final) const override {
    std::optional<std::string> master = leaderNow(cluster);
    final["naive"] = {{"master", master ? nlohmann::ordered_json(*master) : nlohmann::ordered_json(nullptr)}};
  }

 private:
  // The server that released /master less than handover_allowance ago and is still up.
  std::optional<std::string> handingOver(sim::Instant now) const {
    for (naive::WorkServer* server : servers_) {
      std::optional<sim::Instant> released = server->lastReleased();
      if (server->up() && released && now - *released <= handover_allowance) {
        return server->name() + " (handing over: it released /master " + sim::format_duration(now - *released) + " ago)";
      }
    }
    return std::nullopt;
  }
  // A handover takes three round trips and a commit (tens of milliseconds at the swarm's
  // latencies); a second is far more than that and far less than the 5 s between releases.
  static constexpr sim::Duration handover_allowance = std::chrono::seconds(1);
  std::vector<naive::WorkServer*> servers_;
};

}  // namespace

std::unique_ptr<RecipeDriver> makeNaiveRecipe() { return std::make_unique<NaiveRecipe>(); }

}  // namespace harness
