#include "harness/swarm.h"

#include <algorithm>
#include <array>
#include <map>
#include <set>

#include "harness/recipe.h"
#include "harness/registry.h"
#include "harness/trigger_kinds.h"
#include "sim/random.h"

namespace harness {

namespace {

using sim::Duration;

Duration ms(std::int64_t count) { return std::chrono::milliseconds(count); }

// A duration in [low, high], on whole milliseconds (failure files stay readable).
Duration draw(sim::Rng& rng, Duration low, Duration high) {
  return ms(rng.uniform(std::chrono::duration_cast<std::chrono::milliseconds>(low).count(),
                        std::chrono::duration_cast<std::chrono::milliseconds>(high).count()));
}

template <class T>
const T& pick(sim::Rng& rng, const std::vector<T>& options) {
  ELECTSIM_ASSERT(!options.empty());
  return options[rng.pick(static_cast<std::uint32_t>(options.size()))];
}

// The deployment: the recipe's usual shape, varied per seed.
void draw_deployment(Scenario& scenario, sim::Rng& rng) {
  scenario.network.latency_min = 1ms;
  scenario.network.latency_max = pick(rng, std::vector<Duration>{2ms, 5ms, 5ms, 20ms});
  if (scenario.recipe == Recipe::es_zen) {
    ElasticsearchConfig elasticsearch;
    elasticsearch.nodes = rng.chance(3, 4) ? 3 : 5;
    elasticsearch.minimum_master_nodes = elasticsearch.nodes / 2 + 1;
    // A light workload: the queue grows while a publication waits (up to commit_timeout for an
    // isolated master), which is when priorities and batching show.
    elasticsearch.cluster_tasks.rate = pick(rng, std::vector<double>{1, 1, 4});
    elasticsearch.cluster_tasks.priorities = pick(rng, std::vector<std::vector<EsPriority>>{
                                                           {EsPriority::normal},
                                                           {EsPriority::urgent, EsPriority::normal, EsPriority::low},
                                                           {EsPriority::high, EsPriority::languid},
                                                       });
    elasticsearch.cluster_tasks.executor = rng.chance(1, 2) ? EsTaskExecutor::shared : EsTaskExecutor::per_task;
    scenario.elasticsearch = elasticsearch;
    return;
  }
  scenario.zookeeper.servers = rng.chance(3, 4) ? 3 : 5;
  // The session timeout, in ticks, stays in the range where ZooKeeper's clients can keep their
  // promises: a client attached to a follower cut off from the leader keeps its connection until
  // the follower gives up, syncLimit ticks after the leader's last ping, while the leader expires
  // the session from the last touch the follower relayed, up to T/3 + tick/2 before the cut: above
  // about (syncLimit + 1/2) * 3/2 ticks the client suspends first. Below it, two clients can both
  // believe they hold an ephemeral (scenario latch-session-shorter-than-sync-window).
  scenario.zookeeper.tick_time = pick(rng, std::vector<Duration>{500ms, 500ms, 1s, 2s});
  scenario.clients.session_timeout = scenario.zookeeper.tick_time * pick(rng, std::vector<std::int64_t>{10, 15, 20});
  if (rng.chance(1, 4)) {
    scenario.zookeeper.start = StartMode::staggered;
    scenario.zookeeper.start_interval = draw(rng, 100ms, 2s);
  }
  if (scenario.recipe == Recipe::none) {
    // Sometimes the servers start over persisted state, as after an earlier life: one last zxid
    // (epoch e, counter c) or one behind it, and a current epoch of e, or e + 1 for a server that
    // synced a new leader's epoch before that leader logged anything. Elections then compare
    // epochs as well as zxids (ZOOKEEPER-1419 lives there).
    if (rng.chance(1, 4)) {
      std::int64_t epoch = rng.uniform(1, 3);
      std::int64_t counter = rng.uniform(2, 20);
      for (int n = 1; n <= scenario.zookeeper.servers; n++) {
        std::string name = server_name(n);
        scenario.zookeeper.initial_zxid[name] = (epoch << 32) | (counter - (rng.chance(1, 4) ? 1 : 0));
        if (rng.chance(1, 2)) scenario.zookeeper.initial_epoch[name] = epoch + 1;
      }
    }
    scenario.clients.writers = static_cast<int>(rng.uniform(1, 3));
    scenario.clients.write_interval = pick(rng, std::vector<Duration>{50ms, 100ms, 500ms});
    scenario.clients.ephemeral_writes = rng.chance(1, 2);
    return;
  }
  scenario.instances.count = static_cast<int>(rng.uniform(2, 5));
  if (rng.chance(1, 4)) {
    scenario.instances.start = StartMode::staggered;
    scenario.instances.start_interval = draw(rng, 100ms, 2s);
  }
  if (scenario.recipe == Recipe::elasticjob) {
    JobConfig job;
    job.name = "explore-job";
    job.sharding_total_count = static_cast<int>(rng.uniform(1, 12));
    job.strategy = pick(rng, std::vector<std::string>{"average", "average", "odevity", "rotate"});
    job.fire_interval = pick(rng, std::vector<Duration>{2s, 5s, 10s});
    job.execution_time_min = 10ms;
    // full-coverage assumes an execution (plus sharding) ends well before the next fire: a job longer
    // than its interval misfires in steady state, which ElasticJob does not promise to cover
    // (docs/elasticjob-model.md). One instance may come to own every item, up to 2N+1 after a
    // set_sharding_total_count, run 8 at a time (the executor's threads): so the waves of items,
    // each at most execution_time_max, take at most half the interval.
    const std::int64_t items_max = 2 * job.sharding_total_count + 1;
    const std::int64_t waves = (items_max + 7) / 8;
    job.execution_time_max = std::min<Duration>(job.fire_interval / (2 * waves), pick(rng, std::vector<Duration>{100ms, 1s, 3s}));
    job.monitor_execution = rng.chance(3, 4);
    scenario.jobs.push_back(job);
  }
}

std::vector<std::string> node_names(const Scenario& scenario) {
  std::vector<std::string> names;
  if (scenario.recipe == Recipe::es_zen) {
    for (int n = 1; n <= scenario.elasticsearch->nodes; n++) names.push_back(es_node_name(n));
    return names;
  }
  for (int n = 1; n <= scenario.zookeeper.servers; n++) names.push_back(server_name(n));
  if (has_instances(scenario.recipe)) {
    for (int n = 1; n <= scenario.instances.count; n++) names.push_back(instance_name(n));
  }
  return names;
}

std::vector<std::string> instance_names(const Scenario& scenario) {
  std::vector<std::string> names;
  for (int n = 1; n <= scenario.instances.count; n++) names.push_back(instance_name(n));
  return names;
}

// The fault schedule of the fault phase [1 s, phase_end), from the run's swarm.
class FaultDrawer {
 public:
  FaultDrawer(Scenario& scenario, sim::Rng& rng, Duration phase_end) : scenario_(scenario), rng_(rng), phase_end_(phase_end) {
    nodes_ = node_names(scenario);
    if (has_instances(scenario.recipe)) instances_ = instance_names(scenario);
  }

