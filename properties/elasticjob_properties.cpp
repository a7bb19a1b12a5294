#include "properties/elasticjob_properties.h"

#include <algorithm>

#include <cstdio>

#include "sim/node.h"

namespace properties {

namespace {

// "/electsim/order-sync/sharding/3/instance" -> ("order-sync", "sharding/3/instance").
std::optional<std::pair<std::string, std::string_view>> splitJobPath(std::string_view path, std::string_view namespacePath) {
  if (!path.starts_with(namespacePath) || path.size() <= namespacePath.size() || path[namespacePath.size()] != '/') return std::nullopt;
  std::string_view rest = path.substr(namespacePath.size() + 1);
  std::size_t slash = rest.find('/');
  if (slash == std::string_view::npos || slash == 0) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, slash)), rest.substr(slash + 1));
}

// "0x100000005", as zxids and session ids are printed (properties do not depend on the models).

bool isShardingInstancePath(std::string_view tail) {
  constexpr std::string_view prefix = "sharding/";
  constexpr std::string_view suffix = "/instance";
  if (!tail.starts_with(prefix) || !tail.ends_with(suffix) || tail.size() <= prefix.size() + suffix.size()) return false;
  std::string_view item = tail.substr(prefix.size(), tail.size() - prefix.size() - suffix.size());
  return std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; });
}

}  // namespace

// ---- job-single-leader ----

JobSingleLeader::JobSingleLeader(sim::Simulation& sim, std::string namespacePath) : Property(sim), namespacePath_(std::move(namespacePath)) {
  ELECTSIM_ASSERT(namespacePath_.starts_with("/"));
}

std::span<const std::string_view> JobSingleLeader::kinds() const {
  // What on_event compares its kind with (LeadershipBeliefs reads node.* and client.state, ClientSessions client.state).
  static constexpr std::string_view read[] = {"node.", "client.state", "zab.commit", "zab.db_reload", "znode.create", "znode.delete", "job.leader", "job.not_leader"};
  return read;
}

void JobSingleLeader::on_event(const sim::TraceEvent& event) {
  beliefs_.observe(event);
  sessions_.observe(event);
  const std::string_view kind = event.kind;
  if (kind == "client.state") {
    // A connection change can start or end a belief overlap: judged below.
  } else if (kind == "zab.commit") {
    lastCommit_[event.node] = Commit{event.integer("zxid"), event.integer("session")};
    return;
  } else if (kind == "zab.db_reload") {
    // The server's tree was replaced (a snapshot from disk or from the leader, after which the log
    // is replayed); the znode.create events that follow list what it now holds. What it had
    // applied before, possibly an uncommitted proposal its fast-forward applied on leaving
    // LEADING or FOLLOWING (Learner/Leader shutdown -> ZKDatabase.fastForwardDataBase), is gone.
    leaderOwners_.erase(event.node);
    return;
  } else if (kind == "znode.create" || kind == "znode.delete") {
    observeZnode(event, kind == "znode.create");
    return;
  } else if (kind == "job.leader" || kind == "job.not_leader") {
    beliefs_.setBelief(std::string(event.text("job")), event.node, kind == "job.leader");
  } else if (!kind.starts_with("node.")) {
    return;
  }
  if (dirty_) return;
  // Judge once this instant is over: 1 ns later, after everything else that happens at it.
  dirty_ = true;
  instant_ = event.time;
  sim().schedule_callback(event.time + std::chrono::nanoseconds(1), sim::no_node, [this] { judge(); });
}

void JobSingleLeader::judge() {
  dirty_ = false;
  for (const std::string& job : beliefs_.groups()) {
    std::vector<sim::NodeId> leaders = beliefs_.activeLeaders(job);
    bool overlap = leaders.size() > 1;
    bool& reported = overlapping_[job];
    if (overlap && !reported) {
      beliefOverlaps_++;
      std::string names;
      for (sim::NodeId node : leaders) names += (names.empty() ? "" : " and ") + node_name(node);
      violate("belief overlap: " + names + " both believe they lead job " + job + " since " + sim::format_instant(instant_) +
              " (each live, unpaused and connected)");
    }
    reported = overlap;
  }
}

void JobSingleLeader::observeZnode(const sim::TraceEvent& event, bool created) {
  auto split = splitJobPath(event.text("path"), namespacePath_);
  if (!split) return;
  const auto& [job, tail] = *split;
  std::int64_t zxid = event.integer("zxid");
  if (tail == "leader/election/instance") {
    // Each server's own history: a server may have applied a proposal that was never committed
    // (and is truncated later), so the owner a sharding is judged against is the one of the
    // server that applied the sharding, which has applied exactly what precedes it.
    std::int64_t owner = created ? event.integer("ephemeral_owner") : 0;
    leaderOwners_[event.node][job].insert_or_assign(zxid, owner);
    return;
  }
  if (!created) return;
  if (isShardingInstancePath(tail)) judgeLeaderOnlyWrite(job, zxid, event.node, "the sharding", true);
  // ShardingService.setReshardingFlag: only the leader since PR #1472 (any instance before it, the
  // ej-any-node-sets-resharding-flag switch).
  // A flag set while no leader node exists is not judged: the leader that checked isLeaderUntilBlock
  // may resign (shutdown's removeLeader) before its create commits, and a flag with no leader only
  // makes the next leader reshard, which the election does anyway (found by explore, seed 363).
  if (tail == "leader/sharding/necessary") judgeLeaderOnlyWrite(job, zxid, event.node, "the resharding flag", false);
}

