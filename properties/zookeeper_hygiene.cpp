#include "properties/zookeeper_hygiene.h"

#include <algorithm>
#include <utility>

namespace properties {

std::span<const std::string_view> EphemeralCleanup::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"node.crash", "node.power_off", "zab.db_reload", "znode.create", "znode.delete", "session.close"};
  return read;
}

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
    ephemerals_[event.node].insert_or_assign(std::move(path), owner);
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

namespace {
bool isStrictAncestor(std::string_view ancestor, std::string_view path) {
  if (ancestor == "/") return path != "/";
  return path.size() > ancestor.size() && path.starts_with(ancestor) && path[ancestor.size()] == '/';
}
}  // namespace

void WatchOnce::noteRecursive(sim::NodeId server, std::int64_t connection, std::string_view path, bool was, bool is) {
  if (was == is) return;
  std::vector<std::string>& paths = recursive_[{server, connection}];
  if (is) {
    paths.emplace_back(path);
    return;
  }
  auto found = std::ranges::find(paths, path);
  ELECTSIM_ASSERT(found != paths.end());
  paths.erase(found);
  if (paths.empty()) recursive_.erase({server, connection});
}

bool WatchOnce::fires(const sim::TraceEvent& event, std::string_view path, Table table, std::string_view type) {
  auto found = registered_.find(KeyView{event.node, event.integer("connection"), path, table});
  if (found == registered_.end()) return false;
  switch (found->second) {
    case Mode::persistent_recursive: return type != "NodeChildrenChanged";
    case Mode::persistent: return true;
    case Mode::standard:
      registered_.erase(found);  // one event consumes every registration of that path and table
      return true;
  }
  return false;
}

std::span<const std::string_view> WatchOnce::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"node.crash", "node.power_off", "watch.register", "watch.fire"};
  return read;
}

void WatchOnce::on_event(const sim::TraceEvent& event) {
  if (event.kind == "node.crash" || event.kind == "node.power_off") {
    // Connections (and their watches) die with the process.
    std::erase_if(registered_, [&](const auto& entry) { return entry.first.server == event.node; });
    std::erase_if(recursive_, [&](const auto& entry) { return entry.first.first == event.node; });
    return;
  }
  if (event.kind == "watch.register") {
    std::string_view path = event.text("path");
    std::string_view table = event.text("table");
    std::int64_t connection = event.integer("connection");
    auto set = [&](Table which, Mode mode) {
      auto found = registered_.find(KeyView{event.node, connection, path, which});
      bool wasRecursive = found != registered_.end() && found->second == Mode::persistent_recursive;
      if (found != registered_.end()) {
        found->second = mode;  // WatcherModeManager.setWatcherMode: the last registration's mode
      } else {
        registered_.emplace(Key{event.node, connection, std::string(path), which}, mode);
      }
      if (which == Table::data) noteRecursive(event.node, connection, path, wasRecursive, mode == Mode::persistent_recursive);
    };
    if (table == "persistent" || table == "persistent_recursive") {
      // DataTree.addWatch: both tables.
      Mode mode = table == "persistent" ? Mode::persistent : Mode::persistent_recursive;
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
    had = fires(event, path, Table::child, type);
  } else if (type == "NodeDeleted") {
    bool data = fires(event, path, Table::data, type);
    bool child = fires(event, path, Table::child, type);
    had = data || child;
  } else {
    had = fires(event, path, Table::data, type);
  }
  if (!had && type != "NodeChildrenChanged" && table.empty()) {
    // A recursive watch on an ancestor (registered in the data table as in both). Looking there
    // consumes nothing, so it is needed only while no watch has been found.
    if (auto watching = recursive_.find({event.node, connection}); watching != recursive_.end()) {
      had = std::ranges::any_of(watching->second, [&](const std::string& root) { return isStrictAncestor(root, path); });
    }
  }
  if (!had) {
    violate(node_name(event.node) + " fired " + std::string(type) + " on " + std::string(path) + " for connection " + std::to_string(connection) +
            " with no watch registered: a watch fired twice");
  }
}

}  // namespace properties
