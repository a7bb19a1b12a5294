// Recipe elasticjob: ElasticJob-Lite 3.0.4 (model/elasticjob), sources 000 and 001. Instances i1..iN
// each run one application (ElasticJobInstance) with every job of the scenario; the operator's
// actions (disable, enable, set_sharding_total_count) go through a console process ("console",
// started with the first of them); `shutdown` is the application's graceful stop.
//
// ElasticJob promises one leader per job (job-single-leader), that every item is eventually owned
// and run once per fire (full-coverage), and a leader again after faults (eventual-leader). It does
// not promise that an item never runs twice during a partition or a pause (no-double-execution):
// its maintainers ask for idempotent jobs (#114, #507, #1549).
#include <algorithm>
#include <nlohmann/json.hpp>

#include "harness/cluster.h"
#include "harness/platform.h"
#include "harness/recipes.h"
#include "model/elasticjob/ElasticJobConsole.h"
#include "model/elasticjob/ElasticJobInstance.h"
#include "model/elasticjob/InstanceService.h"
#include "model/zk/Ensemble.h"
#include "properties/elasticjob_properties.h"

namespace harness {

namespace {

constexpr std::string_view name_space = "electsim";

elasticjob::JobSettings job_settings(const JobConfig& job) {
  elasticjob::JobSettings settings;
  settings.config.jobName = job.name;
  settings.config.fireInterval = job.fire_interval;
  settings.config.shardingTotalCount = job.sharding_total_count;
  settings.config.monitorExecution = job.monitor_execution;
  const elasticjob::JobShardingStrategy* strategy = elasticjob::findStrategy(job.strategy);
  ELECTSIM_ASSERT_MSG(strategy != nullptr, "unknown strategy " + job.strategy);
  // ElasticJob's own strategies by their SPI type, electsim's by name (ShardingService.getStrategy).
  settings.config.jobShardingStrategyType = strategy->javaType().empty() ? std::string(strategy->name()) : std::string(strategy->javaType());
  settings.executionTime = elasticjob::ExecutionTime(job.execution_time_min, job.execution_time_max);
  return settings;
}

class ElasticJobRecipe final : public RecipeDriver {
 public:
  void build(Cluster& cluster) override {
    const Scenario& scenario = cluster.scenario();
    elasticjob::ZookeeperConfiguration zookeeper;
    zookeeper.serverLists = cluster.zookeeperServers();
    zookeeper.nameSpace = std::string(name_space);
    zookeeper.sessionTimeoutMilliseconds = scenario.clients.session_timeout;
    zookeeper.zookeeperFactory = cluster.zookeeperFactory();
    elasticjob::ElasticJobInstanceConfig config;
    config.zookeeper = zookeeper;
    for (const JobConfig& job : scenario.jobs) config.jobs.push_back(job_settings(job));
    config.bugs.no_has_leader_check = cluster.hasBug("ej-no-has-leader-check");
    config.bugs.any_node_sets_resharding_flag = cluster.hasBug("ej-any-node-sets-resharding-flag");
    for (int number = 1; number <= scenario.instances.count; number++) {
      std::string name = instance_name(number);
      config.jobInstanceId = instance_id(scenario, number);
      auto& instance = cluster.sim().add_node<elasticjob::ElasticJobInstance>(name, config);
      cluster.registerNode(name, instance);
      instances_.push_back(&instance);
    }
    console_ = &cluster.sim().add_node<elasticjob::ElasticJobConsole>("console", zookeeper);
    cluster.registerNode("console", *console_);
  }

  bool applyFault(Cluster& cluster, const Fault& fault) override {
    switch (fault.kind) {
      case FaultKind::disable:
      case FaultKind::enable: {
        std::string ip(elasticjob::JobInstance(instance(cluster, fault.node).jobInstanceId()).getServerIp());
        if (fault.kind == FaultKind::disable) {
          console_->disable(ip);
        } else {
          console_->enable(ip);
        }
        return true;
      }
      case FaultKind::shutdown: instance(cluster, fault.node).shutdown(); return true;
      case FaultKind::set_sharding_total_count: console_->setShardingTotalCount(fault.job, fault.value); return true;
      default: return false;
    }
  }

  std::vector<std::string> promisedProperties() const override { return {"job-single-leader", "full-coverage", "eventual-leader"}; }

  std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster) override {
    if (name == "job-single-leader") return std::make_unique<properties::JobSingleLeader>(cluster.sim(), "/" + std::string(name_space));
    if (name == "no-double-execution") return std::make_unique<properties::NoDoubleExecution>(cluster.sim());
    if (name == "full-coverage") {
      std::vector<properties::CoverageJob> jobs;
      for (const JobConfig& job : cluster.scenario().jobs) jobs.push_back(properties::CoverageJob{job.name, job.fire_interval});
      return std::make_unique<properties::FullCoverage>(cluster.sim(), std::move(jobs), settleSoft(cluster.scenario()), settleHard(cluster.scenario()),
                                                        [this, &cluster](const std::string& job) { return coverageSnapshot(cluster, job); });
    }
    return nullptr;
  }

