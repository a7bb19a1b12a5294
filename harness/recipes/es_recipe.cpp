// Recipe es-zen: Elasticsearch's Zen1 discovery and cluster-state publication (source 004), no
// ZooKeeper. Its real system promises one master, one content per cluster-state version, and a
// master everyone follows once faults heal.
#include <nlohmann/json.hpp>

#include "harness/cluster.h"
#include "harness/recipes.h"
#include "model/es/EsCluster.h"
#include "properties/es_eventual_master.h"
#include "properties/es_single_master.h"
#include "properties/es_state_agreement.h"
#include "properties/es_task_order.h"

namespace harness {

namespace {

es::EsConfig esConfig(const Scenario& scenario) {
  const ElasticsearchConfig& source = *scenario.elasticsearch;
  es::EsConfig config;
  config.nodes = static_cast<std::size_t>(source.nodes);
  config.minimum_master_nodes = source.minimum_master_nodes;
  config.ping_timeout = source.ping_timeout;
  config.commit_timeout = source.commit_timeout;
  config.publish_timeout = source.publish_timeout;
  config.fd_ping_interval = source.fd_ping_interval;
  config.fd_ping_timeout = source.fd_ping_timeout;
  config.fd_ping_retries = source.fd_ping_retries;
  config.cluster_tasks.rate = source.cluster_tasks.rate;
  config.cluster_tasks.priorities.clear();
  for (EsPriority priority : source.cluster_tasks.priorities) {
    config.cluster_tasks.priorities.push_back(static_cast<es::Priority>(static_cast<std::uint8_t>(priority)));
  }
  config.cluster_tasks.sharedExecutor = source.cluster_tasks.executor == EsTaskExecutor::shared;
  for (const std::string& bug : scenario.bugs) config.bugs.enable(bug);
  config.validate();
  return config;
}

class EsRecipe final : public RecipeDriver {
 public:
  void build(Cluster& cluster) override {
    es_ = std::make_unique<es::EsCluster>(cluster.sim(), esConfig(cluster.scenario()));
    for (std::size_t number = 1; number <= es_->size(); number++) {
      es::EsNode& node = es_->node(number);
      cluster.registerNode(node.name(), node);
    }
  }
  std::vector<std::string> promisedProperties() const override {
    return {"es-single-master", "es-state-agreement", "es-eventual-master", "es-task-order"};
  }
  std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster) override {
    sim::Simulation& sim = cluster.sim();
    if (name == "es-single-master") return std::make_unique<properties::EsSingleMaster>(sim);
    if (name == "es-state-agreement") return std::make_unique<properties::EsStateAgreement>(sim);
    if (name == "es-task-order") return std::make_unique<properties::EsTaskOrder>(sim);
    if (name == "es-eventual-master") {
      return std::make_unique<properties::EsEventualMaster>(sim, es_->nodeIds(), es_->config().stabilisationTime());
    }
    return nullptr;
  }
  std::optional<std::string> leaderNow(Cluster& cluster) const override {
    std::optional<sim::NodeId> master = es_->stableMaster();
    if (!master) return std::nullopt;
    return cluster.sim().node(*master).name();
  }
  // Called before build() too (swarm sizes its liveness tail from it): computed from the scenario,
  // not from the cluster.
  sim::Duration leaderBound(const Scenario& scenario) const override { return esConfig(scenario).stabilisationTime(); }
  void reportFinal(Cluster& cluster, nlohmann::ordered_json& final) const override {
    nlohmann::ordered_json elasticsearch;
    std::optional<sim::NodeId> master = es_->stableMaster();
    elasticsearch["master"] = master ? nlohmann::ordered_json(cluster.sim().node(*master).name()) : nlohmann::ordered_json(nullptr);
    nlohmann::ordered_json masters = nlohmann::ordered_json::array();
    for (sim::NodeId id : es_->masters()) masters.push_back(cluster.sim().node(id).name());
    elasticsearch["masters"] = masters;
    // MasterService over the run, all nodes and incarnations together.
    es::MasterServiceStats stats;
    for (std::size_t number = 1; number <= es_->size(); number++) stats += es_->node(number).masterServiceStats();
    nlohmann::ordered_json masterService;
    masterService["tasks_submitted"] = stats.tasksSubmitted();
    masterService["batches"] = stats.batches;
    masterService["tasks_run"] = stats.tasksRun();
    masterService["largest_batch"] = stats.largestBatch;
    masterService["publications"] = stats.publications;
    masterService["failed_publications"] = stats.failedPublications;
    // Per priority that had tasks: how many were submitted and run, and the longest wait in the
    // queue of one that ran (to the millisecond: the trace has the exact times).
    nlohmann::ordered_json byPriority = nlohmann::ordered_json::object();
    for (std::uint8_t priority = 0; priority < es::priority_count; priority++) {
      if (stats.tasksSubmittedByPriority[priority] == 0) continue;
      nlohmann::ordered_json figures;
      figures["submitted"] = stats.tasksSubmittedByPriority[priority];
      figures["run"] = stats.tasksRunByPriority[priority];
      sim::Duration wait = std::chrono::round<std::chrono::milliseconds>(stats.longestWait[priority]);
      figures["longest_wait"] = sim::format_duration(wait);
      byPriority[std::string(es::priorityName(static_cast<es::Priority>(priority)))] = figures;
    }
    masterService["by_priority"] = byPriority;
    std::uint64_t heldBack = 0;
    for (std::size_t number = 1; number <= es_->size(); number++) heldBack += es_->node(number).workloadTasksHeldBack();
    // Only when it happened: the workload asked for more than publication carried.
    if (heldBack > 0) masterService["tasks_held_back"] = heldBack;
    elasticsearch["master_service"] = masterService;
    final["elasticsearch"] = elasticsearch;
  }

 private:
  std::unique_ptr<es::EsCluster> es_;
};

}  // namespace

std::unique_ptr<RecipeDriver> makeEsRecipe() { return std::make_unique<EsRecipe>(); }

}  // namespace harness
