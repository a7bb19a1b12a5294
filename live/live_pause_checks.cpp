// The live side of the pause checks: the same situations as model_pause_checks.cpp on a real
// ensemble. The pause is SIGSTOP of the server's JVM and the resume SIGCONT, both from this thread
// at measured instants (not pause_for, whose resume happens at the poller's next round). The owner
// of an ephemeral is a client of the paused server only, the watcher a client of another server
// only: on the real side a client's connect string is the only way to know which server it uses.
#include <thread>

#include "live/live_check_support.h"
#include "model/zk/types.h"
#include "sim/assert.h"

namespace live {

namespace {

using namespace std::chrono_literals;

constexpr Milliseconds requested_timeout{4000};  // 2 ticks, as in client-kill

struct PauseRun {
  std::unique_ptr<LiveClient> owner;    // of the paused server only, holding the ephemeral
  std::unique_ptr<LiveClient> watcher;  // of another server only, watching it
  Clock::time_point paused;
  Clock::time_point resumed;
};

// Three servers, sid 3 leading; the owner on `paused_sid` creates `path`, the watcher on
// `watcher_sid` watches it; `paused_sid` is stopped for `pause`, continued, and watched for `after`.
std::optional<PauseRun> run_pause(LiveEnsemble& ensemble, int paused_sid, int watcher_sid, const std::string& path, Milliseconds pause,
                                  Milliseconds after, Measures& measures) {
  std::optional<int> leader = start_and_elect(ensemble, measures);
  if (!leader) return std::nullopt;
  if (*leader != 3) {
    measures.error = "sid " + std::to_string(*leader) + " leads after the start, not sid 3";
    return std::nullopt;
  }
  if (!ensemble.wait_until(settled, Clock::now() + election_wait_max)) {
    measures.error = "the followers did not all serve within 15 s";
    return std::nullopt;
  }
  PauseRun run;
  run.owner = std::make_unique<LiveClient>(connect_string_of(ensemble, paused_sid), requested_timeout);
  run.watcher = std::make_unique<LiveClient>(connect_string_of(ensemble, watcher_sid), requested_timeout);
  if (!run.owner->wait_connected(Clock::now() + 10s) || !run.watcher->wait_connected(Clock::now() + 10s)) {
    measures.error = "the clients did not connect within 10 s";
    return std::nullopt;
  }
  CreateOutcome created = run.owner->create(path, "owner", NodeMode::ephemeral, Clock::now() + 10s);
  int watched = run.watcher->watch_exists(path, Clock::now() + 10s);
  if (created.code != 0 || watched != 0) {
    measures.error = "create " + path + ": " + code_word(created.code) + ", exists: " + code_word(watched);
    return std::nullopt;
  }
  // Let a few pings go by, as the model does (its clients start 3 s before the pause).
  std::this_thread::sleep_for(2s);
  run.paused = Clock::now();
  ensemble.pause(paused_sid);
  std::this_thread::sleep_until(run.paused + pause);
  run.resumed = Clock::now();
  ensemble.resume(paused_sid);
  std::this_thread::sleep_until(run.resumed + after);
  return run;
}

// The first observation of `sid` after `from` whose mode satisfies `wanted`.
template <typename Wanted>
std::optional<Observation> first_observation(const std::vector<Observation>& observations, int sid, Clock::time_point from, Wanted wanted) {
  for (const Observation& observation : observations) {
    if (observation.sid == sid && observation.time >= from && wanted(observation.status.mode)) return observation;
  }
  return std::nullopt;
}

std::optional<double> since(std::optional<Clock::time_point> when, Clock::time_point from) {
  if (!when) return std::nullopt;
  return elapsed_ms(from, *when);
}

void put(Measures& measures, const std::string& key, std::optional<double> milliseconds) {
  if (milliseconds) measures.milliseconds[key] = *milliseconds;
}

std::optional<Clock::time_point> deleted_at(LiveClient& watcher, const std::string& path) {
  for (const ClientEvent& event : watcher.events()) {
    if (event.type == "deleted" && event.path == path) return event.time;
  }
  return std::nullopt;
}

std::string node_word(LiveClient& client, const std::string& path) {
  int code = client.watch_exists(path, Clock::now() + 10s);
  return code == static_cast<int>(zk::Code::no_node) ? "deleted" : code == 0 ? "present" : code_word(code);
}

Measures live_leader_pause(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<PauseRun> run = run_pause(ensemble, 3, 1, "/a", Milliseconds(leader_pause_ms), 15s, measures);
  if (!run) return measures;
  std::vector<Observation> observations = ensemble.observations();
  std::optional<Observation> elected;
  for (const Observation& observation : observations) {
    if (observation.time >= run->paused && observation.sid != 3 && observation.status.mode == ServerMode::leader) {
      elected = observation;
      break;
    }
  }
  measures.words["new leader"] = elected ? std::to_string(elected->sid) : "none";
  if (elected) measures.milliseconds["pause to new leader"] = elapsed_ms(run->paused, elected->time);
  // The old leader leaves LEADING when srvr first answers anything else after the resume.
  std::optional<Observation> stepped_down = first_observation(observations, 3, run->resumed, [](ServerMode mode) {
    return mode != ServerMode::leader && mode != ServerMode::no_answer;
  });
  if (stepped_down) measures.milliseconds["resume to old leader stepping down"] = elapsed_ms(run->resumed, stepped_down->time);
  measures.words["old leader afterwards"] = peer_state_word(ensemble.status(3).mode);
  std::optional<int> leader = ensemble.leader();
  measures.words["leader afterwards"] = leader_word(leader);
  std::optional<Clock::time_point> expired = first_session_state(run->owner->events(), "expired", run->resumed);
  measures.words["owner told"] = expired ? "Expired" : "not Expired";
  put(measures, "resume to owner expired", since(expired, run->resumed));
  if (elected) put(measures, "new leader to /a deleted", since(deleted_at(*run->watcher, "/a"), elected->time));
  return measures;
}

Measures live_leader_pause_short(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<PauseRun> run = run_pause(ensemble, 3, 1, "/a", 3s, 10s, measures);
  if (!run) return measures;
  // No election: the followers never left FOLLOWING, and sid 3 answered only leader (or nothing,
  // while stopped).
  bool changed = false;
  for (const Observation& observation : ensemble.observations()) {
    if (observation.time < run->paused) continue;
    ServerMode expected = observation.sid == 3 ? ServerMode::leader : ServerMode::follower;
    if (observation.status.mode != expected && !(observation.sid == 3 && observation.status.mode == ServerMode::no_answer)) changed = true;
  }
  measures.words["elections"] = changed ? "a server changed state" : "none";
  std::optional<int> leader = ensemble.leader();
  measures.words["leader afterwards"] = leader_word(leader);
  std::vector<ClientEvent> events = run->owner->events();
  put(measures, "pause to owner disconnected", since(first_session_state(events, "connecting", run->paused), run->paused));
  put(measures, "resume to owner reconnected", since(first_session_state(events, "connected", run->resumed), run->resumed));
  measures.words["owner session"] = first_session_state(events, "expired", run->paused) ? "expired" : "kept";
  measures.words["/a afterwards"] = node_word(*run->watcher, "/a");
  return measures;
}

Measures live_follower_pause(const ConformanceConfig& config, const Installation& installation) {
  LiveEnsemble ensemble(ensemble_config(config), installation);
  Measures measures;
  std::optional<PauseRun> run = run_pause(ensemble, 1, 3, "/f", 10s, 10s, measures);
  if (!run) return measures;
  std::vector<Observation> observations = ensemble.observations();
  bool changed = false;
  for (const Observation& observation : observations) {  // sid 2 or 3 left its role (a zxid change is not one)
    ServerMode expected = observation.sid == 3 ? ServerMode::leader : ServerMode::follower;
    if (observation.time >= run->paused && observation.sid != 1 && observation.status.mode != expected) changed = true;
  }
  std::optional<int> leader = ensemble.leader();
  measures.words["leader throughout"] = changed ? "changed" : leader_word(leader);
  put(measures, "pause to /f deleted", since(deleted_at(*run->watcher, "/f"), run->paused));
  measures.words["owner told"] = first_session_state(run->owner->events(), "expired", run->resumed) ? "Expired" : "not Expired";
  std::optional<Observation> following =
      first_observation(observations, 1, run->resumed, [](ServerMode mode) { return mode == ServerMode::follower; });
  if (following) measures.milliseconds["resume to following"] = elapsed_ms(run->resumed, following->time);
  return measures;
}

}  // namespace

Measures run_live_pause_check(const std::string& name, const ConformanceConfig& config, const Installation& installation) {
  try {
    if (name == "leader-pause") return live_leader_pause(config, installation);
    if (name == "leader-pause-short") return live_leader_pause_short(config, installation);
    if (name == "follower-pause") return live_follower_pause(config, installation);
  } catch (const std::runtime_error& error) {
    Measures failed;
    failed.error = error.what();
    return failed;
  }
  ELECTSIM_ASSERT_MSG(false, "unknown pause check " + name);
  ELECTSIM_UNREACHABLE();
}

}  // namespace live
