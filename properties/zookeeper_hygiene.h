// ZooKeeper hygiene, judged per server from the trace.
//
// ephemeral-cleanup: once a server has applied a session's closeSession, it holds no ephemeral
//   owned by that session, and never creates one afterwards (ZOOKEEPER-1208 broke the second).
// watch-once: a one-shot watch fires at most once per registration: every watch.fire on a
//   connection and path consumes a registration (watch.register) of the table that event fires
//   from, unless a persistent watch (addWatch, 3.6+) covers it: a persistent watch on the path, or
//   a recursive one on the path or a parent (not for NodeChildrenChanged). As in 3.8, the last
//   registration of a path and table sets its mode (a standard one after a persistent one makes
//   it one-shot again, ZOOKEEPER-4466).
#pragma once

#include <map>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "properties/Property.h"

namespace properties {

class EphemeralCleanup final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "ephemeral-cleanup"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  // Per server: live ephemerals (path -> owner) and the sessions it has closed.
  std::map<sim::NodeId, std::map<std::string, std::int64_t, std::less<>>> ephemerals_;
  std::map<sim::NodeId, std::set<std::int64_t>> closed_;
};

class WatchOnce final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "watch-once"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  enum class Mode : std::uint8_t { standard, persistent, persistent_recursive };
  enum class Table : std::uint8_t { data, child };
  struct Key {
    sim::NodeId server;
    std::int64_t connection;
    std::string path;
    Table table;
  };
  // Looked up by a view of the path, so a watch.fire copies no path.
  struct KeyView {
    sim::NodeId server;
    std::int64_t connection;
    std::string_view path;
    Table table;
  };
  struct KeyOrder {
    using is_transparent = void;
    template <typename A, typename B>
    bool operator()(const A& a, const B& b) const {
      return std::forward_as_tuple(a.server, a.connection, a.table, std::string_view(a.path)) <
             std::forward_as_tuple(b.server, b.connection, b.table, std::string_view(b.path));
    }
  };
  // Whether `table`'s watch of the connection on exactly `path` hears of the event (consuming a
  // one-shot).
  bool fires(const sim::TraceEvent& event, std::string_view path, Table table, std::string_view type);
  // (server, connection, table, path) -> the mode of a watch not yet used up.
  std::map<Key, Mode, KeyOrder> registered_;
  // (server, connection) -> the paths it watches recursively: the data-table keys of registered_
  // in persistent_recursive mode, so an event finds the recursive watches above its path with one
  // lookup instead of one per ancestor.
  std::map<std::pair<sim::NodeId, std::int64_t>, std::vector<std::string>> recursive_;
  void noteRecursive(sim::NodeId server, std::int64_t connection, std::string_view path, bool was, bool is);
};

}  // namespace properties
