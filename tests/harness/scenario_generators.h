// RapidCheck generators of valid Scenario values: every value they make is one parse_scenario_text
// could have produced (names that exist, faults in time order, ids unique, ...), so
// parse(write(s)) == s must hold for all of them.
#pragma once

#include <rapidcheck.h>

#include <algorithm>
#include <string>
#include <vector>

#include "harness/registry.h"
#include "harness/trigger_kinds.h"
#include "harness/scenario.h"

namespace harness::generators {

// Durations of every shape format_duration writes: whole seconds, milliseconds, and odd nanoseconds.
inline rc::Gen<sim::Duration> gen_duration(sim::Duration min, sim::Duration max) {
  auto in_units = [=](std::int64_t unit) {
    std::int64_t low = (min.count() + unit - 1) / unit;
    std::int64_t high = max.count() / unit;
    if (low > high) return rc::gen::just(min);
    return rc::gen::map(rc::gen::inRange<std::int64_t>(low, high + 1),
                        [unit](std::int64_t n) { return sim::Duration{n * unit}; });
  };
  return rc::gen::oneOf(in_units(1'000'000'000), in_units(1'000'000), in_units(1));
}

// Text the writer must quote or escape: YAML 1.1 booleans and numbers, indicators, spaces, '#'.
inline rc::Gen<std::string> gen_text(bool allow_newlines) {
  auto printable = rc::gen::container<std::string>(rc::gen::inRange<char>(' ', '~' + 1));
  auto tricky = rc::gen::element<std::string>("yes", "no", "null", "~", "true", "0123", "1e5", "0x1F", "1:20", "- a",
                                              "#comment", " lead", "trail ", "a: b", "[x]", "{y}", "'q'", "\"d\"",
                                              "@at", "*star", "&amp", "!bang", "%pct", "|pipe", ">gt", "héllo");
  auto lines =
      rc::gen::map(rc::gen::container<std::vector<std::string>>(printable), [](std::vector<std::string> parts) {
        std::string joined;
        for (std::size_t i = 0; i < parts.size(); i++) joined += (i > 0 ? (i % 2 ? "\n" : "\t") : "") + parts[i];
        return joined;
      });
  if (allow_newlines) return rc::gen::oneOf(printable, tricky, lines);
  return rc::gen::oneOf(printable, tricky);
}

// Non-empty text without '/' (job names and instance ids are znode path components).
inline rc::Gen<std::string> gen_path_component() {
  return rc::gen::suchThat(
      gen_text(false), [](const std::string& text) { return !text.empty() && text.find('/') == std::string::npos; });
}

// Fisher-Yates with RapidCheck's choices, so a failing case shrinks towards the original order.
template <typename T>
std::vector<T> shuffled(std::vector<T> items) {
  for (std::size_t i = items.size(); i > 1; i--) std::swap(items[i - 1], items[*rc::gen::inRange<std::size_t>(0, i)]);
  return items;
}

// A random subset of `names` in random order.
inline std::vector<std::string> pick_names(const std::vector<std::string>& names) {
  std::vector<std::string> subset = shuffled(names);
  subset.resize(*rc::gen::inRange<std::size_t>(0, names.size() + 1));
  return subset;
}

inline std::vector<std::string> registry_names(const std::vector<Entry>& entries) {
  std::vector<std::string> names;
  for (const Entry& entry : entries) names.emplace_back(entry.name);
  return names;
}

inline int instances_run(const Scenario& s) { return has_instances(s.recipe) ? s.instances.count : 0; }

// The nodes a run has (NodeCatalogue's rule), so faults name only those.
inline std::vector<std::string> all_node_names(const Scenario& s) {
  std::vector<std::string> names;
  if (runs_zookeeper(s.recipe)) {
    for (int n = 1; n <= s.zookeeper.servers; n++) names.push_back(server_name(n));
  }
  for (int n = 1; n <= instances_run(s); n++) names.push_back(instance_name(n));
  if (s.elasticsearch) {
    for (int n = 1; n <= s.elasticsearch->nodes; n++) names.push_back(es_node_name(n));
  }
  return names;
}

// Splits `nodes` (already shuffled) into `count` non-empty groups.
inline std::vector<std::vector<std::string>> split_groups(const std::vector<std::string>& nodes, std::size_t count) {
  std::vector<std::vector<std::string>> groups(count);
  for (std::size_t i = 0; i < nodes.size(); i++)
    groups[i < count ? i : *rc::gen::inRange<std::size_t>(0, count)].push_back(nodes[i]);
  return groups;
}

inline Fault gen_fault(const Scenario& s) {
  std::vector<std::string> nodes = all_node_names(s);
  std::vector<FaultKind> kinds{FaultKind::crash,   FaultKind::power_off, FaultKind::restart,
                               FaultKind::isolate, FaultKind::heal,      FaultKind::pause};
  if (nodes.size() >= 2) kinds.insert(kinds.end(), {FaultKind::partition, FaultKind::drop});
  if (nodes.size() >= 3) kinds.push_back(FaultKind::bridge);
  if (instances_run(s) > 0) kinds.push_back(FaultKind::shutdown);
  if (instances_run(s) > 0 && s.recipe == Recipe::elasticjob)
    kinds.insert(kinds.end(), {FaultKind::disable, FaultKind::enable});
  if (!s.jobs.empty()) kinds.push_back(FaultKind::set_sharding_total_count);

  Fault fault;
  fault.at = *gen_duration(0s, s.duration);
  fault.kind = *rc::gen::elementOf(kinds);
  std::vector<std::string> order = shuffled(nodes);
  switch (fault.kind) {
    case FaultKind::disable:
    case FaultKind::enable:
    case FaultKind::shutdown:
      fault.node = instance_name(*rc::gen::inRange(1, instances_run(s) + 1));
      break;
    case FaultKind::pause:
      fault.pause_for = *gen_duration(1ns, 1h);
      [[fallthrough]];
    case FaultKind::crash:
    case FaultKind::power_off:
    case FaultKind::restart:
    case FaultKind::isolate:
      fault.node = order[0];
      break;
    case FaultKind::partition: {
      order.resize(*rc::gen::inRange<std::size_t>(2, nodes.size() + 1));
      fault.groups = split_groups(order, *rc::gen::inRange<std::size_t>(2, order.size() + 1));
      break;
    }
    case FaultKind::bridge: {
      fault.node = order[0];
      std::vector<std::string> rest(order.begin() + 1, order.end());
      rest.resize(*rc::gen::inRange<std::size_t>(2, rest.size() + 1));
      fault.groups = split_groups(rest, 2);
      break;
    }
    case FaultKind::drop:
      fault.from = order[0];
      fault.to = order[1];
      break;
    case FaultKind::heal:
      break;
    case FaultKind::set_sharding_total_count:
      fault.job = (*rc::gen::elementOf(s.jobs)).name;
      fault.value = *rc::gen::inRange(1, sharding_total_count_max + 1);
      break;
  }
  // A quarter of the faults wait for a step (harness/trigger_kinds.h) of a node that emits it.
  if (*rc::gen::inRange(0, 4) == 0) {
    std::vector<std::pair<const TriggerKind*, std::string>> choices;
    for (const TriggerKind& kind : trigger_kinds()) {
      if (!trigger_kind_in_recipe(kind, s.recipe)) continue;
      for (const std::string& node : nodes) {
        std::uint8_t role = node.starts_with("zk") ? trigger_server : node.starts_with("es") ? trigger_es_node : trigger_instance;
        if (kind.roles & role) choices.emplace_back(&kind, node);
      }
    }
    if (!choices.empty()) {
      auto [kind, node] = *rc::gen::elementOf(choices);
      Trigger trigger;
      trigger.event = std::string(kind->kind);
      trigger.node = node;
      trigger.occurrence = *rc::gen::inRange(1, 1000);
      if (!kind->fields.empty() && *rc::gen::inRange(0, 3) == 0) {
        trigger.where[std::string(*rc::gen::elementOf(kind->fields))] = *rc::gen::elementOf(std::vector<std::string>{"LEADING", "12", "0x100000003", "true", "a b"});
      }
      fault.after = trigger;
      if (*rc::gen::arbitrary<bool>()) fault.delay = *gen_duration(0s, 1h);
      if (*rc::gen::arbitrary<bool>()) fault.until = *gen_duration(fault.at, s.duration);
    }
  }
  return fault;
}

inline JobConfig gen_job() {
  JobConfig job;
  job.name = *gen_path_component();
  job.sharding_total_count = *rc::gen::inRange(1, sharding_total_count_max + 1);
  job.strategy = *rc::gen::elementOf(registry_names(strategy_names()));
  job.fire_interval = *gen_duration(1ms, 1h);  // a setting: at least 1 ms (scenario_yaml.h, setting_duration)
  job.execution_time_min = *gen_duration(0s, 10s);
  job.execution_time_max = *gen_duration(job.execution_time_min, 20s);
  job.monitor_execution = *rc::gen::arbitrary<bool>();
  return job;
}

inline ElasticsearchConfig gen_elasticsearch() {
  ElasticsearchConfig es;
  es.nodes = *rc::gen::inRange(1, 8);
  es.minimum_master_nodes = *rc::gen::inRange(1, es.nodes + 1);
  es.ping_timeout = *gen_duration(1ms, 1min);
  es.commit_timeout = *gen_duration(1ms, 1min);
  es.publish_timeout = *gen_duration(es.commit_timeout, 1min);  // ZenDiscovery: commit <= publish
  es.fd_ping_interval = *gen_duration(1ms, 1min);
  es.fd_ping_timeout = *gen_duration(1ms, 1min);
  es.fd_ping_retries = *rc::gen::inRange(1, fd_ping_retries_max + 1);
  es.cluster_tasks.rate = *rc::gen::inRange(0, 100'000'000) / 1000.0;
  std::vector<EsPriority> all{EsPriority::immediate, EsPriority::urgent, EsPriority::high,
                              EsPriority::normal,    EsPriority::low,    EsPriority::languid};
  es.cluster_tasks.priorities = shuffled(all);
  es.cluster_tasks.priorities.resize(*rc::gen::inRange<std::size_t>(1, all.size() + 1));
  return es;
}

inline void gen_instances(Scenario& s) {
  s.instances.count = *rc::gen::inRange(0, 12);
  s.instances.start = *rc::gen::element(StartMode::together, StartMode::staggered);
  s.instances.start_interval = *gen_duration(0s, 10s);
  // Explicit ids for some instances (of a recipe that runs them), skipping any that would repeat an
  // id already in use. ElasticJob's are IP@-@PID.
  if (!has_instances(s.recipe)) return;
  std::vector<std::string> used;
  for (int n = 1; n <= s.instances.count; n++) used.push_back(instance_id(s, n));
  for (int n = 1; n <= s.instances.count; n++) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    std::string id = *gen_path_component();
    if (s.recipe == Recipe::elasticjob) id = "h" + id + "@-@" + std::to_string(*rc::gen::inRange(0, 100000));
    if (std::find(used.begin(), used.end(), id) != used.end()) continue;
    used[static_cast<std::size_t>(n - 1)] = id;
    s.instances.ids[instance_name(n)] = id;
  }
}

inline void gen_cluster(Scenario& s) {
  s.zookeeper.servers = *rc::gen::inRange(1, servers_max + 1);
  s.zookeeper.tick_time = *gen_duration(1ms, 10s);
  s.zookeeper.init_limit = *rc::gen::inRange(1, limit_ticks_max + 1);
  s.zookeeper.sync_limit = *rc::gen::inRange(1, limit_ticks_max + 1);
  s.zookeeper.start = *rc::gen::element(StartMode::together, StartMode::staggered);
  s.zookeeper.start_interval = *gen_duration(0s, 10s);
  for (int n = 1; n <= s.zookeeper.servers && runs_zookeeper(s.recipe); n++) {
    if (!*rc::gen::arbitrary<bool>()) continue;
    s.zookeeper.initial_zxid[server_name(n)] = *rc::gen::inRange<std::int64_t>(0, INT64_MAX);
    std::int64_t zxid_epoch = s.zookeeper.initial_zxid[server_name(n)] >> 32;
    if (*rc::gen::arbitrary<bool>() && zxid_epoch < INT32_MAX) {
      s.zookeeper.initial_epoch[server_name(n)] = *rc::gen::inRange<std::int64_t>(zxid_epoch, INT32_MAX);
    }
  }
  if (*rc::gen::arbitrary<bool>()) s.zookeeper.min_session_timeout = *gen_duration(1ms, 10s);
  if (*rc::gen::arbitrary<bool>()) {
    s.zookeeper.max_session_timeout = *gen_duration(s.zookeeper.min_session_timeout.value_or(1ms), 1h);
  }
  s.zookeeper.version = std::string(*rc::gen::elementOf(zookeeper_versions()));
  if (*rc::gen::arbitrary<bool>()) s.zookeeper.thread_delay_max = *gen_duration(0s, 1s);
  s.network.latency_min = *gen_duration(1ns, 100ms);
  s.network.latency_max = *gen_duration(s.network.latency_min, 1s);
  s.clients.session_timeout = *gen_duration(1ms, 1min);
  s.clients.writers = *rc::gen::inRange(0, 4);
  s.clients.write_interval = *gen_duration(1ms, 10s);
  s.clients.ephemeral_writes = *rc::gen::arbitrary<bool>();
  s.clients.writes = *rc::gen::inRange(0, writes_max + 1);
  s.clients.reads = *rc::gen::arbitrary<bool>();
  gen_instances(s);
}

inline rc::Gen<Scenario> gen_scenario() {
  return rc::gen::exec([] {
    Scenario s;
    s.name = *rc::gen::suchThat(gen_text(false), [](const std::string& text) { return !text.empty(); });
    s.description = *gen_text(true);
    s.seed = *rc::gen::arbitrary<std::uint64_t>();
    s.duration = *gen_duration(1ns, duration_max);
    s.recipe = *rc::gen::element(Recipe::none, Recipe::elasticjob, Recipe::leader_latch, Recipe::leader_selector,
                                 Recipe::naive_master, Recipe::es_zen);
    s.bugs = pick_names(registry_names(bug_switches()));
    std::erase_if(s.bugs, [&](const std::string& bug) { return !bug_applies_to(bug, s.recipe); });
    gen_cluster(s);
    if (s.recipe == Recipe::elasticjob) {
      int count = *rc::gen::inRange(0, 4);
      for (int i = 0; i < count; i++) {
        JobConfig job = gen_job();
        bool taken = std::any_of(s.jobs.begin(), s.jobs.end(), [&](const JobConfig& j) { return j.name == job.name; });
        if (!taken) s.jobs.push_back(job);
      }
    }
    if (s.recipe == Recipe::es_zen) s.elasticsearch = gen_elasticsearch();
    int faults = *rc::gen::inRange(0, 16);
    for (int i = 0; i < faults; i++) s.faults.push_back(gen_fault(s));
    std::stable_sort(s.faults.begin(), s.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
    std::vector<std::string> properties = pick_names(registry_names(harness::properties()));
    // Only what the recipe's runs can judge: the parser refuses the rest (a vacuous pass).
    std::erase_if(properties, [&](const std::string& name) { return !property_applies_to(name, s.recipe); });
    std::size_t held = *rc::gen::inRange<std::size_t>(0, properties.size() + 1);
    s.expect.hold.assign(properties.begin(), properties.begin() + static_cast<std::ptrdiff_t>(held));
    s.expect.fail.assign(properties.begin() + static_cast<std::ptrdiff_t>(held), properties.end());
    if (s.recipe != Recipe::es_zen && *rc::gen::arbitrary<bool>()) {
      s.expect.zookeeper_leader = *rc::gen::element<std::string>("none", "zk1", server_name(s.zookeeper.servers));
    }
    if (*rc::gen::arbitrary<bool>()) {
      FailureRecord failure;
      failure.property = *rc::gen::elementOf(registry_names(harness::properties()));
      for (int i = 0; i < 16; i++) failure.trace_hash += "0123456789abcdef"[*rc::gen::inRange(0, 16)];
      failure.found_by = *gen_text(false);
      s.failure = failure;
    }
    return s;
  });
}

}  // namespace harness::generators
