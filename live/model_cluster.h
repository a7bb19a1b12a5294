// What the model side of every conformance check is built from: a simulated ensemble of N servers
// with the conformance configuration (ModelCluster), the milestones its trace reports (Milestones),
// and client processes running a script on a zk::ZooKeeper handle (zk::ScriptedClient, as tests/zk
// drives them). Deterministic: the same seed gives the same run.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "live/conformance.h"
#include "model/zk/Ensemble.h"
#include "model/zk/client/ScriptedClient.h"
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
  // Whether a server other than `except` changed its zk.state at or after `since`.
  bool state_changed(sim::Instant since, sim::NodeId except = sim::no_node) const;
};

using ScriptedClient = zk::ScriptedClient;  // model/zk/client/ScriptedClient.h

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
