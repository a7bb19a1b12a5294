#include "live/live_platform.h"

#include <algorithm>

#include "harness/cluster.h"
#include "sim/assert.h"

namespace live {

namespace {

LiveEnsembleConfig ensemble_config(const harness::Scenario& scenario) {
  LiveEnsembleConfig config;
  config.network_namespaces = !LivePlatform::serverNetworkFaults(scenario).empty() && !ServerNetwork::unavailable_reason();
  config.servers = scenario.zookeeper.servers;
  config.tick_time = std::chrono::duration_cast<Milliseconds>(scenario.zookeeper.tick_time);
  config.init_limit = scenario.zookeeper.init_limit;
  config.sync_limit = scenario.zookeeper.sync_limit;
  // Whole milliseconds (live/live_refusal.h refuses the others).
  if (scenario.zookeeper.min_session_timeout) config.min_session_timeout = std::chrono::duration_cast<Milliseconds>(*scenario.zookeeper.min_session_timeout);
  if (scenario.zookeeper.max_session_timeout) config.max_session_timeout = std::chrono::duration_cast<Milliseconds>(*scenario.zookeeper.max_session_timeout);
  return config;
}

const char* mode_name(ServerMode mode) {
  switch (mode) {
    case ServerMode::down: return "DOWN";
    case ServerMode::no_answer: return "NO_ANSWER";
    case ServerMode::not_serving: return "NOT_SERVING";
    case ServerMode::leader: return "LEADING";
    case ServerMode::follower: return "FOLLOWING";
    case ServerMode::observer: return "OBSERVING";
    case ServerMode::standalone: return "STANDALONE";
  }
  ELECTSIM_UNREACHABLE();
}

// A stand-in for one real server: the harness starts, crashes, pauses and resumes it like a
// simulated QuorumPeer, and it does the same to the JVM.
class LiveServerNode final : public sim::Node {
 public:
  LiveServerNode(sim::Simulation& sim, std::string name, LiveEnsemble& ensemble, int sid) : Node(sim, std::move(name)), ensemble_(ensemble), sid_(sid) {}

 protected:
  void on_start() override {
    if (ensemble_.running(sid_)) ensemble_.kill(sid_);  // a powered-off (stopped) JVM: gone for good
    ensemble_.start(sid_);
    sim().trace().emit(id(), "live.server.start", {{"sid", sid_}});
  }
  void on_stop() override {
    if (closing_silently()) {
      ensemble_.power_off(sid_);  // silence
    } else {
      ensemble_.kill(sid_);
    }
  }

