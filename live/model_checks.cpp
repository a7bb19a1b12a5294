// The simulated side of each conformance check, on the model's own classes (zk::Ensemble,
// zk::ZooKeeper), the way tests/zk drives them. Deterministic: the same seed gives the same numbers.
#include <functional>
#include <memory>

#include "live/conformance.h"
#include "model/zk/Ensemble.h"
#include "model/zk/client/ZooKeeper.h"
#include "sim/assert.h"
#include "sim/network.h"

namespace live {

namespace {

using namespace std::chrono_literals;

double to_milliseconds(sim::Duration duration) { return std::chrono::duration<double, std::milli>(duration).count(); }

// The first time each trace kind happened on each node, after `since`.
struct Milestones final : sim::TraceSink {
  struct Entry {
    sim::Instant time;
    sim::NodeId node;
    std::string kind;
  };
  std::vector<Entry> entries;
  void on_event(const sim::TraceEvent& event) override {
    if (event.kind == "zab.established" || event.kind == "zab.following") {
      entries.push_back(Entry{event.time, event.node, std::string(event.kind)});
    }
  }
  std::optional<sim::Instant> first(std::string_view kind, sim::Instant since, sim::NodeId node = sim::no_node) const {
    for (const Entry& entry : entries) {
      if (entry.kind == kind && entry.time >= since && (node == sim::no_node || entry.node == node)) return entry.time;
    }
    return std::nullopt;
  }
};

// A client process running a script against its zk::ZooKeeper handle (as tests/zk/session_test).
class ScriptedClient final : public sim::Node {
 public:
  using Script = std::function<sim::Task<void>(ScriptedClient&)>;
  ScriptedClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, sim::Duration timeout, Script script)
      : Node(sim, std::move(name)), servers_(std::move(servers)), timeout_(timeout), script_(std::move(script)) {}
  zk::ZooKeeper& zk() { return *zk_; }
  std::vector<std::pair<sim::Instant, std::string>> log;
  void record(std::string what) { log.emplace_back(sim().now(), std::move(what)); }
  std::optional<sim::Instant> when(const std::string& what) const {
    for (const auto& [time, entry] : log) {
      if (entry == what) return time;
    }
    return std::nullopt;
  }
  sim::Task<void> wait_connected() {
    while (!zk_->connected()) co_await sim().sleep(10ms);
  }

 protected:
  void on_start() override {
    zk_ = std::make_unique<zk::SimulatedZooKeeper>(*this, servers_, timeout_, [](const zk::WatchedEvent&) {}, sim().random().seed_for(name()));
    if (script_) spawn(script_(*this));
  }
  void on_stop() override { zk_.reset(); }

