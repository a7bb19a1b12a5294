// The live side of each conformance check: the same situation as model_checks.cpp on a real
// ZooKeeper 3.8 ensemble (LiveEnsemble), observed through `srvr` polls and the C client, in real time.
#include <thread>

#include "live/client.h"
#include "live/conformance.h"
#include "live/ensemble.h"
#include "live/forked_session.h"
#include "model/zk/types.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

// Generous upper bounds for each wait, so a slow machine ends a check with a clear "not within",
// never a hang. JVM start-up of three servers on two shared cores takes a few seconds.
constexpr Milliseconds ensemble_start_wait_max{60'000};
constexpr Milliseconds election_wait_max{15'000};

double elapsed_ms(Clock::time_point from, Clock::time_point to) {
  return std::chrono::duration<double, std::milli>(to - from).count();
}

// The model's words for a server's state (QuorumPeer.ServerState), from what srvr says.
std::string peer_state_word(ServerMode mode) {
  switch (mode) {
    case ServerMode::leader: return "LEADING";
    case ServerMode::follower: return "FOLLOWING";
    case ServerMode::observer: return "OBSERVING";
    case ServerMode::not_serving: return "LOOKING";  // or syncing with a new leader: srvr cannot tell
    default: return std::string(server_mode_name(mode));
  }
}

// The C client's error codes are KeeperException.Code's numbers, as the model's zk::Code.
std::string code_word(int code) { return std::string(zk::code_name(static_cast<zk::Code>(code))); }

LiveEnsembleConfig ensemble_config(const ConformanceConfig& config) {
  LiveEnsembleConfig ensemble;
  ensemble.servers = 3;
  ensemble.tick_time = config.tick_time;
  ensemble.init_limit = config.init_limit;
  ensemble.sync_limit = config.sync_limit;
  return ensemble;
}

bool all_answer(const std::vector<ServerStatus>& statuses) {
  for (const ServerStatus& status : statuses) {
    if (status.mode == ServerMode::down) return false;
  }
  return true;
}

// Starts zk1..zk3 back to back and waits for a leader. Fills "jvms up" (the last start until every
// client port answered) and "serving" (every port answered until one server reported leader).
std::optional<int> start_and_elect(LiveEnsemble& ensemble, Measures& measures) {
  for (int sid = 1; sid <= ensemble.size(); sid++) ensemble.start(sid);
  Clock::time_point last_start = Clock::now();
  std::optional<Clock::time_point> up = ensemble.wait_until(all_answer, last_start + ensemble_start_wait_max);
  if (!up) {
    measures.error = "the servers' client ports did not all answer within 60 s (logs: " + ensemble.folder().string() + ")";
    return std::nullopt;
  }
  measures.milliseconds["jvms up"] = elapsed_ms(last_start, *up);
  std::optional<Clock::time_point> led = ensemble.wait_until(
      [](const std::vector<ServerStatus>& statuses) { return leader_of(statuses).has_value(); }, *up + election_wait_max);
  if (!led) {
    measures.error = "no server reported leader within 15 s of all answering";
    return std::nullopt;
  }
  measures.milliseconds["serving"] = elapsed_ms(*up, *led);
  return ensemble.leader();
}

Measures live_start(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<int> leader = start_and_elect(ensemble, measures);
  measures.words["leader"] = leader ? std::to_string(*leader) : "none";
  return measures;
}

Measures live_leader_kill(const ConformanceConfig& config, const Installation& installation, bool restart) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<int> old_leader = start_and_elect(ensemble, measures);
  if (!old_leader) return measures;
  measures.words["old leader"] = std::to_string(*old_leader);
  // Let the followers finish syncing (the model kills at 5 s, long after its election).
  std::this_thread::sleep_for(1s);
  Clock::time_point killed = Clock::now();
  ensemble.kill(*old_leader);
  int victim = *old_leader;
  std::optional<Clock::time_point> reelected = ensemble.wait_until(
      [victim](const std::vector<ServerStatus>& statuses) {
        std::optional<int> leader = leader_of(statuses);
        return leader && *leader != victim;
      },
      killed + election_wait_max);
  std::optional<int> new_leader = ensemble.leader();
  measures.words["new leader"] = reelected && new_leader ? std::to_string(*new_leader) : "none";
  if (reelected) measures.milliseconds["re-election"] = elapsed_ms(killed, *reelected);
  if (!restart || !reelected) return measures;
  std::this_thread::sleep_for(1s);
  ensemble.start(victim);
  Clock::time_point restarted = Clock::now();
  std::optional<Clock::time_point> up = ensemble.wait_until(
      [victim](const std::vector<ServerStatus>& statuses) { return statuses[static_cast<std::size_t>(victim - 1)].mode != ServerMode::down; },
      restarted + ensemble_start_wait_max);
  std::optional<Clock::time_point> following = ensemble.wait_until(
      [victim](const std::vector<ServerStatus>& statuses) {
        ServerMode mode = statuses[static_cast<std::size_t>(victim - 1)].mode;
        return mode == ServerMode::follower || mode == ServerMode::leader;
      },
      restarted + ensemble_start_wait_max);
  if (up) measures.milliseconds["jvm up"] = elapsed_ms(restarted, *up);
  if (up && following) measures.milliseconds["rejoin"] = elapsed_ms(*up, *following);
  // Watch one more second: a server that took leadership back would show it here.
  std::this_thread::sleep_for(1s);
  std::optional<int> leader = ensemble.leader();
  measures.words["leader after restart"] = leader ? std::to_string(*leader) : "none";
  measures.words["restarted server"] = peer_state_word(ensemble.status(victim).mode);
  return measures;
}

Measures live_negotiation(const ConformanceConfig& config, const Installation& installation, Milliseconds requested) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  if (!start_and_elect(ensemble, measures)) return measures;
  LiveClient client(ensemble.connect_string(), requested);
  if (!client.wait_connected(Clock::now() + 10s)) {
    measures.error = "the client did not connect within 10 s";
    return measures;
  }
  measures.milliseconds["negotiated"] = static_cast<double>(client.negotiated_timeout().count());
  return measures;
}