  void add(FaultKind kind, Duration at) {
    Fault fault;
    fault.at = at;
    fault.kind = kind;
    switch (kind) {
      case FaultKind::crash:
      case FaultKind::power_off:
        fault.node = pick(rng_, nodes_);
        push(fault);
        if (rng_.chance(7, 10)) later(FaultKind::restart, fault.node, at, 1s, 20s);
        return;
      case FaultKind::restart:
        fault.node = pick(rng_, nodes_);
        push(fault);
        return;
      case FaultKind::pause:
        fault.node = pick(rng_, nodes_);
        fault.pause_for = std::min(draw(rng_, 100ms, 3 * pause_scale()), phase_end_ - at);
        if (fault.pause_for <= Duration::zero()) return;
        push(fault);
        return;
      case FaultKind::partition: {
        std::vector<std::string> a, b;
        split(nodes_, a, b);
        fault.groups = {a, b};
        push(fault);
        healLater(at);
        return;
      }
      case FaultKind::isolate:
        fault.node = pick(rng_, nodes_);
        push(fault);
        healLater(at);
        return;
      case FaultKind::bridge: {
        if (nodes_.size() < 3) return;
        fault.node = pick(rng_, nodes_);
        std::vector<std::string> others;
        for (const std::string& name : nodes_) {
          if (name != fault.node) others.push_back(name);
        }
        std::vector<std::string> a, b;
        split(others, a, b);
        fault.groups = {a, b};
        push(fault);
        healLater(at);
        return;
      }
      case FaultKind::drop: {
        fault.from = pick(rng_, nodes_);
        do {
          fault.to = pick(rng_, nodes_);
        } while (fault.to == fault.from);
        push(fault);
        healLater(at);
        return;
      }
      case FaultKind::heal: push(fault); return;
      case FaultKind::disable:
        fault.node = pick(rng_, instances_);
        push(fault);
        if (rng_.chance(7, 10)) later(FaultKind::enable, fault.node, at, 1s, 20s);
        return;
      case FaultKind::enable:
        fault.node = pick(rng_, instances_);
        push(fault);
        return;
      case FaultKind::shutdown:
        fault.node = pick(rng_, instances_);
        push(fault);
        if (rng_.chance(1, 2)) later(FaultKind::restart, fault.node, at, 1s, 20s);
        return;
      case FaultKind::set_sharding_total_count: {
        const JobConfig& job = scenario_.jobs.front();
        fault.job = job.name;
        fault.value = static_cast<int>(rng_.uniform(1, 2 * job.sharding_total_count + 1));
        push(fault);
        return;
      }
    }
  }

