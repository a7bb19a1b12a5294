// The narrator's client side: sessions and their ephemerals, watches, Curator's latch and
// selector, ElasticJob, Elasticsearch, source 002's naive master, and (when asked) messages.
#include "harness/narrator.h"

#include <algorithm>
#include <string>

#include "sim/node.h"

namespace harness {

namespace {

constexpr std::uint16_t topic_bit(NarrationTopic topic) { return static_cast<std::uint16_t>(1U << static_cast<unsigned>(topic)); }

NarratedEvent told(NarrationTopic topic, std::string text) { return NarratedEvent{topic_bit(topic), std::move(text)}; }
NarratedEvent told(NarrationTopic first, NarrationTopic second, std::string text) {
  return NarratedEvent{static_cast<std::uint16_t>(topic_bit(first) | topic_bit(second)), std::move(text)};
}

// The ten-digit sequence suffix ZooKeeper appends ("latch-0000000003" -> 3); -1 without one.
std::int64_t sequence_of(std::string_view name) {
  if (name.size() < 10) return -1;
  std::string_view digits = name.substr(name.size() - 10);
  if (digits.find_first_not_of("0123456789") != std::string_view::npos) return -1;
  return std::stoll(std::string(digits));
}

std::string ordinal(std::size_t n) {
  std::string_view suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : n % 10 == 1 ? "st" : n % 10 == 2 ? "nd" : n % 10 == 3 ? "rd" : "th";
  return std::to_string(n) + std::string(suffix);
}

std::string job_prefix(const sim::TraceEvent& event) {
  std::string_view job = event.text("job");
  return job.empty() ? std::string() : "job " + std::string(job) + ": ";
}

}  // namespace

std::string Narrator::session_text(std::int64_t session) const {
  auto owner = session_owner_.find(session);
  return owner == session_owner_.end() ? "session " + hex(session) : owner->second + "'s session " + hex(session);
}

const std::string* Narrator::latch_parent_of(std::string_view path) const {
  for (const std::string& parent : latch_parents_) {
    if (path.size() > parent.size() && path.starts_with(parent) && path[parent.size()] == '/') return &parent;
  }
  return nullptr;
}

std::string Narrator::latch_child_text(const std::string& path) const {
  auto owner = ephemeral_owner_.find(path);
  return short_node_name(path) + (owner == ephemeral_owner_.end() ? "" : " (" + owner->second + "'s)");
}

std::string Narrator::disconnect_cause(sim::NodeId server, sim::Instant time) {
  (void)time;
  std::string name = node_name(server);
  auto found = zk_.find(server);
  if (found != zk_.end()) {
    const ServerState& z = found->second;
    if (z.down) return name + " went down at " + time_text(z.down_since) + ", so its connections closed";
    if (z.state == "LOOKING") {
      return name + " stopped serving: it went LOOKING at " + time_text(z.since) + " (" + z.looking_because + ") and closed its client connections";
    }
  }
  return name + " closed the connection";
}

std::optional<NarratedEvent> Narrator::narrate_session(const sim::TraceEvent& event, std::string_view kind) {
  std::int64_t session = event.integer("session");
  if (kind == "session.create") {
    session_timeout_ms_[session] = event.integer("timeout_ms");
    if (!first_telling(event)) return std::nullopt;
    // Hex as ZooKeeper's logs write it; the decimal is how stdout's timeline names it.
    return told(NarrationTopic::session, "session " + hex(session) + " (" + std::to_string(session) + " in the timeline) is created (timeout " +
                                             sim::format_duration(std::chrono::milliseconds(event.integer("timeout_ms"))) + ")");
  }
  if (kind == "session.expire") {
    session_ended_[session] = {event.time, "expired"};
    auto timeout = session_timeout_ms_.find(session);
    std::string within = timeout == session_timeout_ms_.end() ? "" : " within its " + sim::format_duration(std::chrono::milliseconds(timeout->second)) + " timeout";
    return told(NarrationTopic::session, "expires " + session_text(session) + ": the leader heard nothing from it" + within +
                                             "; its ephemeral nodes go in the same transaction");
  }
  if (kind == "session.close") {
    if (!session_ended_.contains(session)) session_ended_[session] = {event.time, "closed"};
    if (!first_telling(event)) return std::nullopt;
    return told(NarrationTopic::session, session_text(session) + " is closed (txn " + hex(event.integer("zxid")) + ")");
  }
  if (kind == "server.session") {
    if (event.boolean("valid")) return std::nullopt;  // the client's CONNECTED line tells it
    return told(NarrationTopic::session, "answers " + session_text(session) + " with timeout 0: the session is expired");
  }
  if (kind == "zk.client.timeout") {
    std::string server = node_name(static_cast<sim::NodeId>(event.integer("server")));
    std::string idle = sim::format_duration(std::chrono::milliseconds(event.integer("idle") / 1000000));
    client_why_[event.node] = "it heard nothing from " + server + " for " + idle + " (2/3 of the session timeout)";
    return told(NarrationTopic::session, "hears nothing from " + server + " for " + idle + " (2/3 of the session timeout): disconnects");
  }
  if (kind == "client.state") {
    std::string_view state = event.text("state");
    if (event.text("layer") == "curator") {
      curator_state_[event.node] = std::string(state);
      if (state == "SUSPENDED") {
        auto lost = last_disconnect_.find(event.node);
        std::string because = lost == last_disconnect_.end() ? "connection lost" : "connection lost: " + lost->second;
        return told(NarrationTopic::session, "Curator: SUSPENDED (" + because + "; a correct LeaderLatch gives up leadership now)");
      }
      if (state == "LOST") return told(NarrationTopic::session, "Curator: LOST (suspended for a whole session timeout: the session must be presumed expired)");
      if (state == "RECONNECTED") return told(NarrationTopic::session, "Curator: RECONNECTED (recipes re-check what they hold)");
      return told(NarrationTopic::session, "Curator: " + std::string(state));
    }
    std::string server = node_name(static_cast<sim::NodeId>(event.integer("server", sim::no_node)));
    if (state == "CONNECTED") {
      client_why_.erase(event.node);
      bool known = session_owner_.contains(session);
      session_owner_[session] = node_name(event.node);
      return told(NarrationTopic::session, "connected to " + server + (known ? " again, session " : " with session ") + hex(session));
    }
    if (state == "DISCONNECTED") {
      auto why = client_why_.find(event.node);
      std::string because = why == client_why_.end() ? "" : ": " + why->second;
      last_disconnect_[event.node] = why == client_why_.end() ? "disconnected from " + server : why->second;
      if (why != client_why_.end()) client_why_.erase(why);
      // The session's fate, as far as the ensemble has decided it (D3: never "lives on" after its expiry).
      std::string fate;
      if (auto ended = session_ended_.find(session); ended != session_ended_.end()) {
        fate = "; session " + hex(session) + " already " + ended->second.second + " at " + time_text(ended->second.first) +
               " (the client learns it only when a server answers its reconnect)";
      } else {
        auto timeout = session_timeout_ms_.find(session);
        std::string within = timeout == session_timeout_ms_.end() ? "" : " if it does not reconnect within its " + sim::format_duration(std::chrono::milliseconds(timeout->second));
        fate = "; session " + hex(session) + " lives on until the leader expires it" + within;
      }
      return told(NarrationTopic::session, "disconnected from " + server + because + fate);
    }
    if (state == "EXPIRED") return told(NarrationTopic::session, "is told its session " + hex(session) + " has expired");
    if (state == "CLOSED") return told(NarrationTopic::session, "closes its handle (session " + hex(session) + ")");
    return told(NarrationTopic::session, "ZooKeeper client: " + std::string(state));
  }
  if (kind == "curator.handle_replaced") {
    return told(NarrationTopic::session, "Curator replaces its ZooKeeper handle: session " + hex(event.integer("old_session")) + " is gone, new session " +
                                             hex(event.integer("new_session")));
  }
  if (kind == "curator.retry") {
    return told(NarrationTopic::session, "Curator retries " + std::string(event.text("operation")) + " (attempt " + std::to_string(event.integer("attempt")) +
                                             ") after " + std::to_string(event.integer("sleep_ms")) + " ms");
  }
  if (kind == "curator.create_null") {
    return told(NarrationTopic::session, "Curator's protected create of " + std::string(event.text("path")) + " fails with " +
                                             std::string(event.text("code")) +
                                             " after its find completed the retry loop: it returns null, and any node it made stays");
  }
  return told(NarrationTopic::session, std::string(kind) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_znode(const sim::TraceEvent& event, std::string_view kind) {
  std::string path(event.text("path"));
  if (kind == "znode.set" || !first_telling(event)) return std::nullopt;
  const std::string* latch = latch_parent_of(path);
  if (kind == "znode.create") {
    std::int64_t owner = event.integer("ephemeral_owner");
    if (owner == 0) return std::nullopt;  // persistent nodes: structure, not the story
    auto client = session_owner_.find(owner);
    std::string who = client == session_owner_.end() ? "session " + hex(owner) : client->second;
    ephemeral_owner_[path] = who;
    if (latch == nullptr) return told(NarrationTopic::session, who + "'s ephemeral " + path + " is created");
    std::set<std::string>& children = latch_children_[*latch];
    children.insert(short_node_name(path));
    std::int64_t ours = sequence_of(path);
    std::size_t ahead = static_cast<std::size_t>(std::count_if(children.begin(), children.end(), [ours](const std::string& child) {
      std::int64_t sequence = sequence_of(child);
      return sequence >= 0 && sequence < ours;
    }));
    return told(NarrationTopic::latch, who + "'s node " + short_node_name(path) + " joins " + *latch + ": " + ordinal(ahead + 1) + " in line of " +
                                           std::to_string(children.size()));
  }
  // znode.delete: only ephemerals (a latch node, a leader node) are worth a sentence.
  auto owner = ephemeral_owner_.find(path);
  if (owner == ephemeral_owner_.end()) return std::nullopt;
  std::string who = owner->second;
  std::string text = who + "'s ephemeral " + (latch != nullptr ? short_node_name(path) : path) + " is deleted";
  ephemeral_owner_.erase(owner);
  if (latch == nullptr) return told(NarrationTopic::session, text);
  latch_children_[*latch].erase(short_node_name(path));
  return told(NarrationTopic::latch, NarrationTopic::session, text + " (" + std::to_string(latch_children_[*latch].size()) + " left in the latch)");
}

std::optional<NarratedEvent> Narrator::narrate_watch(const sim::TraceEvent& event, std::string_view kind) {
  std::string path(event.text("path"));
  std::string who = session_text(event.integer("session"));
  auto owner = session_owner_.find(event.integer("session"));
  std::string client = owner == session_owner_.end() ? who : owner->second;
  const std::string* latch = latch_parent_of(path);
  bool parent_watch = latch_parents_.contains(path);
  if (kind == "watch.register") {
    std::string table(event.text("table"));
    if (table == "persistent" || table == "persistent_recursive") {
      const bool recursive = table == "persistent_recursive";
      persistent_watches_[{event.integer("session"), path}] = recursive;
      return told(NarrationTopic::watch, client + " adds a " + (recursive ? "persistent recursive" : "persistent") + " watch on " + path +
                                             (recursive ? ": it stays, and every change at or below it notifies " : ": it stays after each event on ") +
                                             node_name(event.node));
    }
    if (latch != nullptr) {
      return told(NarrationTopic::latch, NarrationTopic::watch, client + " watches its predecessor " + latch_child_text(path) + " (" + table + " watch on " + node_name(event.node) + ")");
    }
    if (parent_watch) {
      return told(NarrationTopic::latch, NarrationTopic::watch, client + " watches the children of " + path + ": every join and leave will wake it (" + node_name(event.node) + ")");
    }
    return told(NarrationTopic::watch, "registers " + who + "'s " + table + " watch on " + path);
  }
  if (kind == "watch.fire") {
    std::string type(event.text("type"));
    // A persistent watch on the path, or a recursive one at or above it, stays in place.
    bool persistent = false;
    for (std::string at = path; !at.empty() && !persistent;) {
      auto found = persistent_watches_.find({event.integer("session"), at});
      persistent = found != persistent_watches_.end() && (found->second || at == path) &&
                   !(found->second && type == "NodeChildrenChanged");
      if (at == "/") break;
      at.resize(std::max<std::size_t>(at.rfind('/'), 1));
    }
    const char* fate = persistent ? " (the watch stays)" : " (the watch is used up)";
    if (latch != nullptr || parent_watch) {
      std::string what = latch != nullptr ? latch_child_text(path) : path;
      return told(NarrationTopic::latch, NarrationTopic::watch, "notifies " + client + ": " + type + " " + what + fate);
    }
    return told(NarrationTopic::watch, "notifies " + who + ": " + type + " " + path + fate);
  }
  return told(NarrationTopic::watch, std::string(kind) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_latch(const sim::TraceEvent& event, std::string_view kind) {
  std::string path(event.text("path"));
  if (kind == "latch.reset") {
    latch_parents_.insert(path);
    return told(NarrationTopic::latch, "(re)enters the latch " + path + ": creates a protected EPHEMERAL_SEQUENTIAL node");
  }
  if (kind == "latch.leader") {
    std::string node_path(event.text("node_path"));
    std::size_t line = latch_children_[path].size();
    return told(NarrationTopic::latch, "becomes leader of " + path + ": its node " + short_node_name(node_path) + " has the lowest sequence number" +
                                           (line > 1 ? " of the " + std::to_string(line) + " in line" : ""));
  }
  if (kind == "latch.not_leader") {
    auto state = curator_state_.find(event.node);
    std::string after = state == curator_state_.end() ? "" : " (Curator last said " + state->second + ")";
    return told(NarrationTopic::latch, "is no longer leader of " + path + after);
  }
  if (kind == "selector.leader") return told(NarrationTopic::latch, "LeaderSelector: holds the lock on " + path + "; takeLeadership runs");
  if (kind == "selector.released") return told(NarrationTopic::latch, "LeaderSelector: takeLeadership ended; the lock on " + path + " is released");
  if (kind == "instance.shutdown") return told(NarrationTopic::latch, NarrationTopic::job, "begins a graceful shutdown");
  return told(NarrationTopic::latch, std::string(kind) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_job(const sim::TraceEvent& event, std::string_view kind) {
  std::string job = job_prefix(event);
  auto fire_text = [&](std::string_view field) { return time_text(sim::epoch + sim::Duration(event.integer(field))); };
  if (kind == "why.job_election") {
    std::string_view how = event.text("kind");
    job_election_[event.node] = std::string(how);
    if (how == "active") {
      // LeaderElectionJobListener.isActiveElection: no leader, and this instance's own server node changed (and is not DISABLED).
      return told(NarrationTopic::job, job + "runs an active election: there is no leader node, and its own server node " + std::string(event.text("path")) +
                                           " changed (not to DISABLED), so it tries to become leader");
    }
    if (how == "passive") {
      // isPassiveElection: the leader node was deleted ("crashed") and this server is available.
      return told(NarrationTopic::job, job + "runs a passive election: the leader node " + std::string(event.text("path")) +
                                           " was deleted (its holder's session ended, or it abdicated), and this instance is available");
    }
    if (how == "startup") {
      return told(NarrationTopic::job, job + "runs its startup election (registerStartUpInfo): every starting instance tries; the first to hold the latch and find no leader node wins");
    }
    return told(NarrationTopic::job, job + "runs an on-demand election: it needs a leader (isLeaderUntilBlock, before sharding or a fire) and finds none after " +
                                         std::to_string(event.integer("polls")) + " wait(s) of 100ms");
  }
  if (kind == "why.job_latch") {
    std::string_view outcome = event.text("outcome");
    if (outcome == "leader node exists") {
      return told(NarrationTopic::job, job + "holds the election latch, but a leader node already exists: it leaves it (the optimistic hasLeader check)");
    }
    if (outcome == "created") {
      return told(NarrationTopic::job, job + "holds the election latch first and " + (event.boolean("checked") ? "finds no leader node" : "skips the hasLeader check (bug switch)") +
                                           ": writes its id into the leader node, so it wins");
    }
    return told(NarrationTopic::job, job + "holds the election latch, but writing the leader node fails with " + std::string(event.text("code")));
  }
  if (kind == "job.leader") {
    auto election = job_election_.find(event.node);
    std::string after = election == job_election_.end() ? "" : " (after its " + election->second + " election)";
    return told(NarrationTopic::job, job + "believes it is the leader: the leader node holds its id" + after);
  }
  if (kind == "job.not_leader") {
    auto why = job_why_.find(event.node);
    std::string because = why == job_why_.end() ? "" : ": " + why->second;
    if (why != job_why_.end()) job_why_.erase(why);
    return told(NarrationTopic::job, job + "no longer believes it is the leader" + because);
  }
  if (kind == "job.sharding") return told(NarrationTopic::job, job + "shards as leader: " + std::string(event.text("assignment")));
  if (kind == "job.exec.start") {
    return told(NarrationTopic::job, job + "runs item " + std::to_string(event.integer("item")) + " (" + std::string(event.text("source", "fire")) + " of " + fire_text("fire") + ")");
  }
  if (kind == "job.exec.end") return told(NarrationTopic::job, job + "finishes item " + std::to_string(event.integer("item")) + " (fire of " + fire_text("fire") + ")");
  if (kind == "job.exec.skip") return told(NarrationTopic::job, job + "skips the fire of " + fire_text("fire") + ": " + std::string(event.text("reason")));
  if (kind == "job.resharding_flag") return told(NarrationTopic::job, job + "sets the resharding flag (sharding/necessary): the leader will reshard before the next fire");
  if (kind == "job.scheduled") return told(NarrationTopic::job, job + "is scheduled: its first fire is at " + fire_text("next_fire"));
  if (kind == "job.listeners") return told(NarrationTopic::job, job + "starts its listeners on the job's ZooKeeper nodes: " + std::string(event.text("order")));
  if (kind == "job.misfire") return told(NarrationTopic::job, job + "misses the fire of " + fire_text("fire") + " (misfire: the trigger was paused or busy)");
  if (kind == "job.pause") return told(NarrationTopic::job, job + "pauses its trigger");
  if (kind == "job.resume") return told(NarrationTopic::job, job + "resumes its trigger");
  if (kind == "job.reconcile") return told(NarrationTopic::job, job + "the reconcile service finds the sharding out of date and asks for resharding");
  if (kind == "job.error") {
    return told(NarrationTopic::job, job + "an exception in " + std::string(event.text("where")) + ": " + std::string(event.text("message")));
  }
  if (kind == "job.shutdown") return told(NarrationTopic::job, job + "shuts the job down (" + std::string(event.text("how")) + ")");
  if (kind == "job.startup_failed") return told(NarrationTopic::job, "the instance fails to start: " + std::string(event.text("reason")));
  if (kind == "job.console_failed") return told(NarrationTopic::job, "the console fails: " + std::string(event.text("reason")));
  if (kind == "job.sharding_failed") return told(NarrationTopic::job, job + "sharding fails: " + std::string(event.text("message")));
  if (kind == "job.sharding_aborted") {
    return told(NarrationTopic::job, job + "sharding is abandoned: its transaction fails with " + std::string(event.text("code")) + " (another instance changed the nodes)");
  }
  if (kind == "job.operator") {
    std::string ip(event.text("ip"));
    std::string value(event.text("value"));
    return told(NarrationTopic::job, "operator: " + std::string(event.text("op")) + " " + job.substr(0, job.size() - (job.empty() ? 0 : 2)) +
                                         (ip.empty() ? "" : " on " + ip) + (value.empty() ? "" : " (" + value + ")"));
  }
  return told(NarrationTopic::job, std::string(kind.substr(4)) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_es(const sim::TraceEvent& event, std::string_view kind) {
  std::string version = "v" + std::to_string(event.integer("version"));
  auto mmn = es_minimum_master_nodes_.find(event.node);
  std::string setting = mmn == es_minimum_master_nodes_.end() ? "" : "minimum_master_nodes is " + std::to_string(mmn->second);
  if (kind == "es.ping") {
    std::int64_t candidates = event.integer("candidates");
    std::string text = "pings: " + std::to_string(event.integer("responses")) + " node(s) answered, " + std::to_string(event.integer("active_masters")) +
                       " of them follow a master; " + std::to_string(candidates) + " master-eligible candidate(s) with itself";
    if (event.integer("active_masters") == 0 && mmn != es_minimum_master_nodes_.end()) {
      text += candidates >= mmn->second ? " (" + setting + ": enough to elect)" : " (" + setting + ": too few to elect, it pings again)";
    }
    return told(NarrationTopic::es, text);
  }
  if (kind == "es.elected") {
    std::string master(event.text("master"));
    std::string self = node_name(event.node);
    if (event.text("by") == "local") {
      return told(NarrationTopic::es, (master == self ? "elects itself master " : "chooses " + master + " as master ") +
                                          "from its local node list, without pinging (1.x: the lowest node id it knows)");
    }
    if (master == self) {
      std::int64_t joins = event.integer("required_joins");
      std::string text = "elects itself master after a ping round: no node it reached follows a master, and it is the best candidate";
      if (!setting.empty()) text += "; " + setting + " and it counts as one, so it waits for " + std::to_string(joins) + " join(s) from other master-eligible nodes";
      return told(NarrationTopic::es, text);
    }
    return told(NarrationTopic::es, "chooses " + master + " as master after a ping round (the master others follow, or the best candidate) and joins it");
  }
  if (kind == "es.master") {
    std::string what(event.text("what"));
    if (event.boolean("master")) {
      return told(NarrationTopic::es, "is master from state " + version + ": enough master-eligible nodes joined it" + (setting.empty() ? "" : " (" + setting + ")"));
    }
    return told(NarrationTopic::es, "stops being master at state " + version + ": " + what);
  }
  if (kind == "es.commit") {
    bool legacy = es_legacy_[event.node];
    if (legacy) return told(NarrationTopic::es, "publishes state " + version + " in one phase (1.x): it is in force as soon as it is sent, no acknowledgement needed");
    if (mmn == es_minimum_master_nodes_.end()) return told(NarrationTopic::es, "commits state " + version + ": enough master-eligible nodes acknowledged");
    std::int64_t needed = std::max<std::int64_t>(0, mmn->second - 1);
    if (needed == 0) {
      return told(NarrationTopic::es, "commits state " + version + " on its own: " + setting + " and the master counts as one, so 0 acknowledgements were needed");
    }
    return told(NarrationTopic::es, "commits state " + version + ": " + std::to_string(needed) + " other master-eligible node(s) acknowledged it (" + setting +
                                        ", the master counts as one)");
  }
  if (kind == "es.publish_failed") {
    return told(NarrationTopic::es, "fails to commit state " + version + ": " + std::string(event.text("reason")) + (setting.empty() ? "" : " (" + setting + ")"));
  }
  if (kind == "es.fault_detection") {
    return told(NarrationTopic::es, std::string(event.text("kind")) + " fault detection gives up on " + std::string(event.text("target")) + ": " +
                                        std::string(event.text("reason")));
  }
  if (kind == "es.rejoin") return told(NarrationTopic::es, "rejoins the cluster: " + std::string(event.text("reason")));
  if (kind == "es.join") {
    return told(NarrationTopic::es, "joins " + std::string(event.text("master")) + (event.boolean("ok") ? ": accepted" : ": failed, " + std::string(event.text("error"))));
  }
  if (kind == "es.apply") {
    std::string master(event.text("master"));
    return told(NarrationTopic::es, "applies state " + version + (master.empty() ? " (no master)" : " from master " + master));
  }
  if (kind == "es.publish") {
    return told(NarrationTopic::es, "sends state " + version + " to " + std::string(event.text("to")) + (event.boolean("diff") ? " as a diff" : " in full"));
  }
  if (kind == "es.publish_timeout") {
    return told(NarrationTopic::es, "state " + version + ": " + std::to_string(event.integer("pending")) +
                                        " node(s) did not apply it within publish_timeout (a warning: the state stays committed)");
  }
  if (kind == "es.another_master") {
    return told(NarrationTopic::es, "hears of another master, " + std::string(event.text("other")) + " at state v" + std::to_string(event.integer("other_version")) +
                                        " (its own is " + version + "): " + std::string(event.text("reason")));
  }
  if (kind == "es.task.submit") {
    std::uint64_t tasks = static_cast<std::uint64_t>(event.integer("tasks"));
    return told(NarrationTopic::es, "queues " + std::to_string(tasks) + (tasks == 1 ? " task" : " tasks") + " \"" + std::string(event.text("source")) +
                                        "\" (priority " + std::string(event.text("priority")) + ")");
  }
  if (kind == "es.task") {
    std::int64_t batch = event.integer("batch");
    return told(NarrationTopic::es, "runs the task \"" + std::string(event.text("source")) + "\" (priority " + std::string(event.text("priority")) +
                                        (batch > 1 ? ", batched with " + std::to_string(batch - 1) + " more of its kind" : "") + ")");
  }
  if (kind == "es.gateway") {
    return told(NarrationTopic::es, "gateway: " + std::to_string(event.integer("found")) + " node(s) sent their stored state, " +
                                        std::to_string(event.integer("required")) + " needed" +
                                        (event.boolean("recovered") ? ": the cluster state is recovered" : ": not enough, it waits"));
  }
  if (kind == "es.pending_dropped") {
    return told(NarrationTopic::es, "drops pending state " + version + " from " + std::string(event.text("master")) + " (superseded)");
  }
  return told(NarrationTopic::es, std::string(kind.substr(3)) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_naive(const sim::TraceEvent& event, std::string_view kind) {
  if (kind == "naive.master") return told(NarrationTopic::naive, "creates the ephemeral /master first: it is master (" + std::string(event.text("name")) + ")");
  if (kind == "naive.release") return told(NarrationTopic::naive, "releases /master");
  return told(NarrationTopic::naive, std::string(kind.substr(6)) + ": " + generic_fields(event));
}

std::optional<NarratedEvent> Narrator::narrate_net(const sim::TraceEvent& event, std::string_view kind) {
  std::string key = std::to_string(event.integer("connection")) + "/" + std::to_string(event.integer("generation")) + "/" +
                    std::to_string(event.integer("direction")) + "/" + std::to_string(event.integer("seq"));
  if (kind == "net.send") {
    std::string what(event.text("what"));
    // Faithful wire values that read as mistakes (D22): say what they mean.
    if (what.find("currentEpoch -1") != std::string::npos) what += " (-1: it already accepted this epoch, so \"do not count me\")";
    if (what.find("0xffffffffffffffff") != std::string::npos) what += " (0xffffffffffffffff is -1: no zxid)";
    message_text_[key] = what;
    return told(NarrationTopic::net, "-> " + std::string(event.text("to")) + ": " + what);
  }
  if (kind == "net.deliver" || kind == "net.drop") {
    auto sent = message_text_.find(key);
    std::string what = sent == message_text_.end() ? "a message" : sent->second;
    if (sent != message_text_.end()) message_text_.erase(sent);
    if (kind == "net.drop") return told(NarrationTopic::net, "drops " + what + " from " + std::string(event.text("from")) + ": " + std::string(event.text("reason")));
    return told(NarrationTopic::net, "<- " + std::string(event.text("from")) + ": " + what);
  }
  if (kind == "net.links") {
    std::string cut(event.text("cut"));
    return told(NarrationTopic::net, NarrationTopic::fault, cut.empty() ? "every link works" : "links cut (sender>unreachable): " + cut);
  }
  return told(NarrationTopic::net, std::string(kind) + ": " + generic_fields(event));
}

}  // namespace harness