  // One leader per job: for every job, exactly one instance that is up, runs the job and believes it
  // leads (isLeader()), and it is the instance the committed leader/election/instance names.
  std::optional<std::string> leaderNow(Cluster& cluster) const override {
    const zk::DataTree* tree = committedTree(cluster);
    if (tree == nullptr) return std::nullopt;
    std::string description;
    for (const JobConfig& job : cluster.scenario().jobs) {
      elasticjob::ElasticJobInstance* leader = nullptr;
      for (elasticjob::ElasticJobInstance* instance : instances_) {
        if (!instance->jobActive(job.name) || !instance->believesLeader(job.name)) continue;
        if (leader != nullptr) return std::nullopt;
        leader = instance;
      }
      if (leader == nullptr) return std::nullopt;
      std::optional<std::string> committed = data(*tree, job.name + "/leader/election/instance");
      if (committed != leader->jobInstanceId()) return std::nullopt;
      description += (description.empty() ? "" : ", ") + job.name + ": " + leader->name();
    }
    return description;
  }

  // A leader is owed only while every job has an instance that runs it, is not shutting down (a
  // graceful shutdown removes the job for good; a crashed instance may be restarted) and whose
  // server is ENABLED: LeaderService.electLeader only runs where isAvailableServer holds, and the
  // operator's disable lasts until an enable.
  bool hasCandidates(Cluster& cluster) const override {
    const zk::DataTree* tree = committedTree(cluster);
    for (const JobConfig& job : cluster.scenario().jobs) {
      bool candidate = std::any_of(instances_.begin(), instances_.end(), [&job, tree](elasticjob::ElasticJobInstance* instance) {
        if (!instance->jobActive(job.name) || instance->shuttingDown()) return false;
        std::string ip(elasticjob::JobInstance(instance->jobInstanceId()).getServerIp());
        return tree == nullptr || data(*tree, job.name + "/servers/" + ip) != "DISABLED";
      });
      if (!candidate) return false;
    }
    return true;
  }

  // Once ZooKeeper serves: the clients' bound (a dead leader's session expires; a cut-off instance
  // reconnects), Curator's retry sleeps (at most 3 s each, 3 retries: ExponentialBackoffRetry(1000, 3, 3000), on
  // top of the connection wait the clients' bound covers), then ElasticJob's own: the passive
  // election's isAvailableServer may wait 1 s (isEnableServer), the RECONNECTED handler another
  // 1 s before re-persisting, and isLeaderUntilBlock polls every 100 ms.
  sim::Duration leaderBound(const Scenario& scenario) const override { return zookeeper_client_bound(scenario) + 9s + 3s; }

  // final.jobs: what the committed znodes say, every instance present.
  void reportFinal(Cluster& cluster, nlohmann::ordered_json& final) const override {
    nlohmann::ordered_json jobs = nlohmann::ordered_json::object();
    const zk::DataTree* tree = committedTree(cluster);
    for (const JobConfig& job : cluster.scenario().jobs) {
      nlohmann::ordered_json report;
      std::optional<std::string> leader = tree ? data(*tree, job.name + "/leader/election/instance") : std::nullopt;
      report["leader"] = leader ? nlohmann::ordered_json(*leader) : nlohmann::ordered_json(nullptr);
      // Every instance, in the order ElasticJob lists them (descending id), then owners that are not
      // instances of the scenario.
      std::vector<std::string> ids;
      for (elasticjob::ElasticJobInstance* instance : instances_) ids.push_back(instance->jobInstanceId());
      std::sort(ids.begin(), ids.end(), std::greater<>());
      std::map<std::string, std::vector<int>> owned;
      if (tree != nullptr) {
        for (const auto& [item, owner] : owners(*tree, job.name)) {
          owned[owner].push_back(item);
          if (std::find(ids.begin(), ids.end(), owner) == ids.end()) ids.push_back(owner);
        }
      }
      nlohmann::ordered_json sharding = nlohmann::ordered_json::object();
      for (const std::string& id : ids) sharding[id] = owned[id];
      report["sharding"] = sharding;
      jobs[job.name] = report;
    }
    final["jobs"] = jobs;
  }

 private:
  static elasticjob::ElasticJobInstance& instance(Cluster& cluster, const std::string& name) {
    auto* found = dynamic_cast<elasticjob::ElasticJobInstance*>(&cluster.node(name));
    ELECTSIM_ASSERT_MSG(found != nullptr, name + " is not an ElasticJob instance");
    return *found;
  }

