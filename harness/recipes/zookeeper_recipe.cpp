// Recipe none: the ensemble alone (and the workload's clients). Its real system promises Zab's
// safety, clean ephemerals, one-shot watches, and a leader once faults stop.
#include <nlohmann/json.hpp>

#include "harness/cluster.h"
#include "harness/recipes.h"

namespace harness {

namespace {

class ZooKeeperRecipe final : public RecipeDriver {
 public:
  void build(Cluster&) override {}
  std::vector<std::string> promisedProperties() const override {
    return {"zab-single-leader", "zab-agreement",      "zab-committed-durability", "zab-history-consistency", "zab-monotonic-reads",
            "zab-protocol-errors", "ephemeral-cleanup", "watch-once",               "eventual-leader"};
  }
  std::optional<std::string> leaderNow(Cluster& cluster) const override {
    // The simulated ensemble's leader, or in live mode the one the real servers report (srvr).
    std::optional<zk::ServerId> leader = cluster.zookeeperLeader();
    if (!leader) return std::nullopt;
    return "zk" + std::to_string(*leader);
  }
};

}  // namespace

std::unique_ptr<RecipeDriver> makeZooKeeperRecipe() { return std::make_unique<ZooKeeperRecipe>(); }

}  // namespace harness
