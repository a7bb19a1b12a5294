// LivePlatform: a harness::ClusterPlatform on a real ZooKeeper 3.8 ensemble (docs/live-mode.md).
//
//  - Servers: stand-in nodes zk1..zkN whose start, crash, power_off, pause and resume act on the
//    real JVMs (LiveEnsemble): start/restart runs the server, crash is kill -9, pause is SIGSTOP and
//    resume SIGCONT. power_off is silence (LiveEnsemble::power_off: a wall of dropped packets around
//    the killed JVM with namespaces, else a SIGSTOP never resumed); peers find out by their timeouts.
//  - Clients: LiveZooKeeper handles through the ClientProxy. A paused instance's connections go
//    silent (the proxy stops moving bytes), a crashed one's are reset, a powered-off one's go silent
//    for good. Partitions that separate an
//    instance from a server cut that client-server link in the proxy.
//  - Links between servers: when the scenario cuts them (partition, isolate, bridge, one-way loss) or
//    powers a server off, each server gets its own network namespace (live/server_network.h) and
//    the cuts are nftables rules there. Where namespaces cannot be made (not root, no ip or nft)
//    such faults are listed by unsupportedFaults() and skipped with a message.
//  - Observation: every observe_interval, the servers' srvr modes and zxids become `live.server`
//    trace events, and the platform's leader is the one server reporting `leader`.
#pragma once

#include <map>
#include <set>
#include <memory>
#include <string>
#include <vector>

#include "harness/platform.h"
#include "live/client.h"
#include "live/client_proxy.h"
#include "live/ensemble.h"
#include "live/live_zookeeper.h"
#include "live/realtime_loop.h"

namespace live {

class LivePlatform final : public harness::ClusterPlatform, private sim::PauseObserver {
 public:
  static constexpr sim::Duration observe_interval = std::chrono::milliseconds(100);

  // The ensemble is made (ports, folder) but no server runs until its stand-in starts.
  LivePlatform(const harness::Scenario& scenario, Installation installation);
  ~LivePlatform() override;

  // The scenario's faults between servers (and power-offs of servers), one line each: these want a
  // namespace per server.
  static std::vector<std::string> serverNetworkFaults(const harness::Scenario& scenario);
  // Faults of the scenario this platform cannot apply here, one line each with the reason: the
  // server network faults when namespaces cannot be made (a server power-off then falls back to a
  // SIGSTOP that is never resumed, not listed).
  static std::vector<std::string> unsupportedFaults(const harness::Scenario& scenario);
  // Why each property the harness could judge cannot be judged on a real ensemble.
  static std::map<std::string, std::string> unjudgeableProperties();

  std::vector<sim::Node*> addServers(sim::Simulation& sim, const harness::Scenario& scenario) override;
  std::shared_ptr<zk::ZookeeperFactory> zookeeperFactory() override { return factory_; }
  void networkChanged(const sim::Reachability& reachability) override;
  std::optional<zk::ServerId> zookeeperLeader() const override;
  nlohmann::ordered_json zookeeperFinal() const override;
  const zk::DataTree* readTree(const std::string& root) override;

  // Runs the simulation in real time up to `end` (RunOptions::run_loop).
  void run(sim::Simulation& sim, sim::Instant end);
  void stop() {
    if (loop_) loop_->stop();
  }
  bool stopped() const { return loop_ && loop_->stopped(); }
  LiveEnsemble& ensemble() { return ensemble_; }

 private:
  void node_paused(sim::NodeId node, bool paused) override;
  void observe(sim::Simulation& sim);

  LiveEnsemble ensemble_;
  std::vector<sim::NodeId> serverNodes_;
  std::unique_ptr<RealTimeLoop> loop_;
  ClientProxy proxy_;
  std::shared_ptr<LiveZookeeperFactory> factory_;
  sim::Simulation* sim_ = nullptr;
  std::vector<ServerStatus> reported_;  // the statuses last traced
  std::unique_ptr<LiveClient> reader_;  // readTree's own session (not through the proxy)
  std::unique_ptr<zk::DataTree> tree_;
};

}  // namespace live
