// What the model side of every conformance check is built from: a simulated ensemble of N servers
// with the conformance configuration (ModelCluster), the milestones its trace reports (Milestones),
// and client processes running a script on a zk::ZooKeeper handle (ScriptedClient), the way
// tests/zk drives them. Deterministic: the same seed gives the same run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/conformance.h"
#include "model/zk/Ensemble.h"
#include "model/zk/client/ZooKeeper.h"
#include "sim/network.h"

namespace live {

double to_milliseconds(sim::Duration duration);

// Every server milestone a check times, after the fact: zab.established (a leader serving),
// zab.following (a follower synced), and zk.state changes as "zk.state LEADING" and so on.
struct Milestones final : sim::TraceSink {
  struct Entry {
    sim::Instant time;
    sim::NodeId node;
    std::string kind;
  };
  std::vector<Entry> entries;
  void on_event(const sim::TraceEvent& event) override;
  // The first `kind` at or after `since` (on `node`, if given).
  std::optional<sim::Instant> first(std::string_view kind, sim::Instant since, sim::NodeId node = sim::no_node) const;
};

// A client process running a script against its zk::ZooKeeper handle. Its log has the script's
// records and every session event of the default watcher as "state Disconnected", "state
// SyncConnected", "state Expired" (keeper_state_name).
class ScriptedClient final : public sim::Node {
 public:
  using Script = std::function<sim::Task<void>(ScriptedClient&)>;
  ScriptedClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, sim::Duration timeout, Script script);
  zk::ZooKeeper& zk() { return *zk_; }
  std::vector<std::pair<sim::Instant, std::string>> log;
  void record(std::string what) { log.emplace_back(sim().now(), std::move(what)); }
  // The first record `what` (at or after `since`).
  std::optional<sim::Instant> when(const std::string& what, sim::Instant since = sim::Instant{}) const;
  sim::Task<void> wait_connected();

 protected:
  void on_start() override;
  void on_stop() override { zk_.reset(); }

 private:
  std::vector<sim::NodeId> servers_;
  sim::Duration timeout_;
  Script script_;
  std::unique_ptr<zk::ZooKeeper> zk_;
};

// N servers (3 unless told), the config's limits, REAL-ZOOKEEPER.md's loopback-like latency (the
// scenarios' default network, 1-5 ms per message).
struct ModelCluster {
  sim::Simulation sim;
  zk::Ensemble ensemble;
  Milestones milestones;
  explicit ModelCluster(const ConformanceConfig& config, std::size_t servers = 3);
  ~ModelCluster();
  ModelCluster(const ModelCluster&) = delete;
  ModelCluster& operator=(const ModelCluster&) = delete;
  void start_all();
  std::string leader_word() const;
  zk::QuorumPeer& server(zk::ServerId sid) const { return ensemble.server(sid); }
  // A client of every server (the connect string of the ensemble), or of the listed sids only.
  ScriptedClient& client(const std::string& name, sim::Duration timeout, ScriptedClient::Script script,
                         const std::vector<zk::ServerId>& only = {});
};

}  // namespace live
