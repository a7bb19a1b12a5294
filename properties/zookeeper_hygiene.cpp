#include "properties/zookeeper_hygiene.h"

#include <algorithm>

namespace properties {

void EphemeralCleanup::on_event(const sim::TraceEvent& event) {
  if (event.kind == "node.crash" || event.kind == "node.power_off") {
    // A restarted server reloads its state; it replays closes before any later create.
    ephemerals_.erase(event.node);
    closed_.erase(event.node);
    return;
  }
  if (event.kind == "zab.db_reload") {
    // The server's tree was replaced (a snapshot from disk or from the leader); the znode.create
    // events that follow list the ephemerals it now holds.
    ephemerals_.erase(event.node);
    closed_.erase(event.node);
    return;
  }
  if (event.kind == "znode.create") {
    std::int64_t owner = event.integer("ephemeral_owner");
    if (owner == 0) return;
    std::string path(event.text("path"));
    if (closed_[event.node].contains(owner)) {
      violate(node_name(event.node) + " created ephemeral " + path + " for session " + std::to_string(owner) +
              " after that session's closeSession: it will never be deleted");
    }
    ephemerals_[event.node][path] = owner;
  } else if (event.kind == "znode.delete") {
    auto& ephemerals = ephemerals_[event.node];
    if (auto found = ephemerals.find(event.text("path")); found != ephemerals.end()) ephemerals.erase(found);
  } else if (event.kind == "session.close") {
    std::int64_t session = event.integer("session");
    closed_[event.node].insert(session);
    for (const auto& [path, owner] : ephemerals_[event.node]) {
      if (owner == session) violate(node_name(event.node) + " kept ephemeral " + path + " after closing its session " + std::to_string(session));
    }
  }
}

bool WatchOnce::fires(const sim::TraceEvent& event, std::string_view path, Table table, std::string_view type, bool atParent) {
  auto found = registered_.find(KeyView{event.node, event.integer("connection"), path, table});
  if (found == registered_.end()) return false;
  switch (found->second) {
    case Mode::persistent_recursive: return type != "NodeChildrenChanged";
    case Mode::persistent: return !atParent;
    case Mode::standard:
      if (atParent) return false;
      registered_.erase(found);  // one event consumes every registration of that path and table
      return true;
  }
  return false;
}

void WatchOnce::on_event(const sim::TraceEvent& event) {
  if (event.kind == "node.crash" || event.kind == "node.power_off") {
    // Connections (and their watches) die with the process.
    std::erase_if(registered_, [&](const auto& entry) { return entry.first.server == event.node; });
    return;
  }
  if (event.kind == "watch.register") {
    std::string_view path = event.text("path");
    std::string_view table = event.text("table");
    std::int64_t connection = event.integer("connection");
    auto set = [&](Table which, Mode mode) {
      auto found = registered_.find(KeyView{event.node, connection, path, which});
      if (found != registered_.end()) {
        found->second = mode;
      } else {
        registered_.emplace(Key{event.node, connection, std::string(path), which}, mode);
      }
    };
    if (table == "persistent" || table == "persistent_recursive") {
      // DataTree.addWatch: both tables.
      Mode mode = table == "persistent" ? Mode::persistent : Mode::persistent_recursive;
      if (mode == Mode::persistent_recursive) recursive_++;
      set(Table::data, mode);
      set(Table::child, mode);
    } else {
      set(table == "child" ? Table::child : Table::data, Mode::standard);
    }
    return;
  }
  if (event.kind != "watch.fire") return;
  std::int64_t connection = event.integer("connection");
  std::string_view path = event.text("path");
  std::string_view type = event.text("type");
  bool had = false;
  std::string_view table = event.text("table");
  if (!table.empty()) {
    // A SetWatches catch-up answers one table's one-shot watch (persistent ones get none).
    auto found = registered_.find(KeyView{event.node, connection, path, table == "child" ? Table::child : Table::data});
    had = found != registered_.end() && found->second == Mode::standard;
    if (had) registered_.erase(found);
  } else if (type == "NodeChildrenChanged") {
    had = fires(event, path, Table::child, type, false);
  } else if (type == "NodeDeleted") {
    bool data = fires(event, path, Table::data, type, false);
    bool child = fires(event, path, Table::child, type, false);
    had = data || child;
  } else {
    had = fires(event, path, Table::data, type, false);
  }
  if (recursive_ > 0 && type != "NodeChildrenChanged" && table.empty()) {
    // A recursive watch on a parent (registered in the data table as in both).
    std::string_view parent = path;
    while (parent != "/" && !parent.empty()) {
      parent = parent.substr(0, std::max<std::size_t>(parent.rfind('/'), 1));
      if (fires(event, parent, Table::data, type, true)) had = true;
    }
  }
  if (!had) {
    violate(node_name(event.node) + " fired " + std::string(type) + " on " + std::string(path) + " for connection " + std::to_string(connection) +
            " with no watch registered: a watch fired twice");
  }
}

}  // namespace properties
