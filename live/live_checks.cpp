// The live side of the conformance checks without pauses: the same situations as model_checks.cpp
// on a real ZooKeeper 3.8 ensemble (LiveEnsemble), observed through `srvr` polls and the C client, in
// real time. The pause checks are in live_pause_checks.cpp.
#include <thread>

#include "live/forked_session.h"
#include "live/live_check_support.h"
#include "model/zk/types.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

Measures live_start(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<int> leader = start_and_elect(ensemble, measures);
  measures.words["leader"] = leader_word(leader);
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
  measures.words["leader after restart"] = leader_word(leader);
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

// Five servers started `gap` apart (0: together) in sid order; the leader once every server answers
// and the ensemble settled. The gap is between process starts: each JVM then takes its own 1-2 s to
// open its election port, which keeps the order on an idle machine and may blur it on a loaded one.
std::string live_five_leader(const ConformanceConfig& config, const Installation& installation, Milliseconds gap) {
  LiveEnsemble ensemble(ensemble_config(config, 5), installation);
  for (int sid = 1; sid <= 5; sid++) {
    ensemble.start(sid);
    if (sid < 5 && gap.count() > 0) std::this_thread::sleep_for(gap);
  }
  std::optional<Clock::time_point> done = ensemble.wait_until(settled, Clock::now() + ensemble_start_wait_max);
  if (!done) return "none";
  std::optional<int> leader = ensemble.leader();
  return leader_word(leader);
}

Measures live_five(const ConformanceConfig& config, const Installation& installation, bool together) {
  Measures measures;
  if (together) {
    measures.words["leader"] = live_five_leader(config, installation, Milliseconds(0));
    return measures;
  }
  for (int gap_ms : five_server_gaps_ms) measures.words["leader " + std::to_string(gap_ms)] = live_five_leader(config, installation, Milliseconds(gap_ms));
  return measures;
}

std::string zxid_word(const ServerStatus& status) { return status.zxid ? hex_zxid(*status.zxid) : "-"; }

Measures live_zxid(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<int> leader = start_and_elect(ensemble, measures);
  if (!leader) return measures;
  // Every follower synced, and a few polls more (the model looks 5 s after the start).
  if (!ensemble.wait_until(settled, Clock::now() + election_wait_max)) {
    measures.error = "the followers did not all serve within 15 s";
    return measures;
  }
  std::this_thread::sleep_for(500ms);
  measures.words["leader zxid"] = zxid_word(ensemble.status(*leader));
  std::string followers;
  for (int sid = 1; sid <= 3; sid++) {
    if (sid != *leader) followers += (followers.empty() ? "" : ", ") + zxid_word(ensemble.status(sid));
  }
  measures.words["follower zxids"] = followers;
  LiveClient client(ensemble.connect_string(), 4000ms);
  if (!client.wait_connected(Clock::now() + 10s)) {
    measures.error = "the client did not connect within 10 s";
    return measures;
  }
  CreateOutcome created = client.create("/z", "", NodeMode::persistent, Clock::now() + 10s);
  if (created.code != 0) {
    measures.error = "create /z: " + code_word(created.code);
    return measures;
  }
  // The followers apply the commit a moment after the client's reply: wait for the polls to agree.
  ensemble.wait_until(
      [](const std::vector<ServerStatus>& statuses) {
        for (const ServerStatus& status : statuses) {
          if (status.zxid != statuses.front().zxid) return false;
        }
        return true;
      },
      Clock::now() + 5s);
  std::string after;
  for (int sid = 1; sid <= 3; sid++) after += (after.empty() ? "" : ", ") + zxid_word(ensemble.status(sid));
  measures.words["zxids after write"] = after;
  return measures;
}

Measures live_graceful_close(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  if (!start_and_elect(ensemble, measures)) return measures;
  LiveClient owner(ensemble.connect_string(), 4000ms);
  LiveClient watcher(ensemble.connect_string(), 4000ms);
  if (!owner.wait_connected(Clock::now() + 10s) || !watcher.wait_connected(Clock::now() + 10s)) {
    measures.error = "the clients did not connect within 10 s";
    return measures;
  }
  CreateOutcome created = owner.create("/owner", "owner", NodeMode::ephemeral, Clock::now() + 10s);
  if (created.code != 0) {
    measures.error = "create /owner: " + code_word(created.code);
    return measures;
  }
  int exists = watcher.watch_exists("/owner", Clock::now() + 10s);
  if (exists != 0) {
    measures.error = "the watcher's exists(/owner) returned " + code_word(exists);
    return measures;
  }
  Clock::time_point closed = Clock::now();
  owner.close();  // zookeeper_close: closeSession, waits for its reply
  std::optional<ClientEvent> deleted = watcher.wait_event("deleted", "/owner", closed + 5s);
  if (deleted) measures.milliseconds["close to deleted"] = elapsed_ms(closed, deleted->time);
  int after = watcher.watch_exists("/owner", Clock::now() + 10s);
  measures.words["ephemeral"] = after == static_cast<int>(zk::Code::no_node) ? "deleted" : after == 0 ? "present" : code_word(after);
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
    if (name == "five-staggered") return live_five(config, installation, false);
    if (name == "five-together") return live_five(config, installation, true);
    if (name == "zxid-election") return live_zxid(config, installation);
    if (name == "graceful-close") return live_graceful_close(config, installation);
  } catch (const std::runtime_error& error) {
    Measures failed;
    failed.error = error.what();
    return failed;
  }
  ELECTSIM_ASSERT_MSG(false, "unknown conformance check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