void JobSingleLeader::judgeLeaderOnlyWrite(const std::string& job, std::int64_t zxid, sim::NodeId server, std::string_view what,
                                           bool judgedWithoutLeader) {
  // A committing server emits zab.commit, then the znode events of that txn. A change applied
  // without a commit here is a log replay or a leader's fast-forward on shutdown, possibly of a
  // txn never committed (ZKDatabase.fastForwardDataBase; found by explore, seed 633): it is judged
  // where it commits, if it does.
  auto commit = lastCommit_.find(server);
  if (commit == lastCommit_.end() || commit->second.zxid != zxid) return;
  if (!judgedWrites_[job].insert(zxid).second) return;  // one transaction, many items and servers
  std::int64_t writer = commit->second.session;
  // The owner of the leader node just before this zxid: the latest change below it (a server emits
  // its txns in zxid order, so every change below zxid has been seen).
  std::int64_t holder = 0;
  const std::map<std::int64_t, std::int64_t>& owners = leaderOwners_[server][job];
  auto after = owners.lower_bound(zxid);
  if (after != owners.begin()) holder = std::prev(after)->second;
  if (holder == writer) return;
  if (holder == 0 && !judgedWithoutLeader) return;
  // ElasticJob knows a leader by the instance id in the node, not by the session: a process that
  // restarted (same ip@-@pid) while its old session's ephemeral lives on, or that got a new session,
  // is the leader the node names (LeaderService.isLeader), and no other process can believe it leads.
  std::optional<sim::NodeId> holderNode = sessions_.nodeOf(holder);
  if (holder != 0 && holderNode && holderNode == sessions_.nodeOf(writer)) return;
  effectOverlaps_++;
  std::string held = holder == 0 ? std::string("no leader node existed") : "the leader node was held by " + sessions_.describe(sim(), holder);
  violate("effect overlap: " + std::string(what) + " of job " + job + " committed at zxid " + formatHex(zxid) + " by " + sessions_.describe(sim(), writer) +
          ", while " + held);
}

void JobSingleLeader::finish(const RunFacts&) {
  if (dirty_) judge();  // the run ended inside the instant
}

// ---- full-coverage ----

FullCoverage::FullCoverage(sim::Simulation& sim, std::vector<CoverageJob> jobs, sim::Duration settleSoft, sim::Duration settleHard,
                           JobCoverageReader reader)
    : Property(sim), jobs_(std::move(jobs)), settleSoft_(settleSoft), settleHard_(settleHard), reader_(std::move(reader)) {
  ELECTSIM_ASSERT(settleSoft_ >= sim::Duration::zero());
  ELECTSIM_ASSERT(settleHard_ >= settleSoft_);
  ELECTSIM_ASSERT(reader_);
  for (std::size_t job = 0; job < jobs_.size(); job++) {
    ELECTSIM_ASSERT(jobs_[job].fireInterval > sim::Duration::zero());
    scheduleJudge(job, sim::epoch + jobs_[job].fireInterval);
  }
}

void FullCoverage::scheduleJudge(std::size_t job, sim::Instant fire) {
  // Judged just before the next fire: by then every execution of this fire has started (a later
  // start would be a misfire of the next one).
  sim::Instant at = fire + jobs_[job].fireInterval - std::chrono::nanoseconds(1);
  sim().schedule_callback(at, sim::no_node, [this, job, fire] {
    judge(job, fire);
    scheduleJudge(job, fire + jobs_[job].fireInterval);
  });
}

std::span<const std::string_view> FullCoverage::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"fault.", "node.start", "zab.established", "job.misfire", "job.exec.start"};
  return read;
}

