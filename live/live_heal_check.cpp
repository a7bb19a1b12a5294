// The live side of the heal-rejoin check: the situation of model_heal_check.cpp on a real ensemble,
// each server in its own network namespace (live/server_network.h). The cut drops every packet
// between follower sid 1 and the two other servers (nftables, in each sender's namespace); the heal
// lifts it heal_after_looking_ms after srvr first showed sid 1 not serving (LOOKING).
#include <thread>

#include "live/live_check_support.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

constexpr Milliseconds looking_wait_max{15'000};

// delivered[a - 1][b - 1] for `servers` servers: everything, or nothing to and from `isolated`.
std::vector<std::vector<bool>> links(int servers, std::optional<int> isolated) {
  std::vector<std::vector<bool>> delivered(static_cast<std::size_t>(servers), std::vector<bool>(static_cast<std::size_t>(servers), true));
  for (int a = 1; a <= servers; a++) {
    for (int b = 1; b <= servers; b++) {
      if (isolated && (a == *isolated || b == *isolated)) delivered[static_cast<std::size_t>(a - 1)][static_cast<std::size_t>(b - 1)] = false;
    }
  }
  return delivered;
}

ServerMode mode_of(const std::vector<ServerStatus>& statuses, int sid) { return statuses[static_cast<std::size_t>(sid - 1)].mode; }

Measures live_heal_rejoin(const ConformanceConfig& config, const Installation& installation) {
  Measures measures;
  if (std::optional<std::string> reason = ServerNetwork::unavailable_reason()) {
    measures.error = "the cut needs a network namespace per server: " + *reason;
    return measures;
  }
  LiveEnsembleConfig configuration = ensemble_config(config);
  configuration.network_namespaces = true;
  LiveEnsemble ensemble(configuration, installation);
  std::optional<int> leader = start_and_elect(ensemble, measures);
  if (!leader) return measures;
  if (*leader != 3) {
    measures.error = "sid " + std::to_string(*leader) + " leads after the start, not sid 3";
    return measures;
  }
  if (!ensemble.wait_until(settled, Clock::now() + election_wait_max)) {
    measures.error = "the followers did not all serve within 15 s";
    return measures;
  }
  std::this_thread::sleep_for(2s);  // a few PINGs, as the model does
  Clock::time_point cut = Clock::now();
  ensemble.set_links(links(ensemble.size(), heal_isolated_sid));
  std::optional<Clock::time_point> looking = ensemble.wait_until(
      [](const std::vector<ServerStatus>& statuses) { return mode_of(statuses, heal_isolated_sid) == ServerMode::not_serving; },
      cut + looking_wait_max);
  if (!looking) {
    ensemble.set_links(links(ensemble.size(), std::nullopt));
    measures.error = "sid " + std::to_string(heal_isolated_sid) + " did not leave FOLLOWING within 15 s of the cut";
    return measures;
  }
  measures.milliseconds["cut to looking"] = elapsed_ms(cut, *looking);
  std::this_thread::sleep_until(*looking + Milliseconds(heal_after_looking_ms));
  Clock::time_point healed = Clock::now();
  ensemble.set_links(links(ensemble.size(), std::nullopt));
  std::optional<Clock::time_point> following = ensemble.wait_until(
      [](const std::vector<ServerStatus>& statuses) { return mode_of(statuses, heal_isolated_sid) == ServerMode::follower; },
      healed + 15s);
  if (following) measures.milliseconds["heal to following"] = elapsed_ms(healed, *following);
  std::this_thread::sleep_for(1s);
  // The other two keep their quorum throughout: neither leaves its role after the cut.
  bool changed = false;
  for (const Observation& observation : ensemble.observations()) {
    if (observation.time < cut || observation.sid == heal_isolated_sid) continue;
    ServerMode expected = observation.sid == 3 ? ServerMode::leader : ServerMode::follower;
    if (observation.status.mode != expected) changed = true;
  }
  std::optional<int> leader_afterwards = ensemble.leader();
  measures.words["leader throughout"] = changed ? "changed" : leader_afterwards ? std::to_string(*leader_afterwards) : "none";
  measures.words["isolated afterwards"] = peer_state_word(ensemble.status(heal_isolated_sid).mode);
  return measures;
}

}  // namespace

Measures run_live_heal_check(const std::string& name, const ConformanceConfig& config, const Installation& installation) {
  ELECTSIM_ASSERT_MSG(name == "heal-rejoin", "unknown heal check " + name);
  try {
    return live_heal_rejoin(config, installation);
  } catch (const std::runtime_error& error) {
    Measures failed;
    failed.error = error.what();
    return failed;
  }
}

}  // namespace live
