// The model side of the heal-rejoin check: follower sid 1 cut off from both other servers
// (Network::isolate), the link healed heal_after_looking_ms after it was seen LOOKING, then the time
// until it follows again. The model is looked at every srvr poll interval, as the live side's poller
// sees the real server, so both sides heal at the same point of the retransmission timer's schedule.
#include "live/conformance.h"
#include "live/model_cluster.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

constexpr sim::Duration poll_interval = 50ms;  // LiveEnsembleConfig::poll_interval
constexpr sim::Duration looking_wait_max = 15s;

// A look at the model every poll interval until `seen` holds, for at most `limit`.
template <typename Seen>
bool run_until_seen(ModelCluster& cluster, sim::Duration limit, Seen seen) {
  sim::Instant deadline = cluster.sim.now() + limit;
  while (cluster.sim.now() < deadline) {
    cluster.sim.run_for(poll_interval);
    if (seen()) return true;
  }
  return false;
}

}  // namespace

Measures run_model_heal_check(const std::string& name, const ConformanceConfig& config) {
  ELECTSIM_ASSERT_MSG(name == "heal-rejoin", "unknown heal check " + name);
  ModelCluster cluster(config);
  Measures measures;
  cluster.start_all();
  cluster.sim.run_for(5s);
  if (cluster.ensemble.leader() != 3) {
    measures.error = "sid 3 did not lead 5 s after the start (" + cluster.leader_word() + ")";
    return measures;
  }
  cluster.sim.run_for(2s);  // a few PINGs, as the live side waits before its cut
  sim::NodeId isolated = cluster.server(heal_isolated_sid).id();
  sim::Instant cut = cluster.sim.now();
  cluster.sim.network().isolate(isolated);
  bool looking = run_until_seen(cluster, looking_wait_max, [&] { return cluster.milestones.first("zk.state LOOKING", cut, isolated).has_value(); });
  if (!looking) {
    measures.error = "sid " + std::to_string(heal_isolated_sid) + " did not leave FOLLOWING within 15 s of the cut";
    return measures;
  }
  sim::Instant seen = cluster.sim.now();
  measures.milliseconds["cut to looking"] = to_milliseconds(seen - cut);
  cluster.sim.run_until(seen + std::chrono::milliseconds(heal_after_looking_ms));
  sim::Instant healed = cluster.sim.now();
  cluster.sim.network().heal_all();
  run_until_seen(cluster, 15s, [&] { return cluster.milestones.first("zab.following", healed, isolated).has_value(); });
  cluster.sim.run_for(1s);
  if (std::optional<sim::Instant> following = cluster.milestones.first("zab.following", healed, isolated)) {
    measures.milliseconds["heal to following"] = to_milliseconds(*following - healed);
  }
  // The other two keep their quorum throughout: neither changes state after the cut.
  bool changed = false;
  for (const Milestones::Entry& entry : cluster.milestones.entries) {
    if (entry.time >= cut && entry.kind.starts_with("zk.state") && entry.node != isolated) changed = true;
  }
  measures.words["leader throughout"] = changed ? "changed" : cluster.leader_word();
  measures.words["isolated afterwards"] = std::string(zk::server_state_name(cluster.server(heal_isolated_sid).getPeerState()));
  return measures;
}

}  // namespace live
