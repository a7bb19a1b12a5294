#include "harness/view_state.h"

#include <algorithm>

#include "harness/trace_text.h"
#include "sim/node.h"

namespace harness {

namespace {

// A sequential node's name ends in ten digits ("_c_<uuid>-latch-0000000001"): the short name the
// panel shows is what follows the protection prefix ("latch-0000000001").
bool sequential(std::string_view name) {
  if (name.size() < 10) return false;
  return std::all_of(name.end() - 10, name.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::string short_child(std::string_view name) {
  std::size_t dash = name.rfind('-', name.size() - 11);
  std::size_t start = name.rfind('-', dash == std::string_view::npos || dash == 0 ? 0 : dash - 1);
  if (name.starts_with("_c_") && start != std::string_view::npos) return std::string(name.substr(start + 1));
  return std::string(name);
}

std::pair<std::string, std::string> split_path(std::string_view path) {
  std::size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return {std::string(), std::string(path)};
  return {std::string(path.substr(0, slash)), std::string(path.substr(slash + 1))};
}

bool is_server(std::string_view name) { return name.size() > 2 && name.starts_with("zk"); }
bool is_es(std::string_view name) { return name.size() > 2 && name.starts_with("es"); }

}  // namespace

void NodeStates::attach(const sim::Simulation& sim) {
  names_.clear();
  for (sim::NodeId id = 0; id < sim.node_count(); id++) names_.push_back(sim.node(id).name());
}

void NodeStates::set(std::size_t lane, std::string_view field, std::string value) {
  auto& fields = fields_[lane];
  auto found = fields.find(field);
  if (found == fields.end()) {
    if (value.empty()) return;
    fields.emplace(std::string(field), value);
  } else {
    if (found->second == value) return;
    if (value.empty()) {
      fields.erase(found);
    } else {
      found->second = value;
    }
  }
  changed_[{lane, std::string(field)}] = std::move(value);
}

std::vector<FieldChange> NodeStates::take_changes() {
  std::vector<FieldChange> changes;
  changes.reserve(changed_.size());
  for (auto& [key, value] : changed_) changes.push_back(FieldChange{key.first, key.second, std::move(value)});
  changed_.clear();
  return changes;
}

std::vector<FieldChange> NodeStates::snapshot() const {
  std::vector<FieldChange> all;
  for (const auto& [lane, fields] : fields_) {
    for (const auto& [field, value] : fields) all.push_back(FieldChange{lane, field, value});
  }
  return all;
}

std::string NodeStates::node_name(std::int64_t sid) const { return "zk" + std::to_string(sid); }

std::string NodeStates::owner_of(std::int64_t session) const {
  auto owner = session_owner_.find(session);
  return owner == session_owner_.end() ? hex_text(session) : owner->second;
}

void NodeStates::on_event(const sim::TraceEvent& event) {
  std::string_view kind = event.kind;
  if (kind.starts_with("net.") || kind.starts_with("site.")) return;
  if (event.node == sim::no_node || event.node >= names_.size()) return;
  std::size_t lane = event.node;
  // Every node: up, crashed, powered off, paused. A process that dies takes its beliefs with it.
  if (kind == "node.start" || kind == "node.resume") {
    set(lane, "status", "up");
    return;
  }
  if (kind == "node.crash" || kind == "node.power_off" || kind == "node.pause") {
    set(lane, "status", kind == "node.crash" ? "crashed" : kind == "node.power_off" ? "powered off" : "paused");
    if (kind == "node.pause") return;  // a paused process keeps its (stale) beliefs
    for (std::string_view field : {"role", "vote", "round", "heard", "leader", "connection", "session", "curator", "latch", "selector",
                                   "job leader", "running", "naive", "master", "follows"}) {
      set(lane, field, "");
    }
    heard_.erase(lane);
    running_.erase(lane);
    return;
  }
  on_cluster_event(event);
  if (is_server(names_[lane])) on_server_event(event, lane);
  if (is_es(names_[lane])) on_es_event(event, lane);
  on_client_event(event, lane);
}

void NodeStates::on_server_event(const sim::TraceEvent& event, std::size_t lane) {
  std::string_view kind = event.kind;
  if (kind == "zk.state") {
    std::string state(event.text("state"));
    set(lane, "role", state);
    if (state == "LEADING") set(lane, "leader", names_[lane] + " (itself)");
    if (state == "LOOKING") {
      set(lane, "leader", "");
      heard_.erase(lane);
      set(lane, "heard", "");
    }
  } else if (kind == "fle.vote") {
    set(lane, "vote", node_name(event.integer("leader")) + " (zxid " + hex_text(event.integer("zxid")) + ", peerEpoch " +
                          std::to_string(event.integer("peer_epoch")) + ")");
    std::int64_t round = event.integer("round");
    if (round_[lane] != round) {
      round_[lane] = round;
      heard_.erase(lane);
      show_heard(lane);
    }
    set(lane, "round", std::to_string(round));
  } else if (kind == "fle.notification") {
    // The votes it holds for this round: what its quorum count reads (FastLeaderElection's recvset).
    if (event.text("state") == "LOOKING" && event.integer("round") == round_[lane]) {
      heard_[lane][event.integer("from")] = event.integer("leader");
      show_heard(lane);
    }
  } else if (kind == "zab.following") {
    set(lane, "leader", node_name(event.integer("leader")));
  } else if (kind == "zab.epoch") {
    set(lane, "epoch", "current " + std::to_string(event.integer("current_epoch")) + ", accepted " + std::to_string(event.integer("accepted_epoch")));
  } else if (kind == "zab.txn_appended" || kind == "zab.db_reload") {
    set(lane, "logged", hex_text(event.integer("zxid")));
  } else if (kind == "zab.commit") {
    set(lane, "committed", hex_text(event.integer("zxid")));
  }
}

void NodeStates::show_heard(std::size_t lane) {
  std::string text;
  for (const auto& [from, leader] : heard_[lane]) {
    if (!text.empty()) text += ", ";
    text += node_name(from) + "→" + node_name(leader);
  }
  set(lane, "heard", text);
}

void NodeStates::on_client_event(const sim::TraceEvent& event, std::size_t lane) {
  std::string_view kind = event.kind;
  if (kind == "client.state") {
    std::string state(event.text("state"));
    if (event.text("layer") == "curator") {
      set(lane, "curator", state);
      return;
    }
    std::int64_t server = event.integer("server");
    set(lane, "connection", state + (state == "CONNECTED" && server > 0 ? " to " + node_name(server) : std::string()));
    if (std::int64_t session = event.integer("session"); session != 0) {
      session_owner_[session] = names_[lane];
      set(lane, "session", hex_text(session));
    }
  } else if (kind == "curator.handle_replaced") {
    session_owner_[event.integer("new_session")] = names_[lane];
    set(lane, "session", hex_text(event.integer("new_session")));
  } else if (kind == "latch.reset") {
    latches_[std::string(event.text("path"))];  // a latch parent, even while empty
    set(lane, "latch", "joining " + std::string(event.text("path")));
  } else if (kind == "latch.node_created") {
    auto [parent, name] = split_path(event.text("path"));
    set(lane, "latch", short_child(name) + ", waiting");
  } else if (kind == "latch.leader") {
    auto [parent, name] = split_path(event.text("node_path"));
    set(lane, "latch", short_child(name) + ", LEADER");
  } else if (kind == "latch.not_leader") {
    set(lane, "latch", "not leader");
  } else if (kind == "selector.leader") {
    set(lane, "selector", "LEADER of " + std::string(event.text("path")));
  } else if (kind == "selector.released") {
    set(lane, "selector", "");
  } else if (kind == "job.leader") {
    set(lane, "job leader", "LEADER of " + std::string(event.text("job")));
  } else if (kind == "job.not_leader") {
    set(lane, "job leader", "");
  } else if (kind == "job.sharding") {
    // The leader's assignment, as it wrote it: shared by the job's instances, so the cluster's.
    set(cluster_lane, "sharding " + std::string(event.text("job")), std::string(event.text("assignment")) + " (by " + names_[lane] + ")");
  } else if (kind == "job.exec.start" || kind == "job.exec.end") {
    auto& items = running_[lane][std::string(event.text("job"))];
    if (kind == "job.exec.start") {
      items.insert(event.integer("item"));
    } else {
      items.erase(event.integer("item"));
    }
    show_running(lane);
  } else if (kind == "naive.master") {
    set(lane, "naive", "holds /master");
  } else if (kind == "naive.release") {
    set(lane, "naive", "");
  }
}

void NodeStates::show_running(std::size_t lane) {
  std::string text;
  for (const auto& [job, items] : running_[lane]) {
    if (items.empty()) continue;
    if (!text.empty()) text += "; ";
    text += job + " items";
    for (std::int64_t item : items) text += " " + std::to_string(item);
  }
  set(lane, "running", text);
}

void NodeStates::on_es_event(const sim::TraceEvent& event, std::size_t lane) {
  std::string_view kind = event.kind;
  // As es-single-master reads it: a node acts as master from its first commit as master until it
  // says it is not, or dies (properties/es_single_master.cpp).
  if (kind == "es.commit") {
    set(lane, "master", "MASTER, committed version " + std::to_string(event.integer("version")));
    set(lane, "follows", "");
  } else if (kind == "es.master") {
    if (event.boolean("master")) {
      set(lane, "master", "MASTER: " + std::string(event.text("what")));
      set(lane, "follows", "");
    } else {
      set(lane, "master", "");
    }
  } else if (kind == "es.join") {
    if (event.boolean("ok")) set(lane, "follows", std::string(event.text("master")));
  } else if (kind == "es.rejoin") {
    set(lane, "follows", "nobody (rejoining: " + std::string(event.text("reason")) + ")");
  } else if (kind == "es.apply") {
    set(lane, "applied", "version " + std::to_string(event.integer("version")) + " from " + std::string(event.text("master")));
  }
}

void NodeStates::on_cluster_event(const sim::TraceEvent& event) {
  std::string_view kind = event.kind;
  if ((kind == "session.create" || kind == "session.close" || kind == "znode.create" || kind == "znode.delete") && !first_telling_(event)) {
    return;
  }
  if (kind == "session.create") {
    sessions_live_.insert(event.integer("session"));
    show_sessions();
    return;
  }
  if (kind == "session.close" || kind == "session.expire") {
    if (sessions_live_.erase(event.integer("session")) > 0) show_sessions();
    return;
  }
  if (kind == "watch.register" || kind == "watch.fire") {
    std::string path(event.text("path"));
    auto [parent, name] = split_path(path);
    if (!latches_.contains(parent)) return;
    if (kind == "watch.register") {
      watchers_[path] = owner_of(event.integer("session"));
    } else {
      watchers_.erase(path);
    }
    show_latches();
    return;
  }
  if (kind != "znode.create" && kind != "znode.delete") return;
  auto [parent, name] = split_path(event.text("path"));
  auto latch = latches_.find(parent);
  if (latch == latches_.end() || !sequential(name)) return;
  std::string sequence = name.substr(name.size() - 10);
  if (kind == "znode.create") {
    std::int64_t owner = event.integer("ephemeral_owner");
    latch->second[sequence] = LatchChild{short_child(name), owner != 0 ? owner_of(owner) : std::string("?")};
  } else {
    latch->second.erase(sequence);
    watchers_.erase(std::string(event.text("path")));
  }
  show_latches();
}

void NodeStates::show_sessions() {
  std::string owners;
  for (std::int64_t session : sessions_live_) owners += (owners.empty() ? "" : ", ") + owner_of(session);
  set(cluster_lane, "sessions", std::to_string(sessions_live_.size()) + " live" + (owners.empty() ? "" : ": " + owners));
}

void NodeStates::show_latches() {
  // In line order: the first is the leader, each other watches the one before it (or, with the herd
  // bug, the parent, which is not a child and so not listed here).
  for (const auto& [parent, children] : latches_) {
    std::string text;
    for (const auto& [sequence, child] : children) {
      if (!text.empty()) text += " · ";
      text += child.name + " (" + child.owner + ")";
    }
    std::string watching;
    for (const auto& [path, watcher] : watchers_) {
      auto [watched_parent, name] = split_path(path);
      if (watched_parent != parent) continue;
      if (!watching.empty()) watching += ", ";
      watching += watcher + " watches " + short_child(name);
    }
    if (!watching.empty()) text += "; " + watching;
    set(cluster_lane, "queue " + parent, text.empty() ? std::string("empty") : text);
  }
}

}  // namespace harness