 private:
  std::vector<sim::NodeId> servers_;
  sim::Duration timeout_;
  Script script_;
  std::unique_ptr<zk::ZooKeeper> zk_;
};

// Three servers, the config's limits, REAL-ZOOKEEPER.md's loopback-like latency (the scenarios'
// default network, 1-5 ms per message).
struct ModelCluster {
  sim::Simulation sim;
  zk::Ensemble ensemble;
  Milestones milestones;
  ModelCluster(const ConformanceConfig& config)
      : sim(config.model_seed), ensemble(sim, 3, quorum_config(config)) {
    sim.network().set_latency(1ms, 5ms);
    sim.trace().add_sink(&milestones);
  }
  ~ModelCluster() { sim.trace().remove_sink(&milestones); }
  static zk::QuorumPeerConfig quorum_config(const ConformanceConfig& config) {
    zk::QuorumPeerConfig quorum;
    quorum.tick_time = config.tick_time;
    quorum.init_limit = config.init_limit;
    quorum.sync_limit = config.sync_limit;
    return quorum;
  }
  void start_all() {
    for (zk::ServerId sid = 1; sid <= 3; sid++) ensemble.server(sid).start();
  }
  std::string leader_word() const {
    std::optional<zk::ServerId> leader = ensemble.leader();
    return leader ? std::to_string(*leader) : "none";
  }
  ScriptedClient& client(const std::string& name, sim::Duration timeout, ScriptedClient::Script script) {
    return sim.add_node<ScriptedClient>(name, ensemble.nodes(), timeout, std::move(script));
  }
};

Measures model_start(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  sim::Instant start = cluster.sim.now();
  cluster.start_all();
  cluster.sim.run_for(10s);
  Measures measures;
  measures.words["leader"] = cluster.leader_word();
  if (auto established = cluster.milestones.first("zab.established", start)) {
    measures.milliseconds["serving"] = to_milliseconds(*established - start);
  }
  return measures;
}

Measures model_leader_kill(const ConformanceConfig& config, bool restart) {
  ModelCluster cluster(config);
  cluster.start_all();
  cluster.sim.run_for(5s);
  Measures measures;
  std::optional<zk::ServerId> old_leader = cluster.ensemble.leader();
  if (!old_leader) {
    measures.error = "no leader 5 s after the start";
    return measures;
  }
  measures.words["old leader"] = std::to_string(*old_leader);
  sim::Instant killed = cluster.sim.now();
  cluster.ensemble.server(*old_leader).crash();
  cluster.sim.run_for(5s);
  measures.words["new leader"] = cluster.leader_word();
  if (auto established = cluster.milestones.first("zab.established", killed)) {
    measures.milliseconds["re-election"] = to_milliseconds(*established - killed);
  }
  if (!restart) return measures;
  sim::Instant restarted = cluster.sim.now();
  zk::QuorumPeer& server = cluster.ensemble.server(*old_leader);
  server.start();
  cluster.sim.run_for(5s);
  measures.words["leader after restart"] = cluster.leader_word();
  measures.words["restarted server"] = std::string(zk::server_state_name(server.getPeerState()));
  if (auto following = cluster.milestones.first("zab.following", restarted, server.id())) {
    measures.milliseconds["rejoin"] = to_milliseconds(*following - restarted);
  }
  return measures;
}

Measures model_negotiation(const ConformanceConfig& config, sim::Duration requested) {
  ModelCluster cluster(config);
  cluster.start_all();
  ScriptedClient& client = cluster.client("c1", requested, {});
  client.start();
  cluster.sim.run_for(5s);
  Measures measures;
  if (!client.zk().connected()) {
    measures.error = "the client did not connect within 5 s";
    return measures;
  }
  measures.milliseconds["negotiated"] = to_milliseconds(client.zk().getSessionTimeout());
  return measures;
}

sim::Task<void> own_ephemeral(ScriptedClient& self) {
  co_await self.wait_connected();
  zk::CreateResult created = co_await self.zk().create("/owner", "owner", zk::CreateMode::ephemeral);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(1h);
}

sim::Task<void> watch_owner(ScriptedClient& self) {
  co_await self.wait_connected();
  // Wait for the node, then watch it (an exists watch on a present node is a data watch, as in the
  // live check, which watches only after the owner reported its create).
  while (true) {
    zk::StatResult exists = co_await self.zk().exists("/owner", [&self](const zk::WatchedEvent& event) {
      self.record(std::string(zk::event_type_name(event.type)) + " " + event.path);
    });
    if (exists.code == zk::Code::ok) break;
    co_await self.sim().sleep(100ms);
  }
  co_await self.sim().sleep(1h);
}

Measures model_client_kill(const ConformanceConfig& config, sim::Duration requested) {
  ModelCluster cluster(config);
  cluster.start_all();
  cluster.sim.run_for(3s);
  ScriptedClient& owner = cluster.client("owner", requested, own_ephemeral);
  ScriptedClient& watcher = cluster.client("watcher", requested, watch_owner);
  owner.start();
  watcher.start();
  cluster.sim.run_for(3s);
  Measures measures;
  if (!owner.when("create OK")) {
    measures.error = "the owner could not create /owner";
    return measures;
  }
  measures.milliseconds["negotiated"] = to_milliseconds(owner.zk().getSessionTimeout());
  sim::Instant killed = cluster.sim.now();
  owner.crash();
  cluster.sim.run_for(3 * requested + 2 * config.tick_time);
  if (auto deleted = watcher.when("NodeDeleted /owner")) measures.milliseconds["watch fired"] = to_milliseconds(*deleted - killed);
  std::optional<zk::ServerId> leader = cluster.ensemble.leader();
  bool present = leader && cluster.ensemble.server(*leader).getZkDb().getDataTree().getNode("/owner") != nullptr;
  measures.words["ephemeral"] = present ? "present" : "deleted";
  return measures;
}

sim::Task<void> sequential_history(ScriptedClient& self) {
  co_await self.wait_connected();
  auto name_of = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
  zk::CreateResult parent = co_await self.zk().create("/seq", "", zk::CreateMode::persistent);
  self.record("parent " + std::string(zk::code_name(parent.code)));
  for (int index = 0; index < 3; index++) {
    zk::CreateResult created = co_await self.zk().create("/seq/a-", "", zk::CreateMode::persistent_sequential);
    self.record(created.code == zk::Code::ok ? name_of(created.path) : std::string(zk::code_name(created.code)));
  }
  zk::Code deleted = co_await self.zk().deleteNode("/seq/a-0000000001");
  self.record("delete a-0000000001 " + std::string(zk::code_name(deleted)));
  zk::CreateResult failed = co_await self.zk().create("/seq/a-0000000000", "", zk::CreateMode::persistent);
  self.record("create a-0000000000 " + std::string(zk::code_name(failed.code)));
  zk::CreateResult last = co_await self.zk().create("/seq/a-", "", zk::CreateMode::persistent_sequential);
  self.record(last.code == zk::Code::ok ? name_of(last.path) : std::string(zk::code_name(last.code)));
  self.record("done");
}

Measures model_sequential(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  cluster.start_all();
  cluster.sim.run_for(3s);
  ScriptedClient& client = cluster.client("c1", 4s, sequential_history);
  client.start();
  cluster.sim.run_for(5s);
  Measures measures;
  if (!client.when("done")) {
    measures.error = "the client did not finish its history within 5 s";
    return measures;
  }
  std::string history;
  for (const auto& [time, entry] : client.log) {
    if (entry == "done" || entry.starts_with("parent")) continue;
    history += (history.empty() ? "" : ", ") + entry;
  }
  measures.words["history"] = history;
  return measures;
}

}  // namespace

Measures run_model_check(const std::string& name, const ConformanceConfig& config) {
  if (name == "start") return model_start(config);
  if (name == "leader-kill") return model_leader_kill(config, false);
  if (name == "leader-restart") return model_leader_kill(config, true);
  if (name == "session-timeout") return model_negotiation(config, 1000ms);
  if (name == "client-kill") return model_client_kill(config, 4000ms);
  if (name == "sequential") return model_sequential(config);
  ELECTSIM_ASSERT_MSG(false, "unknown conformance check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
