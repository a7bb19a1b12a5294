#include "live/live_check_support.h"

#include <cstdlib>

#include "model/zk/types.h"

namespace live {

double elapsed_ms(Clock::time_point from, Clock::time_point to) { return std::chrono::duration<double, std::milli>(to - from).count(); }

std::string peer_state_word(ServerMode mode) {
  switch (mode) {
    case ServerMode::leader: return "LEADING";
    case ServerMode::follower: return "FOLLOWING";
    case ServerMode::observer: return "OBSERVING";
    case ServerMode::not_serving: return "LOOKING";  // or syncing with a new leader: srvr cannot tell
    default: return std::string(server_mode_name(mode));
  }
}

std::string keeper_state_word(const std::string& c_client_state) {
  if (c_client_state == "connected") return "SyncConnected";
  if (c_client_state == "connecting" || c_client_state == "associating") return "Disconnected";
  if (c_client_state == "expired") return "Expired";
  return c_client_state;
}

std::string code_word(int code) { return std::string(zk::code_name(static_cast<zk::Code>(code))); }

LiveEnsembleConfig ensemble_config(const ConformanceConfig& config, int servers) {
  LiveEnsembleConfig ensemble;
  ensemble.servers = servers;
  ensemble.tick_time = config.tick_time;
  ensemble.init_limit = config.init_limit;
  ensemble.sync_limit = config.sync_limit;
  // ELECTSIM_LIVE_KEEP=1 keeps each check's folder (zoo.cfg, the servers' logs) to read afterwards.
  ensemble.keep_folder = std::getenv("ELECTSIM_LIVE_KEEP") != nullptr;
  return ensemble;
}

bool all_answer(const std::vector<ServerStatus>& statuses) {
  for (const ServerStatus& status : statuses) {
    if (status.mode == ServerMode::down) return false;
  }
  return true;
}

bool settled(const std::vector<ServerStatus>& statuses) {
  if (!leader_of(statuses)) return false;
  for (const ServerStatus& status : statuses) {
    if (status.mode != ServerMode::leader && status.mode != ServerMode::follower) return false;
  }
  return true;
}

std::string connect_string_of(const LiveEnsemble& ensemble, int sid) { return ensemble.client_endpoint(sid).text(); }

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

std::optional<Clock::time_point> first_session_state(const std::vector<ClientEvent>& events, const std::string& c_client_state,
                                                     Clock::time_point from) {
  for (const ClientEvent& event : events) {
    if (event.type == "session" && event.state == c_client_state && event.time >= from) return event.time;
  }
  return std::nullopt;
}

}  // namespace live
