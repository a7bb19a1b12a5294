// The narrator's dispatch, and the server side of ZooKeeper: faults, FastLeaderElection and Zab.
// Clients, sessions, watches and the recipes are in narrator_clients.cpp.
#include "harness/narrator.h"

#include <cstdio>

#include "sim/node.h"

namespace harness {

namespace {

constexpr std::uint16_t topic_bit(NarrationTopic topic) { return static_cast<std::uint16_t>(1U << static_cast<unsigned>(topic)); }

NarratedEvent told(NarrationTopic topic, std::string text) { return NarratedEvent{topic_bit(topic), std::move(text)}; }

std::string server(std::int64_t sid) { return "zk" + std::to_string(sid); }

// Durations as the rest of electsim writes them (stdout's timeline, --json): "217.6ms", "2s".
std::string millis(std::int64_t nanos) { return sim::format_duration(sim::Duration(nanos)); }


// zab.follower_lost_leader's reasons, in words.
std::string lost_leader_text(std::string_view reason) {
  if (reason == "read timeout") return "no packet from the leader for syncLimit (a live leader pings every tickTime/2)";
  if (reason == "connection closed") return "the leader closed the connection (it crashed or stopped leading)";
  return std::string(reason);
}

std::string vote_text(std::int64_t leader, std::int64_t zxid, std::int64_t peer_epoch) {
  return server(leader) + " (zxid " + hex(zxid) + ", peerEpoch " + std::to_string(peer_epoch) + ")";
}

// The fault kinds, in the words of engine.md's table.
std::string fault_text(const sim::TraceEvent& event, std::string_view what) {
  if (what == "crash") return "crashes (kill -9): volatile state lost; the OS closes its connections, so peers notice one latency later";
  if (what == "power_off") return "loses power: silence; peers notice only by their own timeouts";
  if (what == "restart") return "is restarted over its persistent state";
  if (what == "pause") return "is paused (a GC stall): frozen, its connections stay open and messages queue for it";
  if (what == "resume") return "resumes, with the beliefs it had before the pause";
  if (what == "partition") return "network partition: links between the groups are cut (nothing tells the endpoints)";
  if (what == "isolate") return "is cut off from every other node";
  if (what == "bridge") return "bridge partition: this node still sees both sides, which do not see each other";
  if (what == "drop") return "one-way loss: messages from " + std::string(event.text("from")) + " to " + std::string(event.text("to")) + " vanish";
  if (what == "heal") return "network healed: every link restored; held TCP traffic flows again";
  if (what == "disable") return "is disabled by the operator (ElasticJob console)";
  if (what == "enable") return "is enabled again by the operator";
  if (what == "shutdown") return "shuts down gracefully";
  if (what == "set_sharding_total_count") return "operator changes the sharding total count";
  return std::string(what);
}

}  // namespace

std::string_view narration_topic_name(NarrationTopic topic) {
  switch (topic) {
    case NarrationTopic::zk: return "zk";
    case NarrationTopic::latch: return "latch";
    case NarrationTopic::job: return "job";
    case NarrationTopic::es: return "es";
    case NarrationTopic::naive: return "naive";
    case NarrationTopic::session: return "session";
    case NarrationTopic::watch: return "watch";
    case NarrationTopic::fault: return "fault";
    case NarrationTopic::property: return "property";
    case NarrationTopic::net: return "net";
  }
  return "?";
}

std::string time_text(sim::Instant time) {
  std::int64_t nanos = sim::nanos(time);
  char text[40];
  std::snprintf(text, sizeof text, "%lld.%06llds", static_cast<long long>(nanos / 1000000000), static_cast<long long>(nanos % 1000000000 / 1000));
  return text;
}

std::string hex(std::int64_t value) {
  char text[24];
  if (value < 0) return std::to_string(value);
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(value));
  return text;
}

std::string short_node_name(std::string_view path) {
  std::string_view name = path.substr(path.rfind('/') + 1);
  // Curator's protected prefix: "_c_" + a 36-character UUID + "-".
  if (name.starts_with("_c_") && name.size() > 40 && name[39] == '-') name = name.substr(40);
  return std::string(name);
}

