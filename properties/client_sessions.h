// Which process each ZooKeeper client session belongs to, learned from the clients' client.state
// events (layer zookeeper, with the session id), so that a property can name the process behind a
// session the servers report ("i2 (session 0x...)").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "sim/simulation.h"
#include "sim/trace.h"

namespace properties {

class ClientSessions {
 public:
  void observe(const sim::TraceEvent& event);
  std::optional<sim::NodeId> nodeOf(std::int64_t session) const;
  // "i2 (session 0x2000fe1950a0000)", or "an unknown client (session ...)".
  std::string describe(const sim::Simulation& sim, std::int64_t session) const;

 private:
  std::map<std::int64_t, sim::NodeId> nodes_;
};

// A session id or zxid as ZooKeeper prints it: 0x followed by lower-case hex.
std::string formatHex(std::int64_t session);

}  // namespace properties
