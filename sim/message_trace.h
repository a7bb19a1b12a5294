// The network's opt-in message trace: how a message is put into words for people (diagrams,
// narration). The engine does not know the models' message types; the harness, which does, hands
// the network a MessageDescriber (see Network::trace_messages).
#pragma once

#include <string>
#include <string_view>

namespace sim {

class Simulation;

struct MessageDescription {
  std::string_view category = "message";  // "election", "zab", "client", "es", "tcp", ...
  std::string text;                       // "vote for zk3 (zxid 0x0, peerEpoch 0, round 1, LOOKING)"
  bool heartbeat = false;                 // pings and their answers, which a diagram may hide
};

// Describes a message whose type has the tag message_type<M>() (sim/network.h); `sim` names nodes.
using MessageDescriber = MessageDescription (*)(const Simulation& sim, const void* type, const void* message);

}  // namespace sim
