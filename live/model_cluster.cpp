#include "live/model_cluster.h"

#include <algorithm>

namespace live {

using namespace std::chrono_literals;

double to_milliseconds(sim::Duration duration) { return std::chrono::duration<double, std::milli>(duration).count(); }

void Milestones::on_event(const sim::TraceEvent& event) {
  if (event.kind == "zab.established" || event.kind == "zab.following") {
    entries.push_back(Entry{event.time, event.node, std::string(event.kind)});
  } else if (event.kind == "zk.state") {
    entries.push_back(Entry{event.time, event.node, "zk.state " + std::string(event.text("state"))});
  }
}

std::optional<sim::Instant> Milestones::first(std::string_view kind, sim::Instant since, sim::NodeId node) const {
  for (const Entry& entry : entries) {
    if (entry.kind == kind && entry.time >= since && (node == sim::no_node || entry.node == node)) return entry.time;
  }
  return std::nullopt;
}

bool Milestones::state_changed(sim::Instant since, sim::NodeId except) const {
  return std::any_of(entries.begin(), entries.end(), [&](const Entry& entry) {
    return entry.time >= since && entry.kind.starts_with("zk.state") && entry.node != except;
  });
}

namespace {

zk::QuorumPeerConfig quorum_config(const ConformanceConfig& config) {
  zk::QuorumPeerConfig quorum;
  quorum.tick_time = config.tick_time;
  quorum.init_limit = config.init_limit;
  quorum.sync_limit = config.sync_limit;
  quorum.version = config.model_zookeeper_version == "3.9.3"   ? zk::ZkVersion::v3_9_3
                   : config.model_zookeeper_version == "3.8.5" ? zk::ZkVersion::v3_8_5
                                                               : zk::ZkVersion::v3_8_0;
  return quorum;
}

}  // namespace

ModelCluster::ModelCluster(const ConformanceConfig& config, std::size_t servers)
    : sim(config.model_seed), ensemble(sim, servers, quorum_config(config)) {
  sim.network().set_latency(1ms, 5ms);
  sim.trace().add_sink(&milestones);
}

ModelCluster::~ModelCluster() { sim.trace().remove_sink(&milestones); }

void ModelCluster::start_all() {
  for (zk::ServerId sid = 1; sid <= static_cast<zk::ServerId>(ensemble.size()); sid++) ensemble.server(sid).start();
}

std::string ModelCluster::leader_word() const {
  return live::leader_word(ensemble.leader());
}

ScriptedClient& ModelCluster::client(const std::string& name, sim::Duration timeout, ScriptedClient::Script script,
                                     const std::vector<zk::ServerId>& only) {
  std::vector<sim::NodeId> servers;
  if (only.empty()) servers = ensemble.nodes();
  for (zk::ServerId sid : only) servers.push_back(ensemble.server(sid).id());
  return sim.add_node<ScriptedClient>(name, servers, timeout, std::move(script));
}

}  // namespace live