std::string generic_fields(const sim::TraceEvent& event) {
  std::string text;
  for (const sim::TraceField& field : event.fields) {
    text += text.empty() ? "" : ", ";
    text += std::string(field.key) + "=";
    switch (field.value.type) {
      case sim::TraceValue::Type::text: text += field.value.text; break;
      case sim::TraceValue::Type::boolean: text += field.value.integer != 0 ? "true" : "false"; break;
      case sim::TraceValue::Type::unsigned_integer: text += std::to_string(static_cast<std::uint64_t>(field.value.integer)); break;
      case sim::TraceValue::Type::integer: text += std::to_string(field.value.integer); break;
    }
  }
  return text;
}

void Narrator::attach(const sim::Simulation& sim) {
  sim_ = &sim;
  names_.clear();
  servers_ = 0;
  for (sim::NodeId id = 0; id < sim.node_count(); id++) {
    names_.push_back(sim.node(id).name());
    const std::string& name = names_.back();
    if (name.size() > 2 && name.starts_with("zk") && name.find_first_not_of("0123456789", 2) == std::string::npos) servers_++;
  }
}

std::string Narrator::node_name(sim::NodeId node) const {
  if (node == sim::no_node || node >= names_.size()) return "-";
  return names_[node];
}

NarrationRank Narrator::rank_of(std::string_view kind, const NarratedEvent& told) {
  if (kind == "node.start") return NarrationRank::change;
  if (kind.starts_with("fault.") || kind.starts_with("node.")) return NarrationRank::fault;
  static constexpr std::string_view changes[] = {
      "zk.state", "fle.decide", "zab.established", "zab.following", "zab.leader_shutdown", "zab.follower_lost_leader", "zab.learner_dropped",
      "zk.exit", "zk.protocol_error", "session.expire", "session.close", "client.state", "curator.handle_replaced", "zk.client.timeout",
      "server.session", "latch.leader", "latch.not_leader", "latch.reset", "selector.leader", "selector.released", "instance.shutdown",
      "job.leader", "job.not_leader", "job.sharding", "job.shutdown", "job.startup_failed", "job.operator", "why.job_election",
      "es.elected", "es.master", "es.rejoin", "es.publish_failed", "es.fault_detection", "es.join", "es.another_master",
      "naive.master", "naive.release", "property.violation"};
  for (std::string_view change : changes) {
    if (kind == change) return NarrationRank::change;
  }
  static constexpr std::string_view steps[] = {"fle.quorum", "why.finalize_wait", "why.job_latch", "es.commit", "zab.discovery", "zab.sync",
                                               "server.refuse", "server.cnxn_expire", "job.resharding_flag", "job.reconcile", "es.publish_timeout"};
  for (std::string_view step : steps) {
    if (kind == step) return NarrationRank::step;
  }
  // An ephemeral or latch node created or deleted, a latch watch fired: the recipes' steps.
  if (kind.starts_with("znode.") || (kind == "watch.fire" && told.about(NarrationTopic::latch))) return NarrationRank::step;
  return NarrationRank::detail;
}

std::optional<NarratedEvent> Narrator::narrate(const sim::TraceEvent& event) {
  std::optional<NarratedEvent> told = narrate_kind(event, event.kind);
  if (told && told->rank == NarrationRank::detail) told->rank = rank_of(event.kind, *told);
  return told;
}

std::optional<NarratedEvent> Narrator::narrate_kind(const sim::TraceEvent& event, std::string_view kind) {
  if (kind.starts_with("why.")) return narrate_why(event, kind);
  if (kind.starts_with("fault.") || kind.starts_with("node.")) return narrate_fault(event, kind);
  if (kind.starts_with("fle.") || kind == "zk.state") return narrate_election(event, kind);
  if (kind.starts_with("zab.") || kind.starts_with("zk.") || kind.starts_with("server.")) {
    if (kind == "server.session" || kind == "zk.client.timeout") return narrate_session(event, kind);
    return narrate_zab(event, kind);
  }
  if (kind.starts_with("session.") || kind.starts_with("client.") || kind.starts_with("curator.")) return narrate_session(event, kind);
  if (kind.starts_with("znode.")) return narrate_znode(event, kind);
  if (kind.starts_with("watch.")) return narrate_watch(event, kind);
  if (kind.starts_with("latch.") || kind.starts_with("selector.") || kind == "instance.shutdown") return narrate_latch(event, kind);
  if (kind.starts_with("job.")) return narrate_job(event, kind);
  if (kind.starts_with("es.")) return narrate_es(event, kind);
  if (kind.starts_with("naive.")) return narrate_naive(event, kind);
  if (kind.starts_with("net.")) return narrate_net(event, kind);
  if (kind == "property.violation") {
    return told(NarrationTopic::property, "VIOLATION of " + std::string(event.text("property")) + ": " + std::string(event.text("message")));
  }
  return std::nullopt;  // workload.* and other bookkeeping: not part of the story
}