  // The tree of the serving leader, else of the up server that has applied the most.
  static const zk::DataTree* committedTree(Cluster& cluster) {
    zk::Ensemble* ensemble = cluster.ensemble();
    if (ensemble == nullptr) return cluster.platform() != nullptr ? cluster.platform()->readTree("/" + std::string(name_space)) : nullptr;
    if (std::optional<zk::ServerId> leader = ensemble->leader()) return &ensemble->server(*leader).getZkDb().getDataTree();
    const zk::DataTree* best = nullptr;
    for (zk::ServerId sid = 1; sid <= static_cast<zk::ServerId>(ensemble->size()); sid++) {
      zk::QuorumPeer& server = ensemble->server(sid);
      if (!server.up()) continue;
      const zk::DataTree& tree = server.getZkDb().getDataTree();
      if (best == nullptr || tree.getLastProcessedZxid() > best->getLastProcessedZxid()) best = &tree;
    }
    return best;
  }

  static std::optional<std::string> data(const zk::DataTree& tree, const std::string& relative) {
    const zk::DataNode* node = tree.getNode("/" + std::string(name_space) + "/" + relative);
    if (node == nullptr) return std::nullopt;
    return node->data;
  }

  // sharding/{i}/instance for every item node there is.
  static std::map<int, std::string> owners(const zk::DataTree& tree, const std::string& job) {
    std::map<int, std::string> result;
    const zk::DataNode* sharding = tree.getNode("/" + std::string(name_space) + "/" + job + "/sharding");
    if (sharding == nullptr) return result;
    for (const std::string& child : sharding->children) {
      if (child.empty() || !std::all_of(child.begin(), child.end(), [](char c) { return c >= '0' && c <= '9'; }) || child.size() > 6) continue;
      std::optional<std::string> owner = data(tree, job + "/sharding/" + child + "/instance");
      if (owner) result.emplace(std::stoi(child), *owner);
    }
    return result;
  }

  std::optional<properties::JobCoverageSnapshot> coverageSnapshot(Cluster& cluster, const std::string& job) const {
    properties::JobCoverageSnapshot snapshot;
    snapshot.zookeeperServing = cluster.zookeeperLeader().has_value();
    if (!snapshot.zookeeperServing) return snapshot;
    const zk::DataTree* read = committedTree(cluster);
    if (read == nullptr) {  // live mode: the tree could not be read now
      snapshot.zookeeperServing = false;
      return snapshot;
    }
    const zk::DataTree& tree = *read;
    std::optional<std::string> config = data(tree, job + "/config");
    if (!config) return std::nullopt;
    std::optional<elasticjob::JobConfiguration> parsed = elasticjob::JobConfiguration::unmarshal(*config);
    if (!parsed) return std::nullopt;
    snapshot.shardingTotalCount = parsed->shardingTotalCount;
    snapshot.owners = owners(tree, job);
    for (elasticjob::ElasticJobInstance* instance : instances_) {
      if (!instance->jobActive(job) || instance->paused()) continue;
      const std::string& id = instance->jobInstanceId();
      std::string ip(elasticjob::JobInstance(id).getServerIp());
      if (!data(tree, job + "/instances/" + id)) continue;
      if (data(tree, job + "/servers/" + ip) != "ENABLED") continue;
      snapshot.liveEnabledInstances.insert(id);
    }
    return snapshot;
  }

  // How long after a membership change that needs no timeout to be seen (a start, a graceful
  // shutdown, disable, enable, a new sharding count) fires must be whole: the change's own work (a
  // graceful leader first finishes its running execution: one execution time; the listeners and
  // isEnableServer's retries: 2 s), then the leader, flagged, reshards at the next fire, so the
  // fire one interval after that is the first that must be whole.
  static sim::Duration settleSoft(const Scenario& scenario) {
    sim::Duration interval{0};
    sim::Duration execution{0};
    for (const JobConfig& job : scenario.jobs) {
      interval = std::max(interval, job.fire_interval);
      execution = std::max(execution, job.execution_time_max);
    }
    return 2s + interval + execution;
  }
  // After any other disturbance, first the clients' bound (a dead owner's session expires; a
  // cut-off instance is back) and Curator's retry sleeps (three of at most 3 s), then as above.
  static sim::Duration settleHard(const Scenario& scenario) { return zookeeper_client_bound(scenario) + 9s + settleSoft(scenario); }

  std::vector<elasticjob::ElasticJobInstance*> instances_;
  elasticjob::ElasticJobConsole* console_ = nullptr;
};

}  // namespace

std::unique_ptr<RecipeDriver> makeElasticJobRecipe() { return std::make_unique<ElasticJobRecipe>(); }

}  // namespace harness