 private:
  LiveEnsemble& ensemble_;
  int sid_;
};

}  // namespace

LivePlatform::LivePlatform(const harness::Scenario& scenario, Installation installation)
    : ensemble_(ensemble_config(scenario), std::move(installation)) {}

LivePlatform::~LivePlatform() {
  if (sim_ != nullptr) sim_->set_pause_observer(nullptr);
  // The zhandles go before the proxy they connect through, and before the servers.
  if (factory_) factory_->closeRetired();
}

std::vector<std::string> LivePlatform::serverNetworkFaults(const harness::Scenario& scenario) {
  std::vector<std::string> found;
  auto is_server = [](const std::string& name) { return name.starts_with("zk"); };
  auto has_server = [&](const std::vector<std::string>& group) { return std::any_of(group.begin(), group.end(), is_server); };
  for (const harness::Fault& fault : scenario.faults) {
    std::string at = sim::format_duration(fault.at) + " " + std::string(harness::fault_kind_name(fault.kind));
    switch (fault.kind) {
      case harness::FaultKind::partition:
        if (std::count_if(fault.groups.begin(), fault.groups.end(), has_server) > 1) found.push_back(at + ": separates servers from servers");
        break;
      case harness::FaultKind::isolate:
        if (is_server(fault.node)) found.push_back(at + " " + fault.node + ": cuts a server from the other servers");
        break;
      case harness::FaultKind::bridge:
        if (std::all_of(fault.groups.begin(), fault.groups.end(), has_server)) found.push_back(at + ": a bridge between server groups");
        break;
      case harness::FaultKind::drop:
        if (is_server(fault.from) && is_server(fault.to)) found.push_back(at + " " + fault.from + "->" + fault.to + ": one-way loss between servers");
        break;
      case harness::FaultKind::power_off:
        if (is_server(fault.node)) found.push_back(at + " " + fault.node + ": a server without power (silence)");
        break;
      default: break;
    }
  }
  return found;
}

std::vector<std::string> LivePlatform::unsupportedFaults(const harness::Scenario& scenario) {
  std::optional<std::string> reason = ServerNetwork::unavailable_reason();
  if (!reason) return {};
  std::vector<std::string> skipped;
  for (std::string& fault : serverNetworkFaults(scenario)) {
    if (fault.find(": a server without power") != std::string::npos) continue;  // SIGSTOP instead
    skipped.push_back(fault + " (" + *reason + ")");
  }
  return skipped;
}

std::map<std::string, std::string> LivePlatform::unjudgeableProperties() {
  const std::string servers = "needs the servers' internal events (votes, proposals, commits); live mode sees only srvr and its clients";
  return {
      {"zab-single-leader", servers},
      {"zab-agreement", servers},
      {"ephemeral-cleanup", servers},
      {"watch-once", "needs the servers' watch tables; live mode sees only the watch events a client receives"},
      {"job-single-leader", "its effect overlap needs the zxid each write committed at; not observed live"},
      {"naive-master-stable", "needs when the servers deleted /master and notified each session, and which server each client used; "
                              "live mode sees only the clients' side"},
  };
}

std::vector<sim::Node*> LivePlatform::addServers(sim::Simulation& sim, const harness::Scenario& scenario) {
  ELECTSIM_ASSERT(sim_ == nullptr);
  sim_ = &sim;
  loop_ = std::make_unique<RealTimeLoop>(sim);
  std::vector<sim::Node*> servers;
  std::vector<Endpoint> endpoints;
  for (int sid = 1; sid <= scenario.zookeeper.servers; sid++) {
    auto& server = sim.add_node<LiveServerNode>("zk" + std::to_string(sid), ensemble_, sid);
    servers.push_back(&server);
    serverNodes_.push_back(server.id());
    endpoints.push_back(ensemble_.client_endpoint(sid));
  }
  factory_ = std::make_shared<LiveZookeeperFactory>(*loop_, proxy_, serverNodes_, endpoints);
  reported_.assign(serverNodes_.size(), ServerStatus{ServerMode::down, std::nullopt});
  sim.set_pause_observer(this);
  return servers;
}

void LivePlatform::node_paused(sim::NodeId node, bool paused) {
  auto server = std::find(serverNodes_.begin(), serverNodes_.end(), node);
  if (server != serverNodes_.end()) {
    int sid = static_cast<int>(server - serverNodes_.begin()) + 1;
    if (paused) {
      ensemble_.pause(sid);
    } else {
      ensemble_.resume(sid);
    }
    return;
  }
  for (int client : factory_->proxyClientsOf(node)) proxy_.set_paused(client, paused);
}

void LivePlatform::networkChanged(const sim::Reachability& reachability) {
  // Every client-server link follows the reachability graph (either direction cut: TCP is silent).
  for (sim::NodeId node = 0; node < sim_->node_count(); node++) {
    if (std::find(serverNodes_.begin(), serverNodes_.end(), node) != serverNodes_.end()) continue;
    std::vector<int> clients = factory_->proxyClientsOf(node);
    for (std::size_t index = 0; index < serverNodes_.size(); index++) {
      sim::NodeId server = serverNodes_[index];
      bool cut = !reachability.reachable(node, server) || !reachability.reachable(server, node);
      for (int client : clients) proxy_.set_cut(client, static_cast<int>(index), cut);
    }
  }
  // Links between servers, one direction each (a one-way loss drops only a's packets to b).
  if (ensemble_.network() == nullptr) return;
  std::size_t servers = serverNodes_.size();
  std::vector<std::vector<bool>> delivered(servers, std::vector<bool>(servers, true));
  for (std::size_t from = 0; from < servers; from++) {
    for (std::size_t to = 0; to < servers; to++) {
      if (from != to) delivered[from][to] = reachability.reachable(serverNodes_[from], serverNodes_[to]);
    }
  }
  ensemble_.set_links(delivered);
}

std::optional<zk::ServerId> LivePlatform::zookeeperLeader() const {
  std::optional<int> leader = ensemble_.leader();
  if (!leader) return std::nullopt;
  return static_cast<zk::ServerId>(*leader);
}

nlohmann::ordered_json LivePlatform::zookeeperFinal() const {
  nlohmann::ordered_json zookeeper;
  std::optional<int> leader = ensemble_.leader();
  zookeeper["leader"] = leader ? nlohmann::ordered_json("zk" + std::to_string(*leader)) : nlohmann::ordered_json(nullptr);
  std::int64_t epoch = 0;
  nlohmann::ordered_json states = nlohmann::ordered_json::object();
  for (int sid = 1; sid <= ensemble_.size(); sid++) {
    ServerStatus status = ensemble_.status(sid);
    states["zk" + std::to_string(sid)] = mode_name(status.mode);
    if (status.zxid && (!leader || *leader == sid)) epoch = std::max(epoch, *status.zxid >> 32);
  }
  zookeeper["epoch"] = epoch;
  zookeeper["states"] = states;
  zookeeper["observed"] = "srvr";
  return zookeeper;
}

const zk::DataTree* LivePlatform::readTree(const std::string& root) {
  // A blocking read on the loop's thread: a few round trips on loopback per node, for the harness's
  // samples and the final report only.
  constexpr auto read_time_max = std::chrono::seconds(3);
  Clock::time_point deadline = Clock::now() + read_time_max;
  if (!reader_) reader_ = std::make_unique<LiveClient>(ensemble_.connect_string(), Milliseconds(10000));
  if (!reader_->wait_connected(deadline)) return nullptr;
  auto tree = std::make_unique<zk::DataTree>();
  // Parents before children, each node re-created with its data and owner (the zxids are not kept).
  std::vector<std::string> pending{root};
  std::size_t nodes = 0;
  zk::Zxid zxid = 0;  // the tree wants increasing zxids: the order of reading stands in for them
  constexpr std::size_t nodes_max = 100'000;
  while (!pending.empty()) {
    std::string path = std::move(pending.back());
    pending.pop_back();
    ReadOutcome data = reader_->get_data(path, deadline);
    if (data.code != 0) {
      if (path == root) return nullptr;
      continue;  // deleted meanwhile
    }
    if (path != "/" && path.find('/', 1) != std::string::npos) {
      // Ancestors of root that the tree lacks (the root's parents are not read).
      std::string parent = path.substr(0, path.rfind('/'));
      std::vector<std::string> missing;
      while (!parent.empty() && tree->getNode(parent) == nullptr) {
        missing.push_back(parent);
        parent = parent.substr(0, parent.rfind('/'));
      }
      for (auto it = missing.rbegin(); it != missing.rend(); ++it) {
        tree->processTxn(zk::Txn{zk::TxnHeader{0, 0, ++zxid, 0, zk::OpCode::create}, zk::CreateTxn{*it, "", false, -1}}, nullptr);
      }
    }
    if (path != "/") {
      tree->processTxn(zk::Txn{zk::TxnHeader{data.ephemeral_owner, 0, ++zxid, 0, zk::OpCode::create},
                               zk::CreateTxn{path, data.data, data.ephemeral_owner != 0, -1}},
                       nullptr);
    }
    ELECTSIM_ASSERT_MSG(++nodes <= nodes_max, "live mode: the tree to read is larger than its limit");
    ReadOutcome children = reader_->get_children(path, deadline);
    for (const std::string& child : children.children) pending.push_back(path == "/" ? "/" + child : path + "/" + child);
    if (Clock::now() > deadline) return nullptr;
  }
  tree_ = std::move(tree);
  return tree_.get();
}

void LivePlatform::observe(sim::Simulation& sim) {
  for (int sid = 1; sid <= ensemble_.size(); sid++) {
    ServerStatus status = ensemble_.status(sid);
    ServerStatus& last = reported_[static_cast<std::size_t>(sid - 1)];
    if (status.mode == last.mode && status.zxid == last.zxid) continue;
    last = status;
    sim.trace().emit(serverNodes_[static_cast<std::size_t>(sid - 1)], "live.server",
                     {{"mode", mode_name(status.mode)}, {"zxid", status.zxid.value_or(-1)}});
  }
  sim.schedule_callback(sim.now() + observe_interval, sim::no_node, [this, &sim] { observe(sim); });
}

void LivePlatform::run(sim::Simulation& sim, sim::Instant end) {
  ELECTSIM_ASSERT(&sim == sim_);
  sim.schedule_callback(sim.now(), sim::no_node, [this, &sim] { observe(sim); });
  loop_->run_until(end);
}

}  // namespace live
