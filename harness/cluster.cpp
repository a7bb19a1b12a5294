#include "harness/cluster.h"

#include <algorithm>

#include "harness/platform.h"
#include "harness/recipe.h"
#include "harness/trigger_kinds.h"
#include "harness/workload.h"
#include "sim/network.h"

namespace harness {

zk::ZkBugs zookeeper_bugs(const Scenario& scenario) {
  zk::ZkBugs bugs;
  for (const std::string& bug : scenario.bugs) {
    if (bug == "fle-1419-nontotal-order") bugs.fle_1419_nontotal_order = true;
    if (bug == "zab-commit-without-quorum") bugs.zab_commit_without_quorum = true;
    if (bug == "zab-335-epoch-from-zxid") bugs.zab_335_epoch_from_zxid = true;
    if (bug == "zk-1208-create-on-closing-session") bugs.zk_1208_create_on_closing_session = true;
    if (bug == "zk-watch-not-one-shot") bugs.zk_watch_not_one_shot = true;
    if (bug == "zk-2845-retain-database") bugs.zk_2845_retain_database = true;
    if (bug == "zk-3911-diff-logged-after-uptodate") bugs.zk_3911_diff_logged_after_uptodate = true;
  }
  return bugs;
}

Cluster::Cluster(const Scenario& scenario, std::uint64_t seed, const sim::SimulationLimits& limits, ClusterPlatform* platform)
    : scenario_(scenario), sim_(std::make_unique<sim::Simulation>(seed, limits)), platform_(platform) {
  sim_->network().set_latency(scenario.network.latency_min, scenario.network.latency_max);
  if (platform_ != nullptr) {
    ELECTSIM_ASSERT(scenario.recipe != Recipe::es_zen);
    for (sim::Node* server : platform_->addServers(*sim_, scenario)) {
      registerNode(server->name(), *server);
      servers_.push_back(server->id());
    }
    addWriters();
    return;
  }
  if (scenario.recipe != Recipe::es_zen) {
    zk::QuorumPeerConfig config;
    config.tick_time = scenario.zookeeper.tick_time;
    config.init_limit = scenario.zookeeper.init_limit;
    config.sync_limit = scenario.zookeeper.sync_limit;
    if (scenario.zookeeper.min_session_timeout) config.min_session_timeout = *scenario.zookeeper.min_session_timeout;
    if (scenario.zookeeper.max_session_timeout) config.max_session_timeout = *scenario.zookeeper.max_session_timeout;
    config.bugs = zookeeper_bugs(scenario);
    config.version = scenario.zookeeper.version == "3.9.3"   ? zk::ZkVersion::v3_9_3
                     : scenario.zookeeper.version == "3.8.5" ? zk::ZkVersion::v3_8_5
                                                             : zk::ZkVersion::v3_8_0;
    config.thread_delay_max = scenario.zookeeper.thread_delay_max;
    ensemble_ = std::make_unique<zk::Ensemble>(*sim_, static_cast<std::size_t>(scenario.zookeeper.servers), config);
    servers_ = ensemble_->nodes();
    for (zk::ServerId sid = 1; sid <= scenario.zookeeper.servers; sid++) {
      zk::QuorumPeer& server = ensemble_->server(sid);
      registerNode(server.name(), server);
      auto history = scenario.zookeeper.initial_zxid.find(server.name());
      auto epoch = scenario.zookeeper.initial_epoch.find(server.name());
      std::int64_t persisted_epoch = epoch == scenario.zookeeper.initial_epoch.end() ? -1 : epoch->second;
      if (history != scenario.zookeeper.initial_zxid.end() && history->second > 0) server.seedHistory(history->second, persisted_epoch);
    }
    addWriters();
  }
}

Cluster::~Cluster() {
  if (triggers_) sim_->trace().remove_sink(triggers_.get());
}

void Cluster::addWriters() {
  // Right after the servers, in both modes: the node ids (and so the run) do not depend on the mode.
  for (int writer = 1; writer <= scenario_.clients.writers; writer++) {
    std::string name = "w" + std::to_string(writer);
    auto& client = sim_->add_node<WorkloadClient>(name, servers_, scenario_.clients, zookeeperFactory());
    registerNode(name, client);
  }
}

std::shared_ptr<zk::ZookeeperFactory> Cluster::zookeeperFactory() const { return platform_ ? platform_->zookeeperFactory() : nullptr; }

std::optional<zk::ServerId> Cluster::zookeeperLeader() const {
  if (ensemble_) return ensemble_->leader();
  if (platform_) return platform_->zookeeperLeader();
  return std::nullopt;
}

bool Cluster::hasBug(std::string_view name) const {
  return std::find(scenario_.bugs.begin(), scenario_.bugs.end(), name) != scenario_.bugs.end();
}

void Cluster::registerNode(const std::string& name, sim::Node& node) {
  ELECTSIM_ASSERT_MSG(!nodes_.contains(name), "two nodes named " + name);
  nodes_.emplace(name, &node);
}

sim::Node* Cluster::findNode(std::string_view name) const {
  auto found = nodes_.find(name);
  return found == nodes_.end() ? nullptr : found->second;
}

sim::Node& Cluster::node(std::string_view name) const {
  sim::Node* found = findNode(name);
  ELECTSIM_ASSERT_MSG(found != nullptr, "no node named " + std::string(name));
  return *found;
}

std::vector<sim::Node*> Cluster::nodesWithPrefix(std::string_view prefix) const {
  std::vector<sim::Node*> found;
  for (int number = 1;; number++) {
    sim::Node* node = findNode(std::string(prefix) + std::to_string(number));
    if (node == nullptr) break;
    found.push_back(node);
  }
  return found;
}

std::vector<sim::NodeId> Cluster::ids(const std::vector<std::string>& names) const {
  std::vector<sim::NodeId> result;
  for (const std::string& name : names) result.push_back(node(name).id());
  return result;
}

void Cluster::scheduleStartsAndFaults(RecipeDriver& driver) {
  sim::Simulation& sim = *sim_;
  // Servers, then instances and writers, as the scenario says.
  auto schedule_starts = [&](const std::vector<sim::Node*>& nodes, StartMode mode, sim::Duration interval, bool recipe) {
    for (std::size_t i = 0; i < nodes.size(); i++) {
      sim::Duration at = mode == StartMode::staggered ? interval * static_cast<std::int64_t>(i) : sim::Duration::zero();
      std::string name = nodes[i]->name();
      sim.schedule_callback(sim::epoch + at, sim::no_node, [this, &driver, name, recipe] {
        // A fault may have started it already (a restart before its turn): the first start is once.
        if (node(name).starts() > 0) return;
        if (recipe) {
          driver.startInstance(*this, name);
        } else {
          node(name).start();
        }
      });
    }
  };
  schedule_starts(nodesWithPrefix("zk"), scenario_.zookeeper.start, scenario_.zookeeper.start_interval, false);
  schedule_starts(nodesWithPrefix("i"), scenario_.instances.start, scenario_.instances.start_interval, true);
  schedule_starts(nodesWithPrefix("es"), StartMode::together, sim::Duration::zero(), true);
  schedule_starts(nodesWithPrefix("w"), StartMode::together, sim::Duration::zero(), false);
  for (const Fault& fault : scenario_.faults) {
    if (fault.after) continue;  // step-triggered: FaultTriggers applies it
    sim.schedule_callback(sim::epoch + fault.at, sim::no_node, [this, &driver, fault] { applyFault(fault, driver); });
  }
  triggers_ = std::make_unique<FaultTriggers>(
      sim, scenario_.faults, [this](const std::string& name) { return node(name).id(); },
      [this, &driver](const Fault& fault) { applyFault(fault, driver); });
  if (triggers_->armed()) sim.trace().add_sink(triggers_.get());
}

std::vector<TriggerReport> Cluster::triggerReports() const { return triggers_ ? triggers_->reports() : std::vector<TriggerReport>{}; }

void Cluster::applyFault(const Fault& fault, RecipeDriver& driver) {
  sim::Simulation& sim = *sim_;
  std::string kind = "fault." + std::string(fault_kind_name(fault.kind));
  sim::NodeId target = fault.node.empty() ? sim::no_node : node(fault.node).id();
  if (fault.after) {
    // The step that set it off, for the narration: "crashes zk1: triggered by its 1st ...".
    std::string trigger = describe_trigger(*fault.after);
    sim.trace().emit(target, kind, {{"target", fault.node}, {"from", fault.from}, {"to", fault.to}, {"trigger", trigger}, {"delay", fault.delay}});
  } else {
    sim.trace().emit(target, kind, {{"target", fault.node}, {"from", fault.from}, {"to", fault.to}});
  }
  sim::Network& network = sim.network();
  // In live mode the simulated network carries nothing, but its reachability is the truth the
  // platform makes the real links follow.
  bool network_fault = fault.kind == FaultKind::partition || fault.kind == FaultKind::isolate || fault.kind == FaultKind::bridge ||
                       fault.kind == FaultKind::drop || fault.kind == FaultKind::heal;
  if (network_fault && platform_ != nullptr) sim.schedule_callback(sim.now(), sim::no_node, [this] { platform_->networkChanged(sim_->network().reachability()); });
  switch (fault.kind) {
    case FaultKind::crash:
      if (node(fault.node).up()) node(fault.node).crash();
      return;
    case FaultKind::power_off:
      if (node(fault.node).up()) node(fault.node).power_off();
      return;
    case FaultKind::restart: {
      sim::Node& restarted = node(fault.node);
      if (restarted.up()) restarted.crash();  // a restart of a running process kills it first
      restarted.start();
      return;
    }
    case FaultKind::pause: {
      sim::Node& paused = node(fault.node);
      paused.pause();
      std::string name = fault.node;
      sim.schedule_callback(sim.now() + fault.pause_for, sim::no_node, [this, name] {
        sim_->trace().emit(node(name).id(), "fault.resume", {{"target", name}});
        node(name).resume();
      });
      return;
    }
    case FaultKind::partition: {
      std::vector<std::vector<sim::NodeId>> groups;
      for (const auto& group : fault.groups) groups.push_back(ids(group));
      network.partition(groups);
      return;
    }
    case FaultKind::isolate: network.isolate(target); return;
    case FaultKind::bridge:
      network.bridge(target, ids(fault.groups.at(0)), ids(fault.groups.at(1)));
      return;
    case FaultKind::drop: network.drop(node(fault.from).id(), node(fault.to).id()); return;
    case FaultKind::heal: network.heal_all(); return;
    case FaultKind::disable:
    case FaultKind::enable:
    case FaultKind::shutdown:
    case FaultKind::set_sharding_total_count: {
      bool handled = driver.applyFault(*this, fault);
      if (!handled && fault.kind == FaultKind::shutdown && node(fault.node).up()) node(fault.node).crash();
      return;
    }
  }
}

sim::Instant Cluster::lastFault() const {
  sim::Duration last = sim::Duration::zero();
  for (const Fault& fault : scenario_.faults) {
    sim::Duration at = fault.after ? fault.until.value_or(scenario_.duration) + fault.delay : fault.at;
    last = std::max(last, at + (fault.kind == FaultKind::pause ? fault.pause_for : sim::Duration::zero()));
  }
  return sim::epoch + last;
}

bool Cluster::healed() const {
  if (!sim_->network().reachability().fully_connected()) return false;
  for (const auto& [name, node] : nodes_) {
    if (node->paused()) return false;
  }
  return true;
}

}  // namespace harness