std::optional<NarratedEvent> Narrator::narrate_fault(const sim::TraceEvent& event, std::string_view kind) {
  if (kind.starts_with("fault.")) {
    last_fault_ = Fault{event.time, event.node};
    std::string text = fault_text(event, kind.substr(6));
    if (std::string_view trigger = event.text("trigger"); !trigger.empty()) {
      // A step-triggered fault: "crashes (kill -9), triggered by its 1st zab.current_epoch_written: ...".
      std::string by(trigger);
      if (std::string own = node_name(event.node) + "'s "; by.starts_with(own)) by.replace(0, own.size(), "its ");
      std::int64_t delay = event.integer("delay");
      by = delay == 0 ? "triggered by " + by : sim::format_duration(sim::Duration(delay)) + " after " + by;
      std::size_t colon = text.find(':');
      text = colon == std::string::npos ? text + ", " + by : text.substr(0, colon) + ", " + by + text.substr(colon);
    }
    return told(NarrationTopic::fault, text);
  }
  bool after_fault = last_fault_ && last_fault_->time == event.time && last_fault_->node == event.node;
  if (kind == "node.crash" || kind == "node.power_off") {
    ServerState& z = zk_[event.node];
    z.down = true;
    z.down_since = event.time;
    z.serving = false;
  }
  if (kind == "node.start") {
    ServerState& z = zk_[event.node];
    z.down = false;
    z.started = true;
    z.state.clear();
    std::int64_t starts = event.integer("starts", 1);
    return told(NarrationTopic::fault, starts <= 1 ? "process starts" : "process starts again (start #" + std::to_string(starts) + ")");
  }
  if (after_fault) return std::nullopt;  // the fault line said it
  if (kind == "node.crash") return told(NarrationTopic::fault, "process stops (its connections are closed)");
  if (kind == "node.power_off") return told(NarrationTopic::fault, "machine goes dark");
  return std::nullopt;  // node.pause / node.resume always follow a fault line
}