 private:
  Duration pause_scale() const {
    return scenario_.recipe == Recipe::es_zen ? scenario_.elasticsearch->fd_ping_interval * 10 : scenario_.clients.session_timeout;
  }
  void push(const Fault& fault) { scenario_.faults.push_back(fault); }
  void later(FaultKind kind, const std::string& node, Duration at, Duration low, Duration high) {
    Duration when = at + draw(rng_, low, high);
    if (when >= phase_end_) return;  // the liveness tail restarts it
    Fault fault;
    fault.at = when;
    fault.kind = kind;
    fault.node = node;
    push(fault);
  }
  void healLater(Duration at) {
    Duration when = at + draw(rng_, 1s, 30s);
    if (when >= phase_end_) return;  // the liveness tail heals it
    Fault heal;
    heal.at = when;
    heal.kind = FaultKind::heal;
    push(heal);
  }
  // Two non-empty sides, every name on one of them.
  void split(const std::vector<std::string>& names, std::vector<std::string>& a, std::vector<std::string>& b) {
    ELECTSIM_ASSERT(names.size() >= 2);
    do {
      a.clear();
      b.clear();
      for (const std::string& name : names) (rng_.chance(1, 2) ? a : b).push_back(name);
    } while (a.empty() || b.empty());
  }

  Scenario& scenario_;
  sim::Rng& rng_;
  Duration phase_end_;
  std::vector<std::string> nodes_;
  std::vector<std::string> instances_;
};

// The liveness tail: heal the network and restart every node that the faults left stopped. A node
// shut down gracefully stays down: the operator meant it.
void add_liveness_tail(Scenario& scenario, Duration tail_start) {
  Fault heal;
  heal.at = tail_start;
  heal.kind = FaultKind::heal;
  scenario.faults.push_back(heal);
  std::map<std::string, bool> stopped;
  std::set<std::string> shut_down;
  std::vector<Fault> sorted = scenario.faults;
  std::stable_sort(sorted.begin(), sorted.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  for (const Fault& fault : sorted) {
    if (fault.kind == FaultKind::crash || fault.kind == FaultKind::power_off) stopped[fault.node] = true;
    if (fault.kind == FaultKind::shutdown) {
      stopped[fault.node] = false;
      shut_down.insert(fault.node);
    }
    if (fault.kind == FaultKind::restart) {
      stopped[fault.node] = false;
      shut_down.erase(fault.node);
    }
  }
  for (const auto& [node, down] : stopped) {
    if (!down || shut_down.contains(node)) continue;
    Fault restart;
    restart.at = tail_start;
    restart.kind = FaultKind::restart;
    restart.node = node;
    scenario.faults.push_back(restart);
  }
}

std::string describe(const std::vector<FaultKind>& enabled, int count, int steps) {
  std::string text = "swarm: ";
  for (std::size_t i = 0; i < enabled.size(); i++) text += (i == 0 ? "" : ", ") + std::string(fault_kind_name(enabled[i]));
  text += "; " + std::to_string(count) + " fault actions drawn";
  if (steps > 0) text += ", " + std::to_string(steps) + " at protocol steps";
  return text;
}

// The kinds that happen many times a run (every write, every ack): a trigger counts further into them.
bool frequent(std::string_view kind) {
  for (std::string_view often : {"zab.proposal_sent", "zab.commit_sent", "zab.txn_queued", "zab.txn_appended", "zab.log_flushed",
                                 "zab.log_synced", "zab.ack_sent", "zab.commit", "zab.propose", "job.exec.start"}) {
    if (kind == often) return true;
  }
  return false;
}

// Step-triggered faults: up to three, each at the n-th occurrence of a site or event of one node
// after a random time of the fault phase, paired with what undoes it (a restart, a heal) at the same
// trigger a few seconds later. Triggers expire 10 s before the phase ends, so everything they do is
// over when the liveness tail starts. Drawn from their own stream: the timed schedule is unchanged.
int add_step_faults(Scenario& scenario, const std::vector<FaultKind>& enabled, std::uint64_t seed, Duration phase_end) {
  sim::Rng rng(sim::derive_seed(seed, "swarm-steps"));
  if (scenario.recipe == Recipe::none) {
    // ZooKeeper alone: the races between a server's threads (zookeeper-model.md, Threads) and
    // writers that read back what they wrote, so a lost write shows.
    scenario.zookeeper.thread_delay_max = pick(rng, std::vector<Duration>{0ms, 1ms, 5ms, 20ms});
    scenario.clients.reads = !scenario.clients.ephemeral_writes;
  }
  std::vector<FaultKind> kinds;
  for (FaultKind kind : enabled) {
    if (kind == FaultKind::crash || kind == FaultKind::power_off || kind == FaultKind::pause || kind == FaultKind::isolate) kinds.push_back(kind);
  }
  constexpr Duration undo_max = 10s;
  Duration until = phase_end - undo_max;
  if (kinds.empty() || until <= 2s || !rng.chance(1, 2)) return 0;
  // An outage now and then (ZooKeeper alone, with writers that read back, whose lost writes show):
  // every server crashes within three seconds and comes back within six, in any order. Most of
  // Zab's sync bugs need two of three servers down at once, and their restarts are syncs to
  // interrupt. A step fault counts from it, half the time at a step of a restarting server's sync.
  // (Not with ephemeral writers: their runs are for the sessions' bugs, which an outage dilutes.)
  std::optional<Duration> outage;
  if (scenario.recipe == Recipe::none && scenario.clients.reads && std::find(kinds.begin(), kinds.end(), FaultKind::crash) != kinds.end() &&
      until > 12s && rng.chance(3, 4)) {
    outage = draw(rng, 1s, until - 10s);
    for (int n = 1; n <= scenario.zookeeper.servers; n++) {
      Fault crash;
      crash.kind = FaultKind::crash;
      crash.node = server_name(n);
      crash.at = *outage + draw(rng, 0ms, 3s);
      Fault restart = crash;
      restart.kind = FaultKind::restart;
      restart.at = *outage + 3s + draw(rng, 0ms, 6s);
      scenario.faults.push_back(crash);
      scenario.faults.push_back(restart);
    }
  }
  // Every (kind, node) a trigger could wait for: the servers' sites and events, and the recipe's own.
  std::vector<std::pair<const TriggerKind*, std::string>> servers;
  std::vector<std::pair<const TriggerKind*, std::string>> recipe;
  for (const TriggerKind& kind : trigger_kinds()) {
    if (!trigger_kind_in_recipe(kind, scenario.recipe) || kind.kind.starts_with("node.") || kind.kind == "client.state") continue;
    for (const std::string& node : node_names(scenario)) {
      std::uint8_t role = node.starts_with("zk") ? trigger_server : node.starts_with("es") ? trigger_es_node : trigger_instance;
      if ((kind.roles & role) == 0) continue;
      (role == trigger_server ? servers : recipe).emplace_back(&kind, node);
    }
  }
  if (servers.empty() && recipe.empty()) return 0;
  int count = static_cast<int>(rng.uniform(1, 3));
  for (int drawn = 0; drawn < count; drawn++) {
    // Half the time a step of the recipe's own nodes, when it has any.
    const auto& from = recipe.empty() || (!servers.empty() && rng.chance(1, 2)) ? servers : recipe;
    auto [kind, node] = from[rng.pick(static_cast<std::uint32_t>(from.size()))];
    bool at_sync = outage && rng.chance(1, 2);
    if (at_sync) {
      // The two steps between which a 3.8.0 follower's sync has its epoch but not its txns.
      static constexpr std::array<std::string_view, 2> sync_steps{"zab.current_epoch_written", "zab.newleader_acked"};
      kind = find_trigger_kind(sync_steps[rng.pick(sync_steps.size())]);
      node = server_name(static_cast<int>(rng.uniform(1, scenario.zookeeper.servers)));
    }
    Trigger trigger;
    trigger.event = std::string(kind->kind);
    trigger.node = node;
    // A sync step: mostly the first sync after the outage.
    trigger.occurrence = static_cast<int>(rng.uniform(1, frequent(kind->kind) ? 20 : at_sync ? 2 : 3));
    if (kind->kind == "zk.state") trigger.where["state"] = rng.chance(1, 2) ? "LEADING" : "FOLLOWING";
    Fault fault;
    fault.at = at_sync ? *outage : draw(rng, 1s, until - 1s);
    fault.until = until;
    fault.after = trigger;
    fault.kind = kinds[rng.pick(static_cast<std::uint32_t>(kinds.size()))];
    // Right after a follower's NEWLEADER ACK only a lost process reveals anything (the txns it
    // acknowledged and had not logged, ZOOKEEPER-4646): not a pause or an isolation there.
    bool after_ack = at_sync && kind->kind == "zab.newleader_acked";
    if (after_ack && (fault.kind == FaultKind::pause || fault.kind == FaultKind::isolate)) fault.kind = FaultKind::crash;
    // The node the fault hits: the one that reached the step, or now and then another one.
    fault.node = rng.chance(3, 4) ? node : pick(rng, node_names(scenario));
    Fault undo = fault;
    undo.delay = draw(rng, 1s, undo_max);
    switch (fault.kind) {
      case FaultKind::crash:
      case FaultKind::power_off: undo.kind = FaultKind::restart; break;
      case FaultKind::isolate:
        undo.kind = FaultKind::heal;
        undo.node.clear();
        break;
      case FaultKind::pause: fault.pause_for = draw(rng, 100ms, 3s); break;
      default: ELECTSIM_UNREACHABLE();
    }
    scenario.faults.push_back(fault);
    if (fault.kind != FaultKind::pause) scenario.faults.push_back(undo);
    if (at_sync && (rng.chance(1, 2) || after_ack)) {
      // Failures come together: another server crashes within half a second of the interrupted
      // sync, and comes back later.
      Fault companion = fault;
      companion.kind = FaultKind::crash;
      companion.pause_for = Duration::zero();
      std::vector<std::string> others = node_names(scenario);
      std::erase(others, fault.node);
      companion.node = pick(rng, others);
      companion.delay = draw(rng, 0ms, 500ms);
      Fault back = companion;
      back.kind = FaultKind::restart;
      back.delay = draw(rng, 2s, undo_max);
      scenario.faults.push_back(companion);
      scenario.faults.push_back(back);
    }
  }
  return count;
}

}  // namespace

std::vector<FaultKind> fault_kinds_for(Recipe recipe) {
  std::vector<FaultKind> kinds{FaultKind::crash,     FaultKind::power_off, FaultKind::pause, FaultKind::partition,
                               FaultKind::isolate,   FaultKind::bridge,    FaultKind::drop};
  if (has_instances(recipe)) kinds.push_back(FaultKind::shutdown);
  if (recipe == Recipe::elasticjob) {
    kinds.push_back(FaultKind::disable);
    kinds.push_back(FaultKind::set_sharding_total_count);
  }
  return kinds;
}

std::optional<Recipe> recipe_for_bugs(const std::vector<std::string>& bugs) {
  for (const std::string& bug : bugs) {
    if (!is_known_bug(bug)) return std::nullopt;
  }
  // The first recipe they all apply to, in this order: none for ZooKeeper's switches alone,
  // leader-latch for Curator's, elasticjob for ZooKeeper's with ElasticJob's.
  for (Recipe recipe : {Recipe::none, Recipe::elasticjob, Recipe::leader_latch, Recipe::leader_selector, Recipe::naive_master,
                        Recipe::es_zen}) {
    if (std::all_of(bugs.begin(), bugs.end(), [&](const std::string& bug) { return bug_applies_to(bug, recipe); })) return recipe;
  }
  return std::nullopt;
}

std::optional<Recipe> recipe_for_bug(std::string_view bug) { return recipe_for_bugs({std::string(bug)}); }

Scenario generate_scenario(const SwarmOptions& options, std::uint64_t seed) {
  ELECTSIM_ASSERT(options.duration >= 2s);
  sim::Rng rng(sim::derive_seed(seed, "swarm"));
  Scenario scenario;
  scenario.name = "explore-" + std::string(recipe_name(options.recipe)) + "-" + std::to_string(seed);
  scenario.seed = seed;
  scenario.duration = options.duration;
  scenario.recipe = options.recipe;
  scenario.bugs = options.bugs;
  scenario.zookeeper.version = options.zookeeper_version;
  draw_deployment(scenario, rng);

  // The swarm: each allowed kind is enabled with probability 1/2 (at least one), and the run's
  // intensity is one of three fault rates.
  std::vector<FaultKind> allowed = options.faults.empty() ? fault_kinds_for(options.recipe) : options.faults;
  std::vector<FaultKind> enabled;
  for (FaultKind kind : allowed) {
    if (rng.chance(1, 2)) enabled.push_back(kind);
  }
  if (enabled.empty() && !allowed.empty()) enabled.push_back(pick(rng, allowed));
  // The liveness tail must hold the recipe's leader bound after ZooKeeper serves again, with a few
  // seconds for the ensemble itself; the faults get the rest (at least half the run, if it fits).
  Duration tail = std::max(options.duration / 2, makeRecipeDriver(scenario)->leaderBound(scenario) + 5s);
  Duration phase_end = std::max(options.duration - tail, Duration::zero());
  Duration mean_gap = pick(rng, std::vector<Duration>{20s, 8s, 3s});
  FaultDrawer drawer(scenario, rng, phase_end);
  int drawn = 0;
  if (!enabled.empty()) {
    // A run of many hours draws more faults than a scenario may hold (faults_max): the drawing stops
    // short of it, leaving room for the liveness tail and the step faults (each node's restart and a
    // heal; a few steps with their undo), so that every file explore writes parses again.
    constexpr std::size_t reserve = 256;
    for (Duration at = draw(rng, 1s, 1s + mean_gap); at + 1s < phase_end && scenario.faults.size() + reserve < faults_max;
         at += draw(rng, mean_gap / 4, mean_gap * 7 / 4)) {
      drawer.add(pick(rng, enabled), at);
      drawn++;
    }
  }
  add_liveness_tail(scenario, phase_end);
  int steps = options.step_faults ? add_step_faults(scenario, enabled, seed, phase_end) : 0;
  std::stable_sort(scenario.faults.begin(), scenario.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  scenario.description = describe(enabled, drawn, steps);
  ELECTSIM_ASSERT_MSG(scenario.faults.size() <= static_cast<std::size_t>(faults_max), "the swarm drew more faults than a scenario holds");
  return scenario;
}

}  // namespace harness
