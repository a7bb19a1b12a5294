// zab-monotonic-reads: within one session, a client never sees a node older than a version it has
// already seen of it. ZooKeeper promises it (a client only connects to a server at least as up to
// date as the last zxid it saw), so a read that goes back in time means a committed write was lost,
// as in ZOOKEEPER-4646 (a client reads a txn a majority had not yet written to disk; crashes, and a
// new leader without it). The workload's writers trace what they see (workload.seen, with
// clients.reads): the mzxid their setData returned and the one a getData of the node right after it
// returned.
#pragma once

#include <map>
#include <string>
#include <tuple>

#include "properties/Property.h"

namespace properties {

class ZabMonotonicReads final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "zab-monotonic-reads"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  // (client, session, path) -> the newest mzxid seen, and how.
  std::map<std::tuple<sim::NodeId, std::int64_t, std::string>, std::pair<std::int64_t, std::string>, std::less<>> newest_;
};

}  // namespace properties
