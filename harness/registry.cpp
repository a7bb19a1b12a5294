#include "harness/registry.h"

#include "model/elasticjob/strategies/JobShardingStrategy.h"

#include <algorithm>

#include "sim/assert.h"

namespace harness {

const std::vector<Entry>& bug_switches() {
  static const std::vector<Entry> entries{
      {"fle-1419-nontotal-order",
       "ZOOKEEPER-1419: the pre-3.4.4 totalOrderPredicate, whose tie-breaks ignore the epoch; votes can cycle "
       "and an election may not settle"},
      {"zab-commit-without-quorum",
       "the leader commits a proposal on its own ack, without a quorum: a leader crash loses transactions "
       "clients saw committed"},
      {"zab-335-epoch-from-zxid",
       "ZOOKEEPER-335: the pre-Zab-1.0 epoch, the last zxid's epoch + 1, with no acceptedEpoch: a leader that "
       "logged nothing in its epoch lets the next leader take the same epoch"},
      {"zk-1208-create-on-closing-session",
       "ZOOKEEPER-1208: the leader accepts an ephemeral create from a session whose closeSession it already "
       "prepared; the node outlives its session"},
      {"zk-2845-retain-database",
       "ZOOKEEPER-2845 (fixed in 3.4.12, 3.5.4): a server keeps its database across an election without "
       "catching it up with its log; an uncommitted txn it logged survives a sync and replays at its restart"},
      {"zk-3911-diff-logged-after-uptodate",
       "ZOOKEEPER-3911 (fixed in 3.5.9, 3.6.3): a follower logs its DIFF txns only after UPTODATE but ACKs "
       "NEWLEADER before; a crash in between loses txns the leader counted as held by a quorum"},
      {"zk-watch-not-one-shot",
       "a teaching switch (no ZooKeeper release): watches stay registered after firing, so one registration "
       "fires many times"},
      {"ej-no-has-leader-check",
       "ElasticJob's LeaderElectionExecutionCallback without its hasLeader() check: a later latch holder "
       "overwrites the leader"},
      {"ej-any-node-sets-resharding-flag",
       "ElasticJob before PR #1472: any instance sets the resharding flag, so shardings wait as in issue #1471"},
      {"latch-ignores-connection-loss",
       "Curator LeaderLatch keeps its leadership through SUSPENDED and LOST instead of giving it up"},
      {"latch-watches-parent",
       "herd effect (source 003): every contender watches the latch parent instead of its predecessor"},
      {"latch-unprotected-create",
       "LeaderLatch creates its node without the protected _c_ prefix: a connection loss during create "
       "leaves an orphan node"},
      {"curator-696-no-owner-check", "CURATOR-696: a latch node left by an old session is trusted as the caller's own"},
      {"naive-no-anti-jitter",
       "source 002's /master election without the 5 s anti-jitter delay that favours the previous master"},
      {"es-2488-local-elect",
       "Elasticsearch 1.x before the 1.4 fix (issue #2488): elect from the local, stale node list without "
       "pinging, no join wait, single-phase publish"},
      {"es-master-service-fifo",
       "a teaching switch (no Elasticsearch release): MasterService ignores task priorities and runs its queue "
       "first in, first out"},
  };
  return entries;
}

const std::vector<Entry>& properties() {
  static const std::vector<Entry> entries{
      {"zab-single-leader", "no two servers lead the same epoch, and a follower only follows the leader of its epoch"},
      {"zab-agreement",
       "committed transactions form one agreed prefix: no two servers commit different transactions at the "
       "same zxid, and none commits out of order"},
      {"zab-committed-durability",
       "every txn a server committed is in the history of every leader that establishes a later epoch (the same "
       "txn, where the leader's committedLog still holds it): no committed write is lost (ZOOKEEPER-4643, 4646)"},
      {"zab-history-consistency",
       "the logs of two servers that persisted the same currentEpoch are prefix-related, also as a restart replays "
       "them (ZOOKEEPER-4712)"},
      {"zab-monotonic-reads",
       "within a session a client never reads a node older than a version it has seen (written or read): no read "
       "goes back in time (ZOOKEEPER-4646)"},
      {"zab-protocol-errors",
       "no server meets a state Java answers with an exception, a shutdown or an error log: the NullPointerException "
       "of ZOOKEEPER-4394, a NEWLEADER ACK from a different epoch (ZOOKEEPER-4685), UNMATCHED_TXN_COMMIT"},
      {"ephemeral-cleanup",
       "an ephemeral node outlives its session by at most the expiry processing (deleted in the session's "
       "close or expiry transaction)"},
      {"watch-once", "a watch fires at most once per registration"},
      {"job-single-leader",
       "per job, no two live, unpaused, connected instances believe they lead at once, and every leader-only "
       "write that commits comes from the leader node's holder at that zxid"},
      {"full-coverage",
       "once quiet for the settle time with an enabled instance alive, every item 0..N-1 belongs to exactly "
       "one live instance and each fire executes every item exactly once"},
      {"no-double-execution", "no sharding item of a job runs on two instances at overlapping times"},
      {"eventual-leader",
       "liveness: after the last fault heals, a leader exists within a bound derived from the timeouts"},
      {"es-single-master", "at no instant do two Elasticsearch nodes both act as elected master"},
      {"es-state-agreement",
       "every node that applies a cluster-state version applies the same state for it, in version order"},
      {"es-eventual-master",
       "liveness: after the last fault heals, the connected nodes follow one master within a bound derived "
       "from the ping and fault-detection timeouts"},
      {"naive-master-stable",
       "source 002's anti-jitter promise: when /master goes while its master is in touch with ZooKeeper, "
       "no server reacting to that delete takes it (the old master races at once, the others after 5 s)"},
      {"model-sanity",
       "the simulation itself held up: no assertion inside a model failed and no simulation limit was hit "
       "(a failure here is a finding about the model, reported with its seed)"},
      {"latch-single-leader",
       "Curator LeaderLatch / LeaderSelector: per latch path, no two live, unpaused, connected contenders "
       "believe they lead at once"},
      {"latch-no-herd",
       "Curator LeaderLatch / LeaderSelector: contenders watch only their predecessor's node, never the latch's "
       "children, so a change notifies one contender (source 003's herd effect)"},
      {"es-task-order",
       "each Elasticsearch node's MasterService runs its tasks by priority, then insertion order, and a batch "
       "takes every waiting task of its executor"},
  };
  return entries;
}

const std::vector<Entry>& recipes() {
  static const std::vector<Entry> entries{
      {"none", "ZooKeeper alone: the ensemble, its sessions and clients, no recipe on top"},
      {"elasticjob", "ElasticJob Lite: job leader election over a ZooKeeper latch, sharding, and scheduled execution"},
      {"leader-latch",
       "Curator LeaderLatch: protected ephemeral-sequential nodes, each contender watching its predecessor"},
      {"leader-selector",
       "Curator LeaderSelector: leadership held while takeLeadership runs, over an inter-process mutex"},
      {"naive-master",
       "source 002's election: contenders race to create the ephemeral /master node, with an anti-jitter "
       "delay"},
      {"es-zen",
       "Elasticsearch Zen1: master election by pinging with minimum_master_nodes, two-phase cluster-state "
       "publication"},
  };
  return entries;
}

const std::vector<Entry>& strategy_names() {
  // The sharding strategies the model implements: the registry in model/elasticjob/strategies.
  static const std::vector<Entry> entries = [] {
    std::vector<Entry> result;
    for (const elasticjob::JobShardingStrategy* strategy : elasticjob::allStrategies()) {
      result.push_back(Entry{strategy->name(), strategy->description()});
    }
    return result;
  }();
  return entries;
}

namespace {

bool contains(const std::vector<Entry>& entries, std::string_view name) {
  return std::any_of(entries.begin(), entries.end(), [&](const Entry& entry) { return entry.name == name; });
}

}  // namespace

bool is_known_bug(std::string_view name) { return contains(bug_switches(), name); }

namespace {
// The recipes with a ZooKeeper ensemble (all but es-zen), and every recipe.
const std::vector<Recipe> zookeeper_recipes{Recipe::none, Recipe::elasticjob, Recipe::leader_latch, Recipe::leader_selector,
                                            Recipe::naive_master};
const std::vector<Recipe> every_recipe{Recipe::none, Recipe::elasticjob, Recipe::leader_latch, Recipe::leader_selector,
                                       Recipe::naive_master, Recipe::es_zen};

bool among(const std::vector<Recipe>& recipes, Recipe recipe) { return std::find(recipes.begin(), recipes.end(), recipe) != recipes.end(); }

std::string recipe_list(const std::vector<Recipe>& recipes) {
  if (recipes == every_recipe) return "every recipe";
  if (recipes == zookeeper_recipes) return "every recipe but es-zen";
  std::string text;
  for (std::size_t at = 0; at < recipes.size(); at++) {
    if (at > 0) text += at + 1 == recipes.size() ? " and " : ", ";
    text += recipe_name(recipes[at]);
  }
  return text;
}

std::vector<Recipe> recipes_of_bug(std::string_view bug) {
  if (bug.starts_with("fle-") || bug.starts_with("zab-") || bug.starts_with("zk-")) return zookeeper_recipes;
  if (bug.starts_with("latch-") || bug.starts_with("curator-")) return {Recipe::leader_latch, Recipe::leader_selector};
  if (bug.starts_with("ej-")) return {Recipe::elasticjob};
  if (bug.starts_with("naive-")) return {Recipe::naive_master};
  if (bug.starts_with("es-")) return {Recipe::es_zen};
  ELECTSIM_ASSERT_MSG(false, "bug switch " + std::string(bug) + " has no recipe");
  ELECTSIM_UNREACHABLE();
}
}  // namespace

bool bug_applies_to(std::string_view bug, Recipe recipe) {
  ELECTSIM_ASSERT(is_known_bug(bug));
  return among(recipes_of_bug(bug), recipe);
}

std::string bug_recipes(std::string_view bug) {
  ELECTSIM_ASSERT(is_known_bug(bug));
  return recipe_list(recipes_of_bug(bug));
}

namespace {
std::vector<Recipe> recipes_of_property(std::string_view property) {
  if (property == "eventual-leader" || property == "model-sanity") return every_recipe;
  // The ZooKeeper-level checkers need an ensemble (harness/property_factory.cpp).
  if (property.starts_with("zab-") || property == "ephemeral-cleanup" || property == "watch-once") return zookeeper_recipes;
  if (property.starts_with("latch-")) return {Recipe::leader_latch, Recipe::leader_selector};
  if (property == "job-single-leader" || property == "full-coverage" || property == "no-double-execution") return {Recipe::elasticjob};
  if (property.starts_with("naive-")) return {Recipe::naive_master};
  if (property.starts_with("es-")) return {Recipe::es_zen};
  ELECTSIM_ASSERT_MSG(false, "property " + std::string(property) + " has no recipe");
  ELECTSIM_UNREACHABLE();
}
}  // namespace

bool property_applies_to(std::string_view property, Recipe recipe) {
  ELECTSIM_ASSERT(is_known_property(property));
  return among(recipes_of_property(property), recipe);
}

std::string property_recipes(std::string_view property) {
  ELECTSIM_ASSERT(is_known_property(property));
  return recipe_list(recipes_of_property(property));
}

bool is_known_property(std::string_view name) { return contains(properties(), name); }
bool is_known_recipe(std::string_view name) { return contains(recipes(), name); }
bool is_known_strategy(std::string_view name) { return contains(strategy_names(), name); }

}  // namespace harness