Measures live_client_kill(const ConformanceConfig& config, const Installation& installation, Milliseconds requested) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  if (!start_and_elect(ensemble, measures)) return measures;
  // The owner is forked before this process opens its own session: the child then starts from a
  // process without C client threads.
  ForkedSession owner(ensemble.connect_string(), requested, "/owner", Clock::now() + 20s);
  measures.milliseconds["negotiated"] = static_cast<double>(owner.negotiated_timeout().count());
  LiveClient watcher(ensemble.connect_string(), requested);
  if (!watcher.wait_connected(Clock::now() + 10s)) {
    measures.error = "the watcher did not connect within 10 s";
    return measures;
  }
  int exists = watcher.watch_exists("/owner", Clock::now() + 10s);
  if (exists != 0) {
    measures.error = "the watcher's exists(/owner) returned " + code_word(exists);
    return measures;
  }
  Clock::time_point killed = owner.kill();
  Milliseconds wait_max = 3 * owner.negotiated_timeout() + 2 * config.tick_time;
  std::optional<ClientEvent> deleted = watcher.wait_event("deleted", "/owner", killed + wait_max);
  if (deleted) measures.milliseconds["watch fired"] = elapsed_ms(killed, deleted->time);
  int after = watcher.watch_exists("/owner", Clock::now() + 10s);
  measures.words["ephemeral"] = after == static_cast<int>(zk::Code::no_node) ? "deleted" : after == 0 ? "present" : code_word(after);
  return measures;
}

Measures live_sequential(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  if (!start_and_elect(ensemble, measures)) return measures;
  LiveClient client(ensemble.connect_string(), 4000ms);
  if (!client.wait_connected(Clock::now() + 10s)) {
    measures.error = "the client did not connect within 10 s";
    return measures;
  }
  auto deadline = [] { return Clock::now() + 10s; };
  auto name_of = [](const std::string& path) { return path.substr(path.rfind('/') + 1); };
  std::vector<std::string> history;
  CreateOutcome parent = client.create("/seq", "", NodeMode::persistent, deadline());
  if (parent.code != 0) {
    measures.error = "create /seq: " + code_word(parent.code);
    return measures;
  }
  for (int index = 0; index < 3; index++) {
    CreateOutcome created = client.create("/seq/a-", "", NodeMode::persistent_sequential, deadline());
    history.push_back(created.code == 0 ? name_of(created.path) : code_word(created.code));
  }
  history.push_back("delete a-0000000001 " + code_word(client.remove("/seq/a-0000000001", deadline())));
  history.push_back("create a-0000000000 " + code_word(client.create("/seq/a-0000000000", "", NodeMode::persistent, deadline()).code));
  CreateOutcome last = client.create("/seq/a-", "", NodeMode::persistent_sequential, deadline());
  history.push_back(last.code == 0 ? name_of(last.path) : code_word(last.code));
  std::string joined;
  for (const std::string& entry : history) joined += (joined.empty() ? "" : ", ") + entry;
  measures.words["history"] = joined;
  return measures;
}

}  // namespace

Measures run_live_check(const std::string& name, const ConformanceConfig& config, const Installation& installation) {
  try {
    if (name == "start") return live_start(config, installation);
    if (name == "leader-kill") return live_leader_kill(config, installation, false);
    if (name == "leader-restart") return live_leader_kill(config, installation, true);
    if (name == "session-timeout") return live_negotiation(config, installation, 1000ms);
    if (name == "client-kill") return live_client_kill(config, installation, 4000ms);
    if (name == "sequential") return live_sequential(config, installation);
  } catch (const std::runtime_error& error) {
    Measures failed;
    failed.error = error.what();
    return failed;
  }
  ELECTSIM_ASSERT_MSG(false, "unknown conformance check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
