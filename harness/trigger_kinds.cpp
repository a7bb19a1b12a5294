#include "harness/trigger_kinds.h"

#include <algorithm>

#include "model/curator/CuratorSites.h"
#include "model/elasticjob/JobSites.h"
#include "model/zk/ZabSites.h"

namespace harness {

namespace {

std::uint8_t site_roles(sim::SiteRole role) {
  switch (role) {
    case sim::SiteRole::server: return trigger_server;
    case sim::SiteRole::client: return trigger_instance | trigger_writer;
    case sim::SiteRole::instance: return trigger_instance;
    case sim::SiteRole::es_node: return trigger_es_node;
  }
  ELECTSIM_UNREACHABLE();
}

std::vector<std::string_view> split_fields(std::string_view text) {
  std::vector<std::string_view> fields;
  while (!text.empty()) {
    std::size_t space = text.find(' ');
    std::string_view field = text.substr(0, space);
    if (!field.empty()) fields.push_back(field);
    if (space == std::string_view::npos) break;
    text.remove_prefix(space + 1);
  }
  return fields;
}

void add_sites(std::vector<TriggerKind>& kinds, std::span<const sim::Site* const> sites, std::string_view family) {
  for (const sim::Site* site : sites) kinds.push_back(TriggerKind{site->kind, site_roles(site->role), family, split_fields(site->fields), site, site->what});
}

std::vector<TriggerKind> make_kinds() {
  std::vector<TriggerKind> kinds;
  add_sites(kinds, zk::sites::all, "zookeeper");
  add_sites(kinds, curator::sites::all, "curator");
  add_sites(kinds, elasticjob::sites::all, "elasticjob");
  // Trace events (docs/engine.md, docs/zookeeper-model.md and the recipes' model pages define them).
  auto event = [&kinds](std::string_view kind, std::uint8_t roles, std::string_view family, std::vector<std::string_view> fields,
                        std::string_view what) { kinds.push_back(TriggerKind{kind, roles, family, std::move(fields), nullptr, what}); };
  event("node.start", trigger_any, "any", {"starts"}, "the process starts (the first start and every restart)");
  event("node.crash", trigger_any, "any", {}, "the process crashes (a fault, or an exit of its own such as UNMATCHED_TXN_COMMIT)");
  event("node.power_off", trigger_any, "any", {}, "the machine powers off");
  event("node.pause", trigger_any, "any", {}, "the process is paused");
  event("node.resume", trigger_any, "any", {}, "the process resumes after a pause");
  event("zk.state", trigger_server, "zookeeper", {"state", "epoch"}, "a server becomes LOOKING, FOLLOWING or LEADING");
  event("fle.decide", trigger_server, "zookeeper", {"leader", "zxid", "round", "peer_epoch", "how"}, "a server's election decides");
  event("zab.discovery", trigger_server, "zookeeper", {"epoch"}, "a leader's new epoch is agreed by a quorum");
  event("zab.epoch", trigger_server, "zookeeper", {"current_epoch", "accepted_epoch"}, "a server persisted an epoch");
  event("zab.sync", trigger_server, "zookeeper", {"learner", "mode", "peer_zxid", "leader_zxid"}, "a leader chose a learner's sync mode");
  event("zab.established", trigger_server, "zookeeper", {"epoch", "sid", "zxid", "history_zxid"}, "a leader starts serving its epoch");
  event("zab.following", trigger_server, "zookeeper", {"leader", "epoch", "sid"}, "a follower finished its sync and follows");
  event("zab.propose", trigger_server, "zookeeper", {"zxid", "type", "epoch"}, "a leader proposes a txn");
  event("zab.commit", trigger_server, "zookeeper", {"zxid", "type", "session", "error", "digest"}, "a server applies a committed txn");
  event("zab.leader_shutdown", trigger_server, "zookeeper", {"reason"}, "a leader stops leading");
  event("zab.follower_lost_leader", trigger_server, "zookeeper", {"leader", "reason"}, "a follower gives up on its leader");
  event("zab.learner_dropped", trigger_server, "zookeeper", {"sid", "reason"}, "a leader drops a learner");
  event("zk.exit", trigger_server, "zookeeper", {"reason"}, "a server exits (System.exit in the Java code)");
  event("session.create", trigger_server, "zookeeper", {"session", "timeout_ms", "zxid"}, "a server applies a createSession");
  event("session.expire", trigger_server, "zookeeper", {"session"}, "the leader expires a session");
  event("session.close", trigger_server, "zookeeper", {"session", "zxid", "replayed"}, "a server applies a closeSession");
  event("client.state", trigger_instance | trigger_writer, "zookeeper", {"layer", "state", "session", "server"},
        "a client's connection state changes (ZooKeeper's, or Curator's with layer curator)");
  event("latch.leader", trigger_instance, "latch", {"path", "id", "node_path"}, "a LeaderLatch becomes leader");
  event("latch.not_leader", trigger_instance, "latch", {"path", "id"}, "a LeaderLatch stops being leader");
  event("selector.leader", trigger_instance, "selector", {}, "a LeaderSelector's takeLeadership starts");
  event("job.leader", trigger_instance, "elasticjob", {"job", "id"}, "an ElasticJob instance believes it leads its job");
  event("job.not_leader", trigger_instance, "elasticjob", {"job", "id"}, "an ElasticJob instance stops believing it leads");
  event("job.sharding", trigger_instance, "elasticjob", {"job"}, "an ElasticJob leader wrote a sharding result");
  event("job.exec.start", trigger_instance, "elasticjob", {"job", "item", "id"}, "an ElasticJob instance starts executing an item");
  event("naive.master", trigger_instance, "naive", {}, "a contender takes /master");
  event("es.master", trigger_es_node, "es", {"what"}, "an Elasticsearch node's view of the master changes");
  event("es.elected", trigger_es_node, "es", {}, "an Elasticsearch node wins a master election");
  return kinds;
}

}  // namespace

const std::vector<TriggerKind>& trigger_kinds() {
  static const std::vector<TriggerKind> kinds = make_kinds();
  return kinds;
}

const TriggerKind* find_trigger_kind(std::string_view kind) {
  for (const TriggerKind& entry : trigger_kinds()) {
    if (entry.kind == kind) return &entry;
  }
  return nullptr;
}

bool trigger_kind_in_recipe(const TriggerKind& kind, Recipe recipe) {
  std::string_view family = kind.family;
  if (family == "any") return true;
  if (family == "zookeeper") return runs_zookeeper(recipe);
  if (family == "curator") return recipe == Recipe::leader_latch || recipe == Recipe::leader_selector || recipe == Recipe::elasticjob;
  if (family == "latch") return recipe == Recipe::leader_latch || recipe == Recipe::elasticjob;
  if (family == "selector") return recipe == Recipe::leader_selector;
  if (family == "elasticjob") return recipe == Recipe::elasticjob;
  if (family == "naive") return recipe == Recipe::naive_master;
  if (family == "es") return recipe == Recipe::es_zen;
  ELECTSIM_UNREACHABLE();
}

std::string ordinal(int n) {
  ELECTSIM_ASSERT(n >= 0);
  int tens = n % 100;
  const char* suffix = "th";
  if (tens < 11 || tens > 13) {
    if (n % 10 == 1) suffix = "st";
    if (n % 10 == 2) suffix = "nd";
    if (n % 10 == 3) suffix = "rd";
  }
  return std::to_string(n) + suffix;
}

std::string describe_trigger(const Trigger& trigger) {
  std::string text = trigger.node + "'s " + ordinal(trigger.occurrence) + " " + trigger.event;
  std::string where;
  for (const auto& [key, value] : trigger.where) where += (where.empty() ? "" : ", ") + key + "=" + value;
  if (!where.empty()) text += " with " + where;
  return text;
}

}  // namespace harness
