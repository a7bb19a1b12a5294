// How the harness's human outputs (the run's timeline, the narration, the viewer's panel) write a
// trace's instants and ids, so they read the same everywhere (D20 of the teaching review).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

#include "properties/zxid_text.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "sim/trace.h"

namespace harness {

// "    2.012170s": seconds to the microsecond, fixed width, integer arithmetic (no floating point
// near the clock).
inline std::string clock_text(sim::Instant time) {
  std::int64_t nanos = (time - sim::epoch).count();
  char text[40];
  std::snprintf(text, sizeof text, "%6lld.%06llds", static_cast<long long>(nanos / 1000000000), static_cast<long long>(nanos % 1000000000 / 1000));
  return text;
}

// A session id or zxid: "0x3001224a4a40000".
inline std::string hex_text(std::int64_t value) { return properties::zxid_text(value); }

// Every server applies a committed txn and traces it: the first that does tells it. Its other
// effects (a closeSession deletes several ephemerals) come with the same zxid from the same server;
// a server re-applying from its log ("replayed"), or a lagging one applying an older txn, is no news.
class FirstTelling {
 public:
  bool operator()(const sim::TraceEvent& event) {
    if (event.boolean("replayed")) return false;
    std::int64_t zxid = event.integer("zxid", -1);
    if (zxid > zxid_) {
      zxid_ = zxid;
      node_ = event.node;
      return true;
    }
    return zxid == zxid_ && event.node == node_;
  }

 private:
  std::int64_t zxid_ = -1;
  sim::NodeId node_ = sim::no_node;
};

}  // namespace harness
