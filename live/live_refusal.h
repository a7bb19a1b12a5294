// What `electsim live` refuses to run, and where the scenario file says it (docs/live-mode.md,
// "What live mode refuses"): a valid scenario that a real ZooKeeper 3.8 ensemble on this machine
// cannot run as written. The refusal comes before any JVM starts, as FILE:LINE:COLUMN at the key
// and exit status 2, like every other bad input.
#pragma once

#include <optional>
#include <string>

#include "harness/scenario.h"

namespace live {

// The shortest session timeout live mode asks for. The C client gives a connection 2/3 of the
// requested timeout, in whole milliseconds, to bring the server's ConnectResponse
// (zookeeper_interest: `recv_to = zh->recv_timeout*2/3 - idle_recv`, and at `recv_to <= 0`
// "connection timed out" and the next server); only that response replaces the requested timeout
// with the negotiated one. For 1ms the window is 0 ms: every attempt times out at its first check,
// before any answer, and the client opens a new connection at once, over and over (a thousand a
// second through the client proxy), though the servers would have raised the timeout to 2 ticks.
// From 2ms on the window is at least 1 ms; on loopback the handshake fits it (2ms, 4ms, 8ms and up
// connected here, 2026-12-05), though a loaded machine makes such values miss it often.
inline constexpr sim::Duration live_session_timeout_min = std::chrono::milliseconds(2);

struct LiveRefusal {
  std::string key_path;   // where the file says it: "zookeeper.servers", "faults[*].after.event"
  std::string key_value;  // with [*] in key_path: the value of the key that picks the item
  std::string message;    // "zookeeper.servers: at most 9 real servers on one machine"
  // Where to point when key_path is not written in the file (a default made it too large).
  std::string fallback_key_path;
};

// Why `scenario` cannot run live, or nothing.
std::optional<LiveRefusal> live_refusal(const harness::Scenario& scenario);

// "FILE:LINE:COLUMN: live: MESSAGE" at the refused key in `file` (read again), or "FILE: live:
// MESSAGE" when the key is not written there (or the file cannot be read again).
std::string live_refusal_text(const std::string& file, const LiveRefusal& refusal);

// The ZooKeeper sessions a scenario opens through live mode's client proxy, one proxy client each:
// every instance's (ElasticJob's console has one more), every writer's, and one more for each
// restart of an instance. A session that expires is replaced by a new one as the run goes; those
// cannot be counted before the run.
int live_client_sessions(const harness::Scenario& scenario);

}  // namespace live
