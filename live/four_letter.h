// The four-letter word `srvr` (org.apache.zookeeper.server.command.StatCommand, in srvr mode): what a
// live server says about itself. It is the only window into a real server's state that needs no
// client session: its mode (leader/follower/standalone, or not serving while it looks for a leader)
// and its last zxid.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

#include "live/endpoint.h"

namespace live {

enum class ServerMode {
  down,         // connection refused: no process, or the JVM has not opened the client port yet
  no_answer,    // connected but silent within the timeout: a paused (SIGSTOP) or overloaded process
  not_serving,  // "This ZooKeeper instance is not currently serving requests": LOOKING, or syncing
  leader,
  follower,
  observer,
  standalone,
};

std::string_view server_mode_name(ServerMode mode);

struct ServerStatus {
  ServerMode mode = ServerMode::down;
  std::optional<std::int64_t> zxid;  // "Zxid: 0x..." when serving
};

// Parses the text a server answers to `srvr`.
ServerStatus parse_srvr(const std::string& answer);

// Connects to the server, sends "srvr", reads the answer until the server closes the connection.
// `timeout` bounds the connect and the whole read.
ServerStatus query_srvr(const Endpoint& server, std::chrono::milliseconds timeout);

}  // namespace live
