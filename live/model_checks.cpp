// The simulated side of the conformance checks without pauses, on the model's own classes
// (zk::Ensemble, zk::ZooKeeper) through live/model_cluster.h. The pause checks are in
// model_pause_checks.cpp. Deterministic: the same seed gives the same numbers.
#include "live/conformance.h"
#include "live/model_cluster.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

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
  co_await self.waitConnected();
  zk::CreateResult created = co_await self.zk().create("/owner", "owner", zk::CreateMode::ephemeral);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(1h);
}

sim::Task<void> watch_owner(ScriptedClient& self) {
  co_await self.waitConnected();
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
  co_await self.waitConnected();
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
    if (entry == "done" || entry.starts_with("parent") || entry.starts_with("state ")) continue;
    history += (history.empty() ? "" : ", ") + entry;
  }
  measures.words["history"] = history;
  return measures;
}

// Five servers started `gap` apart (0: together), in sid order: which sid leads. REAL-ZOOKEEPER.md:
// sid 3 at gaps of 1 s, 0.5 s and 0.25 s (the first majority, 1..3, settles before 4 and 5 exist),
// sid 5 when started together (every vote reaches the highest sid within finalizeWait).
std::string model_five_leader(const ConformanceConfig& config, sim::Duration gap) {
  ModelCluster cluster(config, 5);
  for (zk::ServerId sid = 1; sid <= 5; sid++) {
    cluster.server(sid).start();
    if (sid < 5 && gap > sim::Duration::zero()) cluster.sim.run_for(gap);
  }
  cluster.sim.run_for(10s);
  return cluster.leader_word();
}

Measures model_five(const ConformanceConfig& config, bool together) {
  Measures measures;
  if (together) {
    measures.words["leader"] = model_five_leader(config, sim::Duration::zero());
    return measures;
  }
  for (int gap_ms : five_server_gaps_ms) measures.words["leader " + std::to_string(gap_ms)] = model_five_leader(config, std::chrono::milliseconds(gap_ms));
  return measures;
}

// What srvr says of a server's zxid: ZooKeeperServer.getLastProcessedZxid, the data tree's.
zk::Zxid srvr_zxid(ModelCluster& cluster, zk::ServerId sid) { return cluster.server(sid).getZkDb().getDataTreeLastProcessedZxid(); }

sim::Task<void> one_write(ScriptedClient& self) {
  co_await self.waitConnected();
  zk::CreateResult created = co_await self.zk().create("/z", "", zk::CreateMode::persistent);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(1h);
}

Measures model_zxid(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  cluster.start_all();
  cluster.sim.run_for(5s);
  Measures measures;
  std::optional<zk::ServerId> leader = cluster.ensemble.leader();
  if (!leader) {
    measures.error = "no leader 5 s after the start";
    return measures;
  }
  measures.words["leader zxid"] = hex_zxid(srvr_zxid(cluster, *leader));
  std::string followers;
  for (zk::ServerId sid = 1; sid <= 3; sid++) {
    if (sid != *leader) followers += (followers.empty() ? "" : ", ") + hex_zxid(srvr_zxid(cluster, sid));
  }
  measures.words["follower zxids"] = followers;
  ScriptedClient& client = cluster.client("c1", 4s, one_write);
  client.start();
  cluster.sim.run_for(3s);
  if (!client.when("create OK")) {
    measures.error = "the client could not create /z";
    return measures;
  }
  std::string after;
  for (zk::ServerId sid = 1; sid <= 3; sid++) after += (after.empty() ? "" : ", ") + hex_zxid(srvr_zxid(cluster, sid));
  measures.words["zxids after write"] = after;
  return measures;
}

sim::Task<void> own_ephemeral_then_close(ScriptedClient& self) {
  co_await self.waitConnected();
  zk::CreateResult created = co_await self.zk().create("/owner", "owner", zk::CreateMode::ephemeral);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(2s);  // the watcher has its watch by then (it looks every 100 ms)
  self.record("close");
  co_await self.zk().close();
  co_await self.sim().sleep(1h);
}

Measures model_graceful_close(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  cluster.start_all();
  cluster.sim.run_for(3s);
  ScriptedClient& owner = cluster.client("owner", 4s, own_ephemeral_then_close);
  ScriptedClient& watcher = cluster.client("watcher", 4s, watch_owner);
  owner.start();
  watcher.start();
  cluster.sim.run_for(6s);
  Measures measures;
  std::optional<sim::Instant> closed = owner.when("close");
  if (!owner.when("create OK") || !closed) {
    measures.error = "the owner could not create /owner and close";
    return measures;
  }
  if (auto deleted = watcher.when("NodeDeleted /owner")) measures.milliseconds["close to deleted"] = to_milliseconds(*deleted - *closed);
  std::optional<zk::ServerId> leader = cluster.ensemble.leader();
  bool present = leader && cluster.server(*leader).getZkDb().getDataTree().getNode("/owner") != nullptr;
  measures.words["ephemeral"] = present ? "present" : "deleted";
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
  if (name == "five-staggered") return model_five(config, false);
  if (name == "five-together") return model_five(config, true);
  if (name == "zxid-election") return model_zxid(config);
  if (name == "graceful-close") return model_graceful_close(config);
  ELECTSIM_ASSERT_MSG(false, "unknown conformance check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