void FullCoverage::on_event(const sim::TraceEvent& event) {
  const std::string_view kind = event.kind;
  bool soft = kind == "fault.disable" || kind == "fault.enable" || kind == "fault.shutdown" || kind == "fault.set_sharding_total_count" ||
              (kind == "node.start" && event.integer("starts") <= 1);
  if (soft) {
    lastSoft_ = std::max(lastSoft_, event.time);
  } else if (kind.starts_with("fault.") || kind == "node.start" || kind == "zab.established") {
    lastHard_ = std::max(lastHard_, event.time);
  } else if (kind == "job.misfire") {
    std::int64_t& missed = misfired_[{std::string(event.text("job")), event.node}];
    missed = std::max(missed, event.integer("fire"));
  } else if (kind == "job.exec.start") {
    // A MISFIRE re-run carries the context (and fire time) of the execution it follows, but it is
    // the late run of the fire Quartz misfired (JobTriggerListener.triggerMisfired set the flag):
    // count it for that fire.
    std::int64_t fire = event.integer("fire");
    if (event.text("source") == "MISFIRE") {
      auto missed = misfired_.find({std::string(event.text("job")), event.node});
      if (missed != misfired_.end()) fire = std::max(fire, missed->second);
    }
    auto& items = executions_[std::string(event.text("job"))][fire];
    items[static_cast<int>(event.integer("item"))].push_back(std::string(event.text("id")));
  }
}

void FullCoverage::judge(std::size_t job, sim::Instant fire) {
  const CoverageJob& config = jobs_[job];
  std::map<int, std::vector<std::string>> executed;
  auto& fires = executions_[config.name];
  if (auto found = fires.find(sim::nanos(fire)); found != fires.end()) executed = std::move(found->second);
  fires.erase(fires.begin(), fires.upper_bound(sim::nanos(fire)));
  if (fire < lastSoft_ + settleSoft_ || fire < lastHard_ + settleHard_) return;  // not quiet for long enough
  std::optional<JobCoverageSnapshot> snapshot = reader_(config.name);
  if (!snapshot || !snapshot->zookeeperServing || snapshot->liveEnabledInstances.empty()) return;
  firesJudged_++;
  std::vector<std::string> problems;
  for (int item = 0; item < snapshot->shardingTotalCount; item++) {
    auto owner = snapshot->owners.find(item);
    if (owner == snapshot->owners.end()) {
      problems.push_back("item " + std::to_string(item) + " has no owner");
    } else if (!snapshot->liveEnabledInstances.contains(owner->second)) {
      problems.push_back("item " + std::to_string(item) + " is owned by " + owner->second + ", not a live enabled instance");
    }
    auto ran = executed.find(item);
    std::size_t times = ran == executed.end() ? 0 : ran->second.size();
    if (times == 0) {
      problems.push_back("item " + std::to_string(item) + " did not run");
    } else if (times > 1) {
      std::string where;
      for (const std::string& id : ran->second) where += (where.empty() ? "" : ", ") + id;
      problems.push_back("item " + std::to_string(item) + " ran " + std::to_string(times) + " times (" + where + ")");
    }
  }
  for (const auto& [item, ids] : executed) {
    if (item >= snapshot->shardingTotalCount) problems.push_back("item " + std::to_string(item) + " ran but the job has " +
                                                                 std::to_string(snapshot->shardingTotalCount) + " items");
  }
  if (problems.empty()) return;
  constexpr std::size_t shown_max = 6;
  std::string text;
  for (std::size_t i = 0; i < problems.size() && i < shown_max; i++) text += (i == 0 ? "" : "; ") + problems[i];
  if (problems.size() > shown_max) text += "; and " + std::to_string(problems.size() - shown_max) + " more";
  violate("fire " + sim::format_instant(fire) + " of job " + config.name + ": " + text);
}

void FullCoverage::finish(const RunFacts&) {}

Verdict FullCoverage::verdict() const {
  if (!violations().empty()) return Verdict::violated;
  return firesJudged_ == 0 ? Verdict::not_judged : Verdict::held;
}

// ---- no-double-execution ----

std::span<const std::string_view> NoDoubleExecution::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"job.exec.start", "job.exec.end", "node.crash", "node.power_off"};
  return read;
}

void NoDoubleExecution::on_event(const sim::TraceEvent& event) {
  const std::string_view kind = event.kind;
  auto distinct = [](const Item& item) {
    return std::count_if(item.running.begin(), item.running.end(), [](const auto& entry) { return entry.second > 0; });
  };
  if (kind == "job.exec.start") {
    std::string job(event.text("job"));
    std::int64_t number = event.integer("item");
    Item& item = items_[{job, number}];
    item.running[event.node]++;
    if (distinct(item) > 1 && !item.reported) {
      item.reported = true;
      std::string names;
      for (const auto& [node, count] : item.running) {
        if (count > 0) names += (names.empty() ? "" : " and ") + node_name(node);
      }
      violate("item " + std::to_string(number) + " of job " + job + " runs on " + names + " at once");
    }
  } else if (kind == "job.exec.end") {
    auto found = items_.find({std::string(event.text("job")), event.integer("item")});
    if (found == items_.end()) return;
    if (--found->second.running[event.node] <= 0) found->second.running.erase(event.node);
    if (distinct(found->second) < 2) found->second.reported = false;
  } else if (kind == "node.crash" || kind == "node.power_off") {
    // The process is gone, and its executions with it.
    for (auto& [key, item] : items_) {
      item.running.erase(event.node);
      if (distinct(item) < 2) item.reported = false;
    }
  }
}

}  // namespace properties
