// ZooKeeper hygiene, judged per server from the trace.
//
// ephemeral-cleanup: once a server has applied a session's closeSession, it holds no ephemeral
//   owned by that session, and never creates one afterwards (ZOOKEEPER-1208 broke the second).
// watch-once: a watch fires at most once per registration: every watch.fire on a connection and
//   path consumes a registration (watch.register) of the table that event fires from.
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>

#include "properties/Property.h"

namespace properties {

class EphemeralCleanup final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "ephemeral-cleanup"; }
  void on_event(const sim::TraceEvent& event) override;

 private:
  // Per server: live ephemerals (path -> owner) and the sessions it has closed.
  std::map<sim::NodeId, std::map<std::string, std::int64_t>> ephemerals_;
  std::map<sim::NodeId, std::set<std::int64_t>> closed_;
};

class WatchOnce final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "watch-once"; }
  void on_event(const sim::TraceEvent& event) override;

 private:
  // (server, connection, path, table) -> registrations not yet fired.
  std::map<std::tuple<sim::NodeId, std::int64_t, std::string, std::string>, int> registered_;
  std::set<sim::NodeId> restarted_;
};

}  // namespace properties
