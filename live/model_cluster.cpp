#include "live/model_cluster.h"

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

ScriptedClient::ScriptedClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, sim::Duration timeout, Script script)
    : Node(sim, std::move(name)), servers_(std::move(servers)), timeout_(timeout), script_(std::move(script)) {}

std::optional<sim::Instant> ScriptedClient::when(const std::string& what, sim::Instant since) const {
  for (const auto& [time, entry] : log) {
    if (entry == what && time >= since) return time;
  }
  return std::nullopt;
}

sim::Task<void> ScriptedClient::wait_connected() {
  while (!zk_->connected()) co_await sim().sleep(10ms);
}

void ScriptedClient::on_start() {
  zk_ = std::make_unique<zk::SimulatedZooKeeper>(
      *this, servers_, timeout_,
      [this](const zk::WatchedEvent& event) {
        if (event.type == zk::EventType::none) record("state " + std::string(zk::keeper_state_name(event.state)));
      },
      sim().random().seed_for(name()));
  if (script_) spawn(script_(*this));
}

namespace {

zk::QuorumPeerConfig quorum_config(const ConformanceConfig& config) {
  zk::QuorumPeerConfig quorum;
  quorum.tick_time = config.tick_time;
  quorum.init_limit = config.init_limit;
  quorum.sync_limit = config.sync_limit;
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
  std::optional<zk::ServerId> leader = ensemble.leader();
  return leader ? std::to_string(*leader) : "none";
}

ScriptedClient& ModelCluster::client(const std::string& name, sim::Duration timeout, ScriptedClient::Script script,
                                     const std::vector<zk::ServerId>& only) {
  std::vector<sim::NodeId> servers;
  if (only.empty()) servers = ensemble.nodes();
  for (zk::ServerId sid : only) servers.push_back(ensemble.server(sid).id());
  return sim.add_node<ScriptedClient>(name, servers, timeout, std::move(script));
}

}  // namespace live
