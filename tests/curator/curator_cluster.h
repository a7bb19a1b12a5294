// Test fixtures for the Curator model: a 3-server ensemble, client nodes running a
// CuratorFramework with a script, and a trace recorder.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "model/curator/CuratorFramework.h"
#include "model/zk/Ensemble.h"
#include "sim/network.h"
#include "tests/support/trace_recorder.h"
#include "sim/node.h"

namespace curator_test {

using namespace std::chrono_literals;

using test_support::TraceRecorder;

// A client process with a CuratorFramework; an optional script runs once it starts.
class CuratorNode final : public sim::Node {
 public:
  using Script = sim::Task<void> (*)(CuratorNode&);
  CuratorNode(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, curator::CuratorFrameworkConfig config,
              Script script)
      : Node(sim, std::move(name)), servers_(std::move(servers)), config_(config), script_(script) {}

  curator::CuratorFramework& framework() { return *framework_; }
  std::vector<std::pair<sim::Instant, std::string>> log;
  std::vector<std::string> results;  // what scripts report
  void record(std::string what) { log.emplace_back(sim().now(), std::move(what)); }
  std::optional<sim::Instant> when(const std::string& what, int occurrence = 1) const {
    for (const auto& [time, entry] : log) {
      if (entry == what && --occurrence == 0) return time;
    }
    return std::nullopt;
  }
  std::vector<std::string> states() const {
    std::vector<std::string> result;
    for (const auto& [time, entry] : log) {
      if (entry.rfind("state ", 0) == 0) result.push_back(entry.substr(6));
    }
    return result;
  }

 protected:
  void on_start() override {
    framework_ = std::make_unique<curator::CuratorFramework>(*this, servers_, config_, sim().random().seed_for(name()));
    framework_->getConnectionStateListenable().addListener(
        [this](curator::ConnectionState state) { record("state " + std::string(curator::connectionStateName(state))); });
    framework_->start();
    if (script_ != nullptr) spawn(script_(*this));
  }
  void on_stop() override { framework_.reset(); }

 private:
  std::vector<sim::NodeId> servers_;
  curator::CuratorFrameworkConfig config_;
  Script script_;
  std::unique_ptr<curator::CuratorFramework> framework_;
};

struct Cluster {
  sim::Simulation sim;
  zk::Ensemble ensemble;
  TraceRecorder trace;
  explicit Cluster(std::uint64_t seed = 1) : sim(seed), ensemble(sim, 3, zk::QuorumPeerConfig{}), trace(sim) {
    sim.network().set_latency(1ms, 5ms);
    for (zk::ServerId sid = 1; sid <= 3; sid++) ensemble.server(sid).start();
    sim.run_for(3s);  // elect a leader before any client starts
  }
  CuratorNode& client(const std::string& name, curator::CuratorFrameworkConfig config, CuratorNode::Script script = nullptr) {
    return sim.add_node<CuratorNode>(name, ensemble.nodes(), config, script);
  }
  const zk::DataTree& tree() const { return ensemble.server(1).getZkDb().getDataTree(); }
  // The tree of a server that is serving (any server's tree converges; the leader's is current).
  const zk::DataTree& leaderTree() const {
    std::optional<zk::ServerId> leader = ensemble.leader();
    return ensemble.server(leader.value_or(1)).getZkDb().getDataTree();
  }
  // A connection loss in the middle of a create, made deterministic: `node` is isolated the moment
  // a server applies its next create under `parent` (so the server made the node but the reply is
  // lost), and healed the moment its ZooKeeper client gives up on the connection (so it reconnects
  // at once, on the same session).
  void connectionLossAtCreate(sim::NodeId node, std::string parent) {
    trace.hook = [this, node, parent](const TraceRecorder::Event& event) {
      if (event.kind != "znode.create" || event.field("path").rfind(parent + "/", 0) != 0) return;
      trace.hook = [this, node](const TraceRecorder::Event& timeout) {
        if (timeout.kind != "zk.client.timeout" || timeout.node != node) return;
        trace.hook = nullptr;
        sim.schedule_callback(sim.now(), sim::no_node, [this] { sim.network().heal_all(); });
      };
      sim.schedule_callback(sim.now(), sim::no_node, [this, node] { sim.network().isolate(node); });
    };
  }
};

inline curator::CuratorFrameworkConfig shortSessions(sim::Duration sessionTimeout = 6s) {
  curator::CuratorFrameworkConfig config;
  config.sessionTimeout = sessionTimeout;
  return config;
}

}  // namespace curator_test