std::optional<NarratedEvent> Narrator::narrate_election(const sim::TraceEvent& event, std::string_view kind) {
  sim::NodeId node = event.node;
  if (kind == "zk.state") {
    std::string_view state = event.text("state");
    if (state != "LOOKING") {
      // FOLLOWING and LEADING: fle.decide tells why.
      ServerState& z = zk_[node];
      z.state = std::string(state);
      z.since = event.time;
      z.why.clear();
      return std::nullopt;
    }
    quorum_since_.erase(node);
    std::string cause = looking_cause(node, event.time);
    return told(NarrationTopic::zk, "is LOOKING (currentEpoch " + std::to_string(event.integer("epoch")) + "): " + cause + "; a leader election starts");
  }
  if (kind == "fle.vote") {
    Vote before = votes_[node];
    Vote now{event.integer("leader"), event.integer("zxid"), event.integer("peer_epoch")};
    votes_[node] = now;
    zk_[node].round = event.integer("round");
    quorum_since_.erase(node);
    std::string round = std::to_string(event.integer("round"));
    std::string_view reason = event.text("reason");
    std::string tell = " and tells every server";
    if (reason.starts_with("new round")) return told(NarrationTopic::zk, "round " + round + ": votes for itself, " + vote_text(now.leader, now.zxid, now.peer_epoch) + tell);
    std::int64_t from = event.integer("from");
    if (reason.starts_with("joined a newer round")) {
      return told(NarrationTopic::zk, "hears " + server(from) + "'s round " + round + ", newer than its own: forgets its votes, now votes for " +
                                          vote_text(now.leader, now.zxid, now.peer_epoch) + tell);
    }
    bool own = names_.size() > node && names_[node] == server(from);
    std::string whose = own ? "the vote for " + server(now.leader) + " of its own earlier notification (sent to itself, read only now)"
                      : from == now.leader ? server(from) + "'s vote"
                                           : server(from) + "'s vote for " + server(now.leader);
    return told(NarrationTopic::zk, "adopts " + whose + ": " + std::string(reason) + " (it voted for " + vote_text(before.leader, before.zxid, before.peer_epoch) +
                                        ")" + tell);
  }
  if (kind == "fle.notification") {
    std::int64_t from = event.integer("from");
    std::string_view outcome = event.text("outcome");
    if (names_.size() > node && names_[node] == server(from)) return std::nullopt;  // its own vote, back through the loopback
    if (outcome == "adopted" || outcome == "newer round") return std::nullopt;  // the fle.vote line that follows tells it
    // A notification read long after it was sent: its sender has moved on since (D21).
    std::string stale;
    for (sim::NodeId sender = 0; sender < names_.size(); sender++) {
      if (names_[sender] != server(from)) continue;
      auto known = zk_.find(sender);
      if (known == zk_.end()) break;
      const ServerState& them = known->second;
      if (event.text("state") == "LOOKING" && (them.state == "FOLLOWING" || them.state == "LEADING") && them.since < event.time) {
        stale = " (stale: " + server(from) + " has been " + them.state + " since " + time_text(them.since) +
                "; this is an older notification of its, queued or re-sent on connect, read only now)";
      } else if (event.text("state") == "LOOKING" && them.round > event.integer("round")) {
        stale = " (stale: " + server(from) + " is in round " + std::to_string(them.round) + " by now; this older notification was read only now)";
      }
      break;
    }
    std::string heard = "hears " + server(from) + " (" + std::string(event.text("state")) + ", round " + std::to_string(event.integer("round")) +
                        ") vote for " + vote_text(event.integer("leader"), event.integer("zxid"), event.integer("peer_epoch")) + stale;
    if (outcome == "recorded") {
      Vote ours = votes_[node];
      bool same = ours.leader == event.integer("leader");
      return told(NarrationTopic::zk, heard + (same ? ": the same as its own, counted" : ": no better than its own vote for " + server(ours.leader) + ", counted"));
    }
    if (outcome.starts_with("settled")) return told(NarrationTopic::zk, heard + ": with it a quorum follows " + server(event.integer("leader")) + ", which says LEADING");
    if (outcome.starts_with("recorded (out of election)")) return told(NarrationTopic::zk, heard + ": kept aside (out of election) until a quorum says the same");
    return told(NarrationTopic::zk, heard + ": " + std::string(outcome));
  }
  if (kind == "fle.timeout") {
    return told(NarrationTopic::zk, "no notification in time: re-sends its vote (or reconnects), and now waits up to " + millis(event.integer("next_timeout")));
  }
  if (kind == "fle.quorum") {
    quorum_since_[node] = event.time;
    zk_[node].dropped_in_wait = 0;
    std::string of = servers_ > 0 ? " of " + std::to_string(servers_) : "";
    return told(NarrationTopic::zk, "a quorum (" + std::to_string(event.integer("votes")) + of + " votes in round " + std::to_string(event.integer("round")) +
                                        ") agrees on " + server(event.integer("leader")) + ": waits finalizeWait for a better vote before deciding");
  }
  if (kind == "fle.decide") {
    std::string leader = server(event.integer("leader"));
    bool leads = names_.size() > node && names_[node] == leader;
    std::string role = leads ? "LEADING" : "FOLLOWING " + leader;
    std::string_view how = event.text("how");
    std::string why(how);
    if (how == "quorum and finalizeWait") {
      auto wait = quorum_since_.find(node);
      std::string waited;
      if (wait != quorum_since_.end()) {
        std::int64_t took = sim::nanos(event.time) - sim::nanos(wait->second);
        std::size_t dropped = zk_[node].dropped_in_wait;
        waited = " (" + millis(took);
        if (dropped > 0) {
          // FastLeaderElection: recvqueue.poll(finalizeWait) again after each notification that is no better.
          waited += ": " + std::to_string(dropped) + (dropped == 1 ? " notification" : " notifications") +
                    " no better than its vote came in and each restarted the " + millis(zk_[node].finalize_wait) +
                    " poll, so the wait ended " + millis(zk_[node].finalize_wait) + " after the last one, read at " + time_text(zk_[node].last_dropped);
        } else if (took > zk_[node].finalize_wait) {
          waited += ": finalizeWait plus the time to process the notification before it";
        }
        waited += ")";
      }
      why = "finalizeWait" + waited + " brought no better vote";
    } else if (how == "same round, quorum following") {
      why = "a quorum of its round already follows " + leader;
    } else if (how == "established ensemble") {
      why = "an established ensemble already follows " + leader;
    }
    quorum_since_.erase(node);
    return told(NarrationTopic::zk, "decides: " + why + " -> " + role);
  }
  return told(NarrationTopic::zk, std::string(kind) + ": " + generic_fields(event));
}

