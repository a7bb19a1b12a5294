#include "properties/zookeeper_hygiene.h"

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
    ephemerals_[event.node].erase(std::string(event.text("path")));
  } else if (event.kind == "session.close") {
    std::int64_t session = event.integer("session");
    closed_[event.node].insert(session);
    for (const auto& [path, owner] : ephemerals_[event.node]) {
      if (owner == session) violate(node_name(event.node) + " kept ephemeral " + path + " after closing its session " + std::to_string(session));
    }
  }
}

void WatchOnce::on_event(const sim::TraceEvent& event) {
  if (event.kind == "node.crash" || event.kind == "node.power_off") {
    // Connections (and their watches) die with the process.
    std::erase_if(registered_, [&](const auto& entry) { return std::get<0>(entry.first) == event.node; });
    return;
  }
  if (event.kind == "watch.register") {
    registered_[{event.node, event.integer("connection"), std::string(event.text("path")), std::string(event.text("table"))}]++;
    return;
  }
  if (event.kind != "watch.fire") return;
  std::int64_t connection = event.integer("connection");
  std::string path(event.text("path"));
  std::string_view type = event.text("type");
  auto consume = [&](const char* table) {
    auto found = registered_.find({event.node, connection, path, table});
    if (found == registered_.end() || found->second == 0) return false;
    found->second = 0;  // one event consumes every registration of that path and table
    return true;
  };
  bool had = false;
  std::string_view table = event.text("table");
  if (!table.empty()) {
    had = consume(table == "child" ? "child" : "data");  // a SetWatches catch-up: one table's watch
  } else if (type == "NodeChildrenChanged") {
    had = consume("child");
  } else if (type == "NodeDeleted") {
    bool data = consume("data");
    bool child = consume("child");
    had = data || child;
  } else {
    had = consume("data");
  }
  if (!had) {
    violate(node_name(event.node) + " fired " + std::string(type) + " on " + path + " for connection " + std::to_string(connection) +
            " with no watch registered: a watch fired twice");
  }
}

}  // namespace properties
