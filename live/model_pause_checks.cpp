// The model side of the pause checks (REAL-ZOOKEEPER.md's last three rows): a server SIGSTOPped,
// which in the simulator is Node::pause (its coroutines and timers freeze, messages to it wait, and
// on resume every timer that came due fires at once, as a JVM's threads all wake on SIGCONT).
//
// Both sides use the same clients: the owner of an ephemeral connected to the paused server only,
// and a watcher of that ephemeral connected to another server only. A client of one server is the
// only way to know, on the real side, which server it talks to.
#include "live/conformance.h"
#include "live/model_cluster.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

// The negotiated timeout of every pause check's sessions (2 ticks, as in client-kill).
constexpr sim::Duration session_timeout = 4s;
constexpr sim::Duration leader_pause = std::chrono::milliseconds(leader_pause_ms);

sim::Task<void> hold_ephemeral(ScriptedClient& self, std::string path) {
  co_await self.waitConnected();
  zk::CreateResult created = co_await self.zk().create(path, "owner", zk::CreateMode::ephemeral);
  self.record("create " + std::string(zk::code_name(created.code)));
  co_await self.sim().sleep(1h);
}

// Watches `path` once it exists (a data watch on a present node), as the live watcher does.
sim::Task<void> watch_path(ScriptedClient& self, std::string path) {
  co_await self.waitConnected();
  while (true) {
    zk::StatResult exists = co_await self.zk().exists(path, [&self](const zk::WatchedEvent& event) {
      self.record(std::string(zk::event_type_name(event.type)) + " " + event.path);
    });
    if (exists.code == zk::Code::ok) break;
    co_await self.sim().sleep(100ms);
  }
  self.record("watching");
  co_await self.sim().sleep(1h);
}

struct PauseSetup {
  ScriptedClient* owner = nullptr;    // of the paused server only, holding `path`
  ScriptedClient* watcher = nullptr;  // of `watcher_sid` only, watching `path`
  sim::Instant paused;
  sim::Instant resumed;
};

// Three servers; the owner on `paused_sid`, the watcher on `watcher_sid`; `paused_sid` paused for
// `pause`, then resumed and watched for `after`.
std::optional<PauseSetup> run_pause(ModelCluster& cluster, zk::ServerId paused_sid, zk::ServerId watcher_sid, const std::string& path,
                                    sim::Duration pause, sim::Duration after, Measures& measures) {
  cluster.start_all();
  cluster.sim.run_for(5s);
  if (cluster.ensemble.leader() != 3) {
    measures.error = "sid 3 did not lead 5 s after the start (" + cluster.leader_word() + ")";
    return std::nullopt;
  }
  PauseSetup setup;
  setup.owner = &cluster.client("owner", session_timeout, [path](ScriptedClient& self) { return hold_ephemeral(self, path); }, {paused_sid});
  setup.watcher = &cluster.client("watcher", session_timeout, [path](ScriptedClient& self) { return watch_path(self, path); }, {watcher_sid});
  setup.owner->start();
  setup.watcher->start();
  cluster.sim.run_for(3s);
  if (!setup.owner->when("create OK") || !setup.watcher->when("watching")) {
    measures.error = "the owner could not create " + path + " or the watcher could not watch it";
    return std::nullopt;
  }
  setup.paused = cluster.sim.now();
  cluster.server(paused_sid).pause();
  cluster.sim.run_for(pause);
  setup.resumed = cluster.sim.now();
  cluster.server(paused_sid).resume();
  cluster.sim.run_for(after);
  return setup;
}

std::optional<double> since(std::optional<sim::Instant> when, sim::Instant from) {
  if (!when) return std::nullopt;
  return to_milliseconds(*when - from);
}

void put(Measures& measures, const std::string& key, std::optional<double> milliseconds) {
  if (milliseconds) measures.milliseconds[key] = *milliseconds;
}

