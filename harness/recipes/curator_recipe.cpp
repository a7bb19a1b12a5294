// Recipes leader-latch and leader-selector: source 003's Curator recipes (model/curator), one
// contender per instance i1..iN on the latch path /electsim/latch. Curator promises one leader at a
// time among contenders that are connected (latch-single-leader), a leader again once faults heal
// (eventual-leader), and no herd: each contender watches only its predecessor (latch-no-herd).
#include <nlohmann/json.hpp>
#include <algorithm>
#include <type_traits>

#include "harness/cluster.h"
#include "harness/recipes.h"
#include "model/curator/LeaderLatchInstance.h"
#include "model/curator/LeaderSelectorInstance.h"
#include "properties/curator_properties.h"
#include "properties/latch_no_herd.h"
#include "sim/time.h"

namespace harness {

namespace {

curator::CuratorBugs curator_bugs(const Cluster& cluster) {
  curator::CuratorBugs bugs;
  bugs.latch_ignores_connection_loss = cluster.hasBug("latch-ignores-connection-loss");
  bugs.latch_watches_parent = cluster.hasBug("latch-watches-parent");
  bugs.latch_unprotected_create = cluster.hasBug("latch-unprotected-create");
  bugs.curator_696_no_owner_check = cluster.hasBug("curator-696-no-owner-check");
  return bugs;
}

// Contender is LeaderLatchInstance or LeaderSelectorInstance: both take the same constructor
// arguments, and both offer hasLeadership(), participantId() and shutdown().
template <class Contender>
class CuratorRecipe final : public RecipeDriver {
 public:
  explicit CuratorRecipe(std::string_view report_key) : report_key_(report_key) {}

  void build(Cluster& cluster) override {
    const Scenario& scenario = cluster.scenario();
    curator::CuratorBugs bugs = curator_bugs(cluster);
    for (int number = 1; number <= scenario.instances.count; number++) {
      std::string name = "i" + std::to_string(number);
      auto& contender = cluster.sim().add_node<Contender>(name, instance_id(scenario, number), cluster.zookeeperServers(),
                                                          scenario.clients.session_timeout, bugs, std::string(latch_path));
      contender.config().zookeeperFactory = cluster.zookeeperFactory();
      cluster.registerNode(name, contender);
      contenders_.push_back(&contender);
    }
  }

  bool applyFault(Cluster& cluster, const Fault& fault) override {
    if (fault.kind != FaultKind::shutdown) return false;
    auto* contender = dynamic_cast<Contender*>(&cluster.node(fault.node));
    ELECTSIM_ASSERT(contender != nullptr);
    contender->shutdown();
    return true;
  }

  std::vector<std::string> promisedProperties() const override { return {"latch-single-leader", "latch-no-herd", "eventual-leader"}; }

  std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster) override {
    if (name == "latch-single-leader") return std::make_unique<properties::LatchSingleLeader>(cluster.sim());
    if (name == "latch-no-herd") return std::make_unique<properties::LatchNoHerd>(cluster.sim(), std::string(latch_path));
    return nullptr;
  }

  // eventual-leader's ground truth: the one contender that believes it leads. LeaderSelector's
  // leadership rotates by design (each contender leads for its hold time, returns from
  // takeLeadership, and the next in the mutex's queue leads a few round trips later: the delete,
  // its NodeDeleted, a getChildren), so an instant inside such a handover has no leader although
  // the election is live. Then a contender that completed its turn within handover_allowance
  // stands for the leader. An election that stalls still fails: no turn completes without a next
  // leader for longer than the allowance, and interrupted turns do not count.
  std::optional<std::string> leaderNow([[maybe_unused]] Cluster& cluster) const override {
    std::optional<std::string> leader = believedLeader();
    if (leader) return leader;
    if constexpr (std::is_same_v<Contender, curator::LeaderSelectorInstance>) {
      if (believers() > 0) return std::nullopt;  // two or more
      sim::Instant now = cluster.sim().now();
      for (Contender* contender : contenders_) {
        std::optional<sim::Instant> turn_end = contender->up() ? contender->lastTurnCompleted() : std::nullopt;
        if (turn_end && now - *turn_end <= handover_allowance) {
          return contender->name() + " (handing over: its turn ended " + sim::format_duration(now - *turn_end) + " ago)";
        }
      }
    }
    return leader;
  }

  bool hasCandidates(Cluster&) const override {
    return std::any_of(contenders_.begin(), contenders_.end(), [](Contender* contender) { return contender->up(); });
  }

  // Once ZooKeeper serves: the clients' bound (zookeeper_client_bound), plus Curator's retry sleeps
  // of at most 1 + 3 + 7 s (ExponentialBackoffRetry(1000, 3)) for an operation caught in the fault.
  sim::Duration leaderBound(const Scenario& scenario) const override { return zookeeper_client_bound(scenario) + 11s; }

  void reportFinal(Cluster&, nlohmann::ordered_json& final) const override {
    std::optional<std::string> leader = believedLeader();
    nlohmann::ordered_json report;
    report["path"] = latch_path;
    report["leader"] = leader ? nlohmann::ordered_json(*leader) : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json believers = nlohmann::ordered_json::array();
    for (Contender* contender : contenders_) {
      if (contender->up() && contender->hasLeadership()) believers.push_back(contender->name());
    }
    report["believers"] = believers;
    if constexpr (std::is_same_v<Contender, curator::LeaderLatchInstance>) {
      // The herd effect in one number: watch notifications every latch received (source 003).
      std::uint64_t notifications = 0;
      for (Contender* contender : contenders_) notifications += contender->watchNotificationsTotal();
      report["watch_notifications"] = notifications;
    }
    final[report_key_] = report;
  }

 private:
  // The one live contender that believes it leads; nothing if none, or several.
  std::optional<std::string> believedLeader() const {
    std::optional<std::string> leader;
    for (Contender* contender : contenders_) {
      if (!contender->up() || !contender->hasLeadership()) continue;
      if (leader) return std::nullopt;
      leader = contender->name();
    }
    return leader;
  }
  std::size_t believers() const {
    return static_cast<std::size_t>(
        std::count_if(contenders_.begin(), contenders_.end(), [](Contender* contender) { return contender->up() && contender->hasLeadership(); }));
  }

  static constexpr std::string_view latch_path = "/electsim/latch";
  // A handover between LeaderSelector turns takes a few round trips (tens of milliseconds at the
  // swarm's latencies); a second is far more than that and far less than a turn (5 s).
  static constexpr sim::Duration handover_allowance = std::chrono::seconds(1);
  std::string report_key_;
  std::vector<Contender*> contenders_;
};

}  // namespace

std::unique_ptr<RecipeDriver> makeLeaderLatchRecipe() { return std::make_unique<CuratorRecipe<curator::LeaderLatchInstance>>("latch"); }
std::unique_ptr<RecipeDriver> makeLeaderSelectorRecipe() {
  return std::make_unique<CuratorRecipe<curator::LeaderSelectorInstance>>("selector");
}

}  // namespace harness
