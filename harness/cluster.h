// A scenario made real: the simulation, the ZooKeeper ensemble (zk1..zkN), the recipe's instances
// (i1..iN), the workload clients (w1..wN), and the fault schedule applied to them by name.
// Named after Elasticsearch's AbstractCoordinatorTestCase.Cluster: platform and deployment here,
// protocol code in model/.
#pragma once

#include <map>
#include <optional>
#include <memory>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "harness/triggers.h"
#include "model/zk/Ensemble.h"
#include "model/zk/client/ZooKeeper.h"
#include "sim/node.h"
#include "sim/simulation.h"

namespace harness {

class ClusterPlatform;
class RecipeDriver;

class Cluster {
 public:
  // With a platform (live mode), the servers and connections are the platform's; without, simulated.
  Cluster(const Scenario& scenario, std::uint64_t seed, const sim::SimulationLimits& limits, ClusterPlatform* platform = nullptr);
  ~Cluster();
  Cluster(const Cluster&) = delete;

  sim::Simulation& sim() { return *sim_; }
  const Scenario& scenario() const { return scenario_; }
  // The simulated ensemble, except with recipe es-zen (no ZooKeeper) and in live mode.
  zk::Ensemble* ensemble() { return ensemble_.get(); }
  ClusterPlatform* platform() const { return platform_; }
  // There are ZooKeeper servers (simulated or real).
  bool hasZooKeeper() const { return !servers_.empty(); }
  const std::vector<sim::NodeId>& zookeeperServers() const { return servers_; }  // every client's connect string
  // The handles' factory: null for simulated handles.
  std::shared_ptr<zk::ZookeeperFactory> zookeeperFactory() const;
  // The established ZooKeeper leader now (simulated or as the platform observes it).
  std::optional<zk::ServerId> zookeeperLeader() const;
  bool hasBug(std::string_view name) const;

  // Registers a node under its scenario name (i1, es2, w1 ...), so faults can find it.
  void registerNode(const std::string& name, sim::Node& node);
  // The workload writers (clients.writers), with handles from zookeeperFactory().
  void addWriters();
  sim::Node* findNode(std::string_view name) const;
  sim::Node& node(std::string_view name) const;
  std::vector<sim::Node*> nodesWithPrefix(std::string_view prefix) const;  // in name order: i1, i2, ..., i10

  // Starts servers and instances as the scenario says (together or staggered) and schedules every
  // fault. Recipe-specific faults go to the driver.
  void scheduleStartsAndFaults(RecipeDriver& driver);
  // When the last fault (including the end of the last pause) happens: a step-triggered fault counts
  // at the latest it could happen (its `until`, else the scenario's end, plus its delay).
  sim::Instant lastFault() const;
  // What became of each step-triggered fault (empty without any).
  std::vector<TriggerReport> triggerReports() const;
  // Nothing is cut, paused or stopped (stopped on purpose by `shutdown` is fine).
  bool healed() const;

 private:
  void applyFault(const Fault& fault, RecipeDriver& driver);
  std::vector<sim::NodeId> ids(const std::vector<std::string>& names) const;

  Scenario scenario_;
  std::unique_ptr<sim::Simulation> sim_;
  std::unique_ptr<zk::Ensemble> ensemble_;
  ClusterPlatform* platform_ = nullptr;
  std::vector<sim::NodeId> servers_;
  std::map<std::string, sim::Node*, std::less<>> nodes_;
  std::unique_ptr<FaultTriggers> triggers_;  // a sink on sim_'s trace while it lives
};

// Maps scenario bug names to the ZooKeeper model's switches.
zk::ZkBugs zookeeper_bugs(const Scenario& scenario);

}  // namespace harness