// The first zab.established after `from` on a server other than `old_leader`: its sid and time.
std::optional<std::pair<zk::ServerId, sim::Instant>> new_leader(ModelCluster& cluster, zk::ServerId old_leader, sim::Instant from) {
  for (const Milestones::Entry& entry : cluster.milestones.entries) {
    if (entry.kind != "zab.established" || entry.time < from) continue;
    for (zk::ServerId sid = 1; sid <= 3; sid++) {
      if (sid != old_leader && cluster.server(sid).id() == entry.node) return std::make_pair(sid, entry.time);
    }
  }
  return std::nullopt;
}

Measures model_leader_pause(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  Measures measures;
  std::optional<PauseSetup> run = run_pause(cluster, 3, 1, "/a", leader_pause, 15s, measures);
  if (!run) return measures;
  auto elected = new_leader(cluster, 3, run->paused);
  measures.words["new leader"] = elected ? std::to_string(elected->first) : "none";
  if (elected) measures.milliseconds["pause to new leader"] = to_milliseconds(elected->second - run->paused);
  // srvr says "leader" until Leader.shutdown sets LOOKING (QuorumPeer.run's finally).
  put(measures, "resume to old leader stepping down",
      since(cluster.milestones.first("zk.state LOOKING", run->resumed, cluster.server(3).id()), run->resumed));
  measures.words["old leader afterwards"] = std::string(zk::server_state_name(cluster.server(3).getPeerState()));
  measures.words["leader afterwards"] = cluster.leader_word();
  std::optional<sim::Instant> expired = run->owner->when("state Expired", run->resumed);
  measures.words["owner told"] = expired ? "Expired" : "not Expired";
  put(measures, "resume to owner expired", since(expired, run->resumed));
  if (elected) put(measures, "new leader to /a deleted", since(run->watcher->when("NodeDeleted /a"), elected->second));
  return measures;
}

Measures model_leader_pause_short(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  Measures measures;
  std::optional<PauseSetup> run = run_pause(cluster, 3, 1, "/a", 3s, 10s, measures);
  if (!run) return measures;
  const bool changed = cluster.milestones.state_changed(run->paused);
  measures.words["elections"] = changed ? "a server changed state" : "none";
  measures.words["leader afterwards"] = cluster.leader_word();
  std::optional<sim::Instant> disconnected = run->owner->when("state Disconnected", run->paused);
  put(measures, "pause to owner disconnected", since(disconnected, run->paused));
  put(measures, "resume to owner reconnected", since(run->owner->when("state SyncConnected", run->resumed), run->resumed));
  measures.words["owner session"] = run->owner->when("state Expired") ? "expired" : "kept";
  measures.words["/a afterwards"] = cluster.server(3).getZkDb().getDataTree().getNode("/a") != nullptr ? "present" : "deleted";
  return measures;
}

Measures model_follower_pause(const ConformanceConfig& config) {
  ModelCluster cluster(config);
  Measures measures;
  std::optional<PauseSetup> run = run_pause(cluster, 1, 3, "/f", 10s, 10s, measures);
  if (!run) return measures;
  const bool changed = cluster.milestones.state_changed(run->paused, cluster.server(1).id());
  measures.words["leader throughout"] = changed ? "changed" : cluster.leader_word();
  put(measures, "pause to /f deleted", since(run->watcher->when("NodeDeleted /f"), run->paused));
  measures.words["owner told"] = run->owner->when("state Expired", run->resumed) ? "Expired" : "not Expired";
  put(measures, "resume to following", since(cluster.milestones.first("zab.following", run->resumed, cluster.server(1).id()), run->resumed));
  return measures;
}

}  // namespace

bool is_pause_check(const std::string& name) {
  return name == "leader-pause" || name == "leader-pause-short" || name == "follower-pause";
}

Measures run_model_pause_check(const std::string& name, const ConformanceConfig& config) {
  if (name == "leader-pause") return model_leader_pause(config);
  if (name == "leader-pause-short") return model_leader_pause_short(config);
  if (name == "follower-pause") return model_follower_pause(config);
  ELECTSIM_ASSERT_MSG(false, "unknown pause check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
