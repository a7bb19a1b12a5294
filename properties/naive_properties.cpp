#include "properties/naive_properties.h"

#include <algorithm>

#include "sim/assert.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/simulation.h"
#include "sim/time.h"

namespace properties {

NaiveMasterStable::NaiveMasterStable(sim::Simulation& sim, std::vector<sim::NodeId> ensemble)
    : Property(sim), ensemble_(std::move(ensemble)) {
  ELECTSIM_ASSERT(!ensemble_.empty());
}

bool NaiveMasterStable::running(sim::NodeId node) const {
  const sim::Node& process = sim().node(node);
  return process.up() && !process.paused();
}

bool NaiveMasterStable::linked(sim::NodeId one, sim::NodeId other) const {
  const sim::Network& network = sim().network();
  return network.reachable(one, other) && network.reachable(other, one);
}

bool NaiveMasterStable::inTouch(sim::NodeId master) const {
  auto client = clients_.find(master);
  if (client == clients_.end() || !client->second.connected || !running(master)) return false;
  sim::NodeId server = client->second.server;
  if (server == sim::no_node || !running(server) || !linked(master, server)) return false;
  if (!leader_ || !running(*leader_)) return false;
  if (server != *leader_ && !linked(server, *leader_)) return false;
  std::size_t quorum = std::count_if(ensemble_.begin(), ensemble_.end(), [&](sim::NodeId peer) {
    return peer == *leader_ || (running(peer) && linked(*leader_, peer));
  });
  return quorum * 2 > ensemble_.size();
}

void NaiveMasterStable::on_event(const sim::TraceEvent& event) {
  record(event);
  if (master_ && master_in_touch_ && !inTouch(*master_)) master_in_touch_ = false;
  if (event.kind == "naive.master") onMaster(event);
}

void NaiveMasterStable::record(const sim::TraceEvent& event) {
  const std::string_view kind = event.kind;
  if (kind == "node.start" || kind == "node.crash" || kind == "node.power_off") {
    clients_.erase(event.node);  // a new process, not connected yet
    if (leader_ == event.node) leader_.reset();
    return;
  }
  if (kind == "zk.state") {
    if (event.text("state") == "LEADING") {
      leader_ = event.node;
    } else if (leader_ == event.node) {
      leader_.reset();
    }
    return;
  }
  if (kind == "client.state") {
    if (event.text("layer") != "zookeeper") return;
    Client& client = clients_[event.node];
    client.connected = event.text("state") == "CONNECTED";
    if (client.connected) {
      client.session = event.integer("session");
      client.server = static_cast<sim::NodeId>(event.integer("server"));
      session_nodes_[*client.session] = event.node;
    }
    return;
  }
  if (kind == "znode.create") {
    // A server holds /master when its session owns the node, whether or not it traced a take: a
    // create whose reply was lost, retried by zkClient, finds its own node (NodeExists), reads its
    // own name into masterData and emits no naive.master (docs/recipes.md). Explore found that
    // holder later racing at once as a former master (naive-master, 120-s runs, seed 1000185).
    // Such a hold counts once the node is deleted without its holder having traced the take.
    if (event.text("path") != master_path) return;
    std::int64_t zxid = event.integer("zxid");
    if (zxid <= last_create_zxid_) return;  // another server applying the same create
    last_create_zxid_ = zxid;
    auto owner = session_nodes_.find(event.integer("ephemeral_owner"));
    holder_ = owner != session_nodes_.end() ? std::optional<sim::NodeId>(owner->second) : std::nullopt;
    holder_traced_ = false;
    return;
  }
  if (kind == "watch.fire") {
    if (event.text("path") != master_path || event.text("type") != "NodeDeleted") return;
    told_deleted_[event.integer("session")] = event.time;
    return;
  }
  if (kind == "znode.delete") {
    // Every server applies the delete; the first (the leader, usually) is when /master was gone
    // for anyone who asked. Zxids order them: a lagging server's older delete is not a new one.
    if (event.text("path") != master_path) return;
    std::int64_t zxid = event.integer("zxid");
    if (zxid <= last_delete_zxid_) return;
    last_delete_zxid_ = zxid;
    deleted_at_ = event.time;
    if (holder_ && !holder_traced_) former_masters_.insert(node_name(*holder_));
    holder_.reset();
  }
}

void NaiveMasterStable::onMaster(const sim::TraceEvent& event) {
  std::string taker(event.text("name"));
  std::string_view reason = event.text("reason");
  ELECTSIM_ASSERT(reason == "start" || reason == "deleted" || reason == "delayed");
  const sim::Instant cause{sim::Duration(event.integer("cause"))};
  const sim::Instant began{sim::Duration(event.integer("began"))};
  ELECTSIM_ASSERT(cause <= began);
  ELECTSIM_ASSERT(began <= event.time);
  if (master_ && master_name_ != taker && master_in_touch_ && deleted_at_ && *deleted_at_ >= took_at_) {
    // The old master's node was deleted after it took it (it held it until then), before now;
    // the taker's take answers that delete if the taker saw /master gone after it.
    bool reacted = reason != "start" && cause >= *deleted_at_;
    // The old master could race first only if it heard of the delete before the taker began.
    const Client& old = clients_[*master_];
    auto told = old.session ? told_deleted_.find(*old.session) : told_deleted_.end();
    bool old_told = told != told_deleted_.end() && told->second >= *deleted_at_ && told->second <= began;
    bool former_master = former_masters_.contains(taker);  // may believe it was the last master
    if (reacted && old_told && !former_master) {
      violate("mastership moved from " + master_name_ + " to " + taker + " while " + master_name_ +
              " was alive, unpaused and in touch with ZooKeeper throughout its mastership (since " + sim::format_instant(took_at_) +
              "): " + taker + " raced " + sim::format_duration(began - *deleted_at_) + " after /master was deleted (" +
              std::string(reason) + "), so the slaves resynchronise for nothing (no anti-jitter delay)");
    }
  }
  if (holder_ == event.node) holder_traced_ = true;
  master_ = event.node;
  master_name_ = taker;
  took_at_ = event.time;
  master_in_touch_ = inTouch(event.node);
  former_masters_.insert(taker);
}

}  // namespace properties
