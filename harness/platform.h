// Where a run's ZooKeeper servers and client connections are. By default (no platform) the Cluster
// simulates them: zk::Ensemble, the simulated network, SimulatedZooKeeper handles. Live mode
// (live/live_platform.h) puts a real ZooKeeper 3.8 ensemble behind stand-in server nodes and gives
// the recipes handles on the C client, so the recipe code and the fault schedule stay the same.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "model/zk/client/ZooKeeper.h"
#include "model/zk/server/DataTree.h"
#include "model/zk/types.h"
#include "sim/node.h"
#include "sim/reachability.h"

namespace harness {

class Cluster;

class ClusterPlatform {
 public:
  virtual ~ClusterPlatform() = default;
  // Adds the server nodes zk1..zkN (in order) to the simulation; the cluster registers them. Their
  // start, crash, power_off, pause and resume act on the real servers.
  virtual std::vector<sim::Node*> addServers(sim::Simulation& sim, const Scenario& scenario) = 0;
  // Makes the recipes' client handles.
  virtual std::shared_ptr<zk::ZookeeperFactory> zookeeperFactory() = 0;
  // The simulated network's reachability changed (partition, isolate, bridge, drop, heal): the
  // platform makes the real links match it, as far as it can.
  virtual void networkChanged(const sim::Reachability& reachability) = 0;
  // The established ZooKeeper leader as the platform sees it now.
  virtual std::optional<zk::ServerId> zookeeperLeader() const = 0;
  // The servers' data tree now (live: read through a client of its own, every node under `root`),
  // or null if it cannot be read now. Owned by the platform, valid until the next call.
  virtual const zk::DataTree* readTree(const std::string& root) = 0;
  // final.zookeeper of `run --json`.
  virtual nlohmann::ordered_json zookeeperFinal() const = 0;
};

}  // namespace harness
