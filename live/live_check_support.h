// What the live side of every conformance check shares: the ensemble's configuration, starting it
// and waiting for a leader, and the words the model uses for what srvr and the C client report.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "live/client.h"
#include "live/conformance.h"
#include "live/ensemble.h"

namespace live {

// Generous upper bounds for each wait, so a slow machine ends a check with a clear "not within",
// never a hang. JVM start-up of three servers on two shared cores takes a few seconds.
inline constexpr Milliseconds ensemble_start_wait_max{60'000};
inline constexpr Milliseconds election_wait_max{15'000};

double elapsed_ms(Clock::time_point from, Clock::time_point to);

// The model's words for a server's state (QuorumPeer.ServerState), from what srvr says.
std::string peer_state_word(ServerMode mode);
// The model's words for a C client session state (the Java client's KeeperState names):
// connected is SyncConnected, connecting (after a loss) is Disconnected, expired is Expired.
std::string keeper_state_word(const std::string& c_client_state);
// The C client's error codes are KeeperException.Code's numbers, as the model's zk::Code.
std::string code_word(int code);

LiveEnsembleConfig ensemble_config(const ConformanceConfig& config, int servers = 3);
bool all_answer(const std::vector<ServerStatus>& statuses);
// Every server answers, one leads and the others follow.
bool settled(const std::vector<ServerStatus>& statuses);
// "127.0.0.1:port" of one server: a client of that server only.
std::string connect_string_of(const LiveEnsemble& ensemble, int sid);

// Starts every server back to back and waits for a leader. Fills "jvms up" (the last start until
// every client port answered) and "serving" (every port answered until one server reported leader).
std::optional<int> start_and_elect(LiveEnsemble& ensemble, Measures& measures);

// The first session event after `from` whose state is `c_client_state`.
std::optional<Clock::time_point> first_session_state(const std::vector<ClientEvent>& events, const std::string& c_client_state,
                                                     Clock::time_point from);

}  // namespace live