std::string Narrator::looking_cause(sim::NodeId node, sim::Instant time) {
  ServerState& z = zk_[node];
  std::string previous = z.state;
  std::string cause;
  if (z.started || previous.empty()) {
    cause = "its process has just started";
  } else if (previous == "FOLLOWING" || previous == "LEADING") {
    std::string role = previous == "FOLLOWING" ? "it leaves FOLLOWING" : "it leaves LEADING";
    cause = role + (z.why.empty() ? " (the model gave no reason)" : ": " + z.why);
    z.looking_because = cause;
    if (z.serving) cause += "; it stops serving and closes its client connections";
  } else {
    cause = "its election ended without a leader";
  }
  z.state = "LOOKING";
  z.since = time;
  z.started = false;
  z.serving = false;
  if (previous != "FOLLOWING" && previous != "LEADING") z.looking_because = cause;
  z.why.clear();
  return cause;
}

std::optional<NarratedEvent> Narrator::narrate_why(const sim::TraceEvent& event, std::string_view kind) {
  sim::NodeId node = event.node;
  if (kind == "why.follower") {
    zk_[node].why = std::string(event.text("reason"));
    return std::nullopt;  // told in the LOOKING sentence that follows
  }
  if (kind == "why.finalize_wait") {
    ServerState& z = zk_[node];
    z.finalize_wait = event.integer("wait", z.finalize_wait);
    if (event.text("outcome") == "dropped") {
      z.dropped_in_wait++;
      z.last_dropped = event.time;
      return std::nullopt;
    }
    std::string after;
    if (auto wait = quorum_since_.find(node); wait != quorum_since_.end()) {
      after = " after " + millis(sim::nanos(event.time) - sim::nanos(wait->second));
      quorum_since_.erase(wait);
    }
    std::int64_t from = event.integer("from");
    std::string whose = names_.size() > node && names_[node] == server(from) ? "its own earlier notification's vote for " + server(event.integer("leader"))
                                                                               : server(from) + "'s vote for " + server(event.integer("leader"));
    return told(NarrationTopic::zk, "finalizeWait cut short" + after + ": " + whose +
                                        " beats its own, so it goes back to the end of the queue and the election goes on");
  }
  if (kind == "why.client_disconnect") {
    sim::NodeId server_node = static_cast<sim::NodeId>(event.integer("server", sim::no_node));
    client_why_[node] = disconnect_cause(server_node, event.time);
    return std::nullopt;
  }
  if (kind == "why.es_ping" || kind == "why.es_publish") {
    es_minimum_master_nodes_[node] = event.integer("minimum_master_nodes");
    es_legacy_[node] = event.boolean("legacy");
    return std::nullopt;
  }
  if (kind == "why.job_belief") {
    std::string_view reason = event.text("reason");
    job_why_[node] = reason == "shutdown" ? "it is shutting down"
                     : reason == "gone"   ? "the leader node is gone (its holder's session ended, it abdicated, or it was removed)"
                                          : "the leader node holds " + std::string(event.text("holder")) + ", not its id";
    return std::nullopt;
  }
  if (kind == "why.job_election" || kind == "why.job_latch") return narrate_job(event, kind);
  return std::nullopt;
}

