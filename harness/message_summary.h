// Messages in words, for the network's opt-in message trace (sim/message_trace.h): what an
// election notification, a Zab packet, a ZooKeeper client packet or an Elasticsearch transport
// message says, in one line a diagram can show on hover. The engine knows no message type; this
// is where the harness, which links every model, names them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>

#include "sim/message_trace.h"
#include "sim/trace.h"

namespace harness {

// One message of the network's trace, from its net.send to its net.deliver or net.drop, as the
// diagram and the viewer draw it.
struct TracedMessage {
  std::size_t from = 0;  // lanes
  std::size_t to = 0;
  sim::Instant sent{};
  std::optional<sim::Instant> received;  // where it ended, delivered or not
  std::string what;
  std::string category;
  bool heartbeat = false;
  std::string lost;  // why it never reached the process, if it did not

  static TracedMessage sent_by(const sim::TraceEvent& send, std::size_t from, std::size_t to);
  void ended(const sim::TraceEvent& deliver_or_drop);
};

// A sim::MessageDescriber: pass it as RunOptions::message_describer.
sim::MessageDescription describe_message(const sim::Simulation& sim, const void* type, const void* message);

}  // namespace harness
