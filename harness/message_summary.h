// Messages in words, for the network's opt-in message trace (sim/message_trace.h): what an
// election notification, a Zab packet, a ZooKeeper client packet or an Elasticsearch transport
// message says, in one line a diagram can show on hover. The engine knows no message type; this
// is where the harness, which links every model, names them.
#pragma once

#include "sim/message_trace.h"

namespace harness {

// A sim::MessageDescriber: pass it as RunOptions::message_describer.
sim::MessageDescription describe_message(const sim::Simulation& sim, const void* type, const void* message);

}  // namespace harness