std::optional<NarratedEvent> Narrator::narrate_zab(const sim::TraceEvent& event, std::string_view kind) {
  // Replication detail (proposals, commits, epochs persisted, reloads) would drown the story.
  if (kind == "zab.propose" || kind == "zab.commit" || kind == "zab.epoch" || kind == "zab.db_reload" || kind == "zab.synced_mode") return std::nullopt;
  if (kind == "zab.discovery") return told(NarrationTopic::zk, "Zab discovery: a quorum of followers reported in; the new epoch is " + std::to_string(event.integer("epoch")));
  if (kind == "zab.sync") {
    std::string_view mode = event.text("mode");
    std::string how = mode == "DIFF" ? "sends the transactions it lacks" : mode == "TRUNC" ? "tells it to cut its log back" : "sends a whole snapshot";
    return told(NarrationTopic::zk, "syncs " + server(event.integer("learner")) + " by " + std::string(mode) + " (" + how + "; it has " +
                                        hex(event.integer("peer_zxid")) + ", the leader " + hex(event.integer("leader_zxid")) + ")");
  }
  if (kind == "zab.established") {
    zk_[event.node].serving = true;
    return told(NarrationTopic::zk, "leads epoch " + std::to_string(event.integer("epoch")) + ": a quorum acknowledged NEWLEADER; it serves clients from zxid " +
                                        hex(event.integer("zxid")));
  }
  if (kind == "zab.following") {
    zk_[event.node].serving = true;
    return told(NarrationTopic::zk, "follows " + server(event.integer("leader")) + " in epoch " + std::to_string(event.integer("epoch")) + " (synced, UPTODATE)");
  }
  if (kind == "zab.leader_shutdown") {
    std::string reason(event.text("reason"));
    std::string because = reason.starts_with("Not sufficient followers synced") ? ": it no longer hears a quorum of followers within syncLimit"
                          : reason.starts_with("Waiting for a quorum") ? ": a quorum did not acknowledge NEWLEADER within initLimit"
                          : reason.starts_with("Timeout while waiting for epoch") ? ": a quorum did not join within initLimit"
                                                                                   : "";
    zk_[event.node].why = "it stopped leading (" + reason + ")" + because;
    return told(NarrationTopic::zk, "stops leading: " + reason + because);
  }
  if (kind == "zab.follower_lost_leader") {
    std::string reason = lost_leader_text(event.text("reason"));
    zk_[event.node].why = "it lost its leader " + server(event.integer("leader")) + ": " + reason;
    return told(NarrationTopic::zk, "loses its leader " + server(event.integer("leader")) + ": " + reason);
  }
  if (kind == "zab.learner_dropped") return told(NarrationTopic::zk, "drops follower " + server(event.integer("sid")) + ": " + std::string(event.text("reason")));
  if (kind == "zk.exit") {
    zk_[event.node].why = "it exits (System.exit): " + std::string(event.text("reason"));
    return told(NarrationTopic::zk, "exits (System.exit): " + std::string(event.text("reason")));
  }
  if (kind == "zk.protocol_error") {
    std::string jira(event.text("jira"));
    std::string text = "protocol error in " + std::string(event.text("where")) + ": " + std::string(event.text("error")) + (jira.empty() ? "" : " (" + jira + ")");
    if (zk_[event.node].why.empty()) zk_[event.node].why = text;
    return told(NarrationTopic::zk, text);
  }
  if (kind == "server.refuse") {
    return told(NarrationTopic::session, "refuses a client that has seen zxid " + hex(event.integer("client_zxid")) + ", newer than its own " +
                                             hex(event.integer("our_zxid")));
  }
  if (kind == "server.cnxn_expire") {
    return told(NarrationTopic::session, "closes an idle connection (no packet for the session timeout) of session " + hex(event.integer("session")));
  }
  return told(NarrationTopic::zk, std::string(kind) + ": " + generic_fields(event));
}

}  // namespace harness
