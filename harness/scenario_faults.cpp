#include "harness/scenario_faults.h"

#include <algorithm>
#include <array>
#include <limits>
#include <vector>

#include "harness/trigger_kinds.h"
#include "sim/assert.h"

namespace harness::scenario_yaml {

namespace {

struct Prefix {
  std::string_view text;
  NodeRole role;
};

// No prefix is a prefix of another, so the first match is the only one.
constexpr std::array<Prefix, 4> prefixes{
    {{"zk", NodeRole::server}, {"i", NodeRole::instance}, {"es", NodeRole::es_node}, {"w", NodeRole::writer}}};

// "zk12" -> (server, 12). Names are canonical: no leading zeros, no zk0.
std::optional<std::pair<NodeRole, int>> split_name(std::string_view name) {
  for (const Prefix& prefix : prefixes) {
    if (!name.starts_with(prefix.text)) continue;
    std::string_view digits = name.substr(prefix.text.size());
    if (digits.empty() || digits.size() > 6 || digits[0] == '0') return std::nullopt;
    if (!std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; })) return std::nullopt;
    return std::pair{prefix.role, std::stoi(std::string(digits))};
  }
  return std::nullopt;
}

std::string_view role_noun(NodeRole role) {
  switch (role) {
    case NodeRole::server:
      return "server";
    case NodeRole::instance:
      return "instance";
    case NodeRole::es_node:
      return "Elasticsearch node";
    case NodeRole::writer:
      return "workload client";
  }
  ELECTSIM_UNREACHABLE();
}

std::string_view role_article(NodeRole role) {
  switch (role) {
    case NodeRole::server:
    case NodeRole::writer:
      return "a";
    case NodeRole::instance:
    case NodeRole::es_node:
      return "an";
  }
  ELECTSIM_UNREACHABLE();
}

// The action keys are the fault kinds' names, in FaultKind order.
const std::vector<std::string_view>& action_keys() {
  static const std::vector<std::string_view> keys = [] {
    std::vector<std::string_view> names;
    for (int kind = 0; kind <= static_cast<int>(FaultKind::set_sharding_total_count); kind++) {
      names.push_back(fault_kind_name(static_cast<FaultKind>(kind)));
    }
    return names;
  }();
  return keys;
}

// Everything one fault needs to know about the rest of the scenario.
struct FaultContext {
  const Source& source;
  const Scenario& scenario;
  NodeCatalogue nodes;
};

// A node named as the value of `field` ("crash: zk1").
Name node_value(const FaultContext& context, const Field& field) {
  if (!field.value.IsScalar()) {
    context.source.fail(field.mark(), field.name + " takes one node name, such as {at: 10s, " + field.name + ": zk1}");
  }
  Name name = item_name(context.source, field.value, "a node name");
  context.nodes.resolve(context.source, name);
  return name;
}

// A list of node names, none of which is in `seen` (names of the same fault's other groups).
std::vector<std::string> read_group(const FaultContext& context, const YAML::Node& node, std::string_view what,
                                    std::vector<Name>& seen) {
  if (!node.IsSequence() || node.size() == 0) {
    context.source.fail(node.Mark(), std::string(what) + " must be a non-empty list of node names, such as [zk1, i1]");
  }
  std::vector<std::string> group;
  // No loop below runs longer than the catalogue: a repeat ends it, and there are no other names.
  for (const YAML::Node& item : node) {
    Name name = item_name(context.source, item, "a node name");
    context.nodes.resolve(context.source, name);
    for (const Name& earlier : seen) {
      if (earlier.text == name.text) {
        context.source.fail(name.mark, "node " + shown(name.text) + " appears twice in the " + std::string(what) +
                                           " (first at line " + std::to_string(earlier.mark.line + 1) +
                                           "); a node can be in one group only");
      }
    }
    seen.push_back(name);
    group.push_back(name.text);
  }
  return group;
}

void read_partition(const FaultContext& context, const Field& field, Fault& fault) {
  const YAML::Node& groups = field.value;
  if (!groups.IsSequence() || groups.size() < 2) {
    context.source.fail(field.mark(), "partition takes two or more groups of nodes, such as [[zk1, i1], [zk2, zk3]]");
  }
  if (groups.size() > static_cast<std::size_t>(context.nodes.size())) {
    context.source.fail(field.mark(), "partition has more groups than the scenario has nodes");
  }
  std::vector<Name> seen;
  for (const YAML::Node& group : groups) fault.groups.push_back(read_group(context, group, "partition", seen));
}

void read_bridge(const FaultContext& context, const Field& field, Fault& fault) {
  MapReader bridge(context.source, field, {"node", "sides"});
  const Field& node = bridge.require("node");
  Name bridge_node = node_value(context, node);
  const Field& sides = bridge.require("sides");
  if (!sides.value.IsSequence() || sides.value.size() != 2) {
    context.source.fail(sides.mark(), "bridge sides must be two groups of nodes, such as [[zk2, i1], [zk3, i2]]");
  }
  // The bridge node goes into `seen` first, so finding it on a side reads as "appears twice".
  std::vector<Name> seen{bridge_node};
  for (const YAML::Node& side : sides.value) fault.groups.push_back(read_group(context, side, "bridge", seen));
  fault.node = bridge_node.text;
}

void read_drop(const FaultContext& context, const Field& field, Fault& fault) {
  MapReader drop(context.source, field, {"from", "to"});
  Name from = node_value(context, drop.require("from"));
  Name to = node_value(context, drop.require("to"));
  if (from.text == to.text)
    context.source.fail(to.mark, "drop needs two different nodes, got " + shown(to.text) + " twice");
  fault.from = from.text;
  fault.to = to.text;
}

void require_elasticjob(const FaultContext& context, const Field& field) {
  if (context.scenario.recipe == Recipe::elasticjob) return;
  context.source.fail(field.key.Mark(), field.name + " is an ElasticJob operation, but the recipe is " +
                                            std::string(recipe_name(context.scenario.recipe)));
}

void read_set_sharding_total_count(const FaultContext& context, const Field& field, Fault& fault) {
  require_elasticjob(context, field);
  MapReader change(context.source, field, {"job", "value"});
  const Field& job = change.require("job");
  fault.job = nonempty_text(context.source, job);
  const auto& jobs = context.scenario.jobs;
  if (std::none_of(jobs.begin(), jobs.end(), [&](const JobConfig& j) { return j.name == fault.job; })) {
    context.source.fail(job.mark(),
                        "unknown job " + shown(fault.job) + ": set_sharding_total_count names a job under jobs");
  }
  fault.value = static_cast<int>(integer(context.source, change.require("value"), 1, sharding_total_count_max));
}

// The action of a fault: its kind and the fields that kind uses.
void read_action(const FaultContext& context, const Field& action, Fault& fault) {
  std::optional<FaultKind> kind = fault_kind_from_name(action.name);
  ELECTSIM_ASSERT(kind.has_value());
  fault.kind = *kind;
  switch (fault.kind) {
    case FaultKind::crash:
    case FaultKind::power_off:
    case FaultKind::restart:
    case FaultKind::isolate:
    case FaultKind::pause:
      fault.node = node_value(context, action).text;
      return;
    case FaultKind::disable:
    case FaultKind::enable:
    case FaultKind::shutdown: {
      if (fault.kind != FaultKind::shutdown) require_elasticjob(context, action);
      Name name = node_value(context, action);
      context.nodes.require(context.source, name, NodeRole::instance, action.name + " takes");
      fault.node = name.text;
      return;
    }
    case FaultKind::partition:
      return read_partition(context, action, fault);
    case FaultKind::bridge:
      return read_bridge(context, action, fault);
    case FaultKind::drop:
      return read_drop(context, action, fault);
    case FaultKind::heal:
      if (!action.value.IsScalar() || action.value.Scalar() != "all") {
        context.source.fail(action.mark(), "heal takes 'all' (healing everything is the only form for now)");
      }
      return;
    case FaultKind::set_sharding_total_count:
      return read_set_sharding_total_count(context, action, fault);
  }
  ELECTSIM_UNREACHABLE();
}

std::uint8_t role_mask(NodeRole role) {
  switch (role) {
    case NodeRole::server: return trigger_server;
    case NodeRole::instance: return trigger_instance;
    case NodeRole::es_node: return trigger_es_node;
    case NodeRole::writer: return trigger_writer;
  }
  ELECTSIM_UNREACHABLE();
}

// `after: {event: zab.current_epoch_written, node: zk1, nth: 1, where: {state: LEADING}}`.
Trigger read_trigger(const FaultContext& context, const Field& field) {
  const Source& source = context.source;
  MapReader after(source, field, {"event", "node", "nth", "where"});
  Trigger trigger;
  const Field& event = after.require("event");
  trigger.event = nonempty_text(source, event);
  const TriggerKind* kind = find_trigger_kind(trigger.event);
  if (kind == nullptr) {
    std::vector<std::string_view> names;
    for (const TriggerKind& known : trigger_kinds()) names.push_back(known.kind);
    std::string hint = did_you_mean(trigger.event, names);
    source.fail(event.mark(), "unknown event kind " + shown(trigger.event) + " for a trigger" +
                                  (hint.empty() ? std::string("; `electsim sites` lists the sites and events a trigger can name") : hint));
  }
  if (!trigger_kind_in_recipe(*kind, context.scenario.recipe)) {
    source.fail(event.mark(), "no node emits " + shown(trigger.event) + " with recipe " + std::string(recipe_name(context.scenario.recipe)));
  }
  Name node = node_value(context, after.require("node"));
  NodeRole role = context.nodes.resolve(source, node);
  if ((kind->roles & role_mask(role)) == 0) {
    std::string emitters;
    for (NodeRole other : {NodeRole::server, NodeRole::instance, NodeRole::es_node, NodeRole::writer}) {
      if ((kind->roles & role_mask(other)) == 0) continue;
      emitters += (emitters.empty() ? "" : " and ") + std::string(role_noun(other)) + "s";
    }
    source.fail(node.mark, shown(node.text) + " never emits " + shown(trigger.event) + ": it is " + std::string(role_article(role)) + " " +
                               std::string(role_noun(role)) + ", and only " + emitters + " do");
  }
  trigger.node = node.text;
  if (const Field* nth = after.find("nth")) {
    trigger.occurrence = static_cast<int>(integer(source, *nth, std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max()));
    if (trigger.occurrence < 1) {
      source.fail(nth->mark(), "nth counts occurrences from 1 (the first time the node emits it), got " + std::to_string(trigger.occurrence));
    }
  }
  if (const Field* where = after.find("where")) {
    std::vector<std::string_view> allowed(kind->fields.begin(), kind->fields.end());
    if (allowed.empty()) source.fail(where->mark(), shown(trigger.event) + " has no fields for 'where' to test");
    MapReader filters(source, *where, allowed);
    for (const Field& filter : filters.fields()) trigger.where[filter.name] = text(source, filter);
  }
  return trigger;
}

Fault read_fault(const FaultContext& context, const YAML::Node& item) {
  const Source& source = context.source;
  if (!item.IsMap()) source.fail(item.Mark(), "a fault must be a mapping, such as {at: 10s, crash: zk1}");
  static const std::vector<std::string_view> allowed_keys = [] {
    std::vector<std::string_view> keys{"at", "for", "after", "delay", "until"};
    keys.insert(keys.end(), action_keys().begin(), action_keys().end());
    return keys;
  }();
  MapReader map(source, item, "faults", allowed_keys);

  const Field* action = nullptr;
  for (const Field& field : map.fields()) {
    if (field.name == "at" || field.name == "for" || field.name == "after" || field.name == "delay" || field.name == "until") continue;
    if (action != nullptr) {
      source.fail(field.key.Mark(), "a fault has exactly one action, but this one has " + shown(action->name) +
                                        " and " + shown(field.name) + " (write one fault for each)");
    }
    action = &field;
  }
  if (action == nullptr) source.fail(item.Mark(), "a fault needs an action: " + one_of(action_keys()));
  const Field* at = map.find("at");
  const Field* after = map.find("after");
  if (at == nullptr && after == nullptr) {
    source.fail(item.Mark(), "a fault needs 'at', the time it happens, such as {at: 10s, " + action->name +
                                 ": ...}, or 'after', the step that triggers it, such as {after: {event: zk.state, node: zk1}, " +
                                 action->name + ": ...}");
  }

  Fault fault;
  if (at != nullptr) {
    fault.at = duration(source, *at);
    if (fault.at > context.scenario.duration) {
      source.fail(at->mark(), "fault at " + sim::format_duration(fault.at) + " is after the end of the scenario (duration " +
                                  sim::format_duration(context.scenario.duration) + ")");
    }
  }
  read_action(context, *action, fault);
  if (after != nullptr) fault.after = read_trigger(context, *after);
  for (const char* key : {"delay", "until"}) {
    const Field* field = map.find(key);
    if (field == nullptr) continue;
    if (after == nullptr) {
      source.fail(field->key.Mark(), std::string("'") + key + "' belongs to a fault with 'after' (a step-triggered fault), not to one at a fixed time");
    }
    if (std::string_view(key) == "delay") {
      fault.delay = duration(source, *field);
    } else {
      fault.until = duration(source, *field);
      if (*fault.until < fault.at) {
        source.fail(field->mark(), "until " + sim::format_duration(*fault.until) + " is before at " + sim::format_duration(fault.at) +
                                       ": the trigger could never fire");
      }
      if (*fault.until > context.scenario.duration) {
        source.fail(field->mark(), "until " + sim::format_duration(*fault.until) + " is after the end of the scenario (duration " +
                                       sim::format_duration(context.scenario.duration) + ")");
      }
    }
  }

  const Field* pause_for = map.find("for");
  if (fault.kind == FaultKind::pause) {
    if (pause_for == nullptr) {
      source.fail(action->key.Mark(),
                  "pause needs 'for', how long the process stays frozen, such as {at: 30s, pause: i2, for: 10s}");
    }
    // A pause may outlast the scenario: the node is then still frozen when the run ends.
    fault.pause_for = positive_duration(source, *pause_for);
  } else if (pause_for != nullptr) {
    source.fail(pause_for->key.Mark(), "'for' belongs to pause only, not to " + action->name);
  }
  return fault;
}

}  // namespace

NodeCatalogue::NodeCatalogue(Recipe recipe, int servers, int instances, int es_nodes, int writers)
    : recipe_(recipe),
      servers_(runs_zookeeper(recipe) ? servers : 0),
      instances_(has_instances(recipe) ? instances : 0),
      es_nodes_(recipe == Recipe::es_zen ? es_nodes : 0),
      writers_(runs_zookeeper(recipe) ? writers : 0) {
  ELECTSIM_ASSERT(servers >= 0 && instances >= 0 && es_nodes >= 0 && writers >= 0);
}

std::string NodeCatalogue::range(NodeRole role) const {
  int count = role == NodeRole::server     ? servers_
              : role == NodeRole::instance ? instances_
              : role == NodeRole::es_node  ? es_nodes_
                                           : writers_;
  std::string_view prefix = role == NodeRole::server     ? "zk"
                            : role == NodeRole::instance ? "i"
                            : role == NodeRole::es_node  ? "es"
                                                         : "w";
  if (count == 0) return "none";
  std::string first = std::string(prefix) + "1";
  if (count == 1) return first;
  return first + ".." + std::string(prefix) + std::to_string(count);
}

std::string NodeCatalogue::none_because(NodeRole role) const {
  const std::string recipe(recipe_name(recipe_));
  switch (role) {
    case NodeRole::server:
      return "recipe " + recipe + " runs no ZooKeeper servers";
    case NodeRole::instance:
      if (!has_instances(recipe_)) return "recipe " + recipe + " has no instances";
      return "instances.count is 0, so there are no instances";
    case NodeRole::es_node:
      return "es1..esN exist only with recipe es-zen";
    case NodeRole::writer:
      if (recipe_ == Recipe::es_zen) return "recipe " + recipe + " has no ZooKeeper clients";
      return "clients.writers is 0, so there are no workload clients";
  }
  ELECTSIM_UNREACHABLE();
}

NodeRole NodeCatalogue::resolve(const Source& source, const Name& name) const {
  auto split = split_name(name.text);
  std::string message = "unknown node " + shown(name.text) + ": ";
  if (!split) {
    std::string listed;
    for (NodeRole role : {NodeRole::server, NodeRole::instance, NodeRole::es_node, NodeRole::writer}) {
      std::string names = range(role);
      if (names == "none") continue;
      listed += (listed.empty() ? "" : ", ") + names;
    }
    source.fail(name.mark, message + "the nodes are " + listed);
  }
  auto [role, number] = *split;
  const int count = role == NodeRole::server     ? servers_
                    : role == NodeRole::instance ? instances_
                    : role == NodeRole::es_node  ? es_nodes_
                                                 : writers_;
  if (number <= count) return role;
  if (count == 0) source.fail(name.mark, message + none_because(role));
  std::string_view key = role == NodeRole::server     ? "zookeeper.servers"
                         : role == NodeRole::instance ? "instances.count"
                         : role == NodeRole::es_node  ? "elasticsearch.nodes"
                                                      : "clients.writers";
  std::string_view they = role == NodeRole::server     ? "servers are "
                          : role == NodeRole::instance ? "instances are "
                          : role == NodeRole::es_node  ? "nodes are "
                                                       : "they are ";
  source.fail(name.mark, message + std::string(key) + " is " + std::to_string(count) + ", so " + std::string(they) + range(role));
}

void NodeCatalogue::require(const Source& source, const Name& name, NodeRole role, std::string_view context) const {
  NodeRole actual = resolve(source, name);
  if (actual == role) return;
  if (range(role) == "none") {
    source.fail(name.mark, std::string(context) + " " + std::string(role_article(role)) + " " + std::string(role_noun(role)) +
                               ", but " + none_because(role) + ", and " + shown(name.text) + " is " + std::string(role_article(actual)) + " " +
                               std::string(role_noun(actual)));
  }
  source.fail(name.mark, std::string(context) + " " + std::string(role_article(role)) + " " +
                             std::string(role_noun(role)) + " (" + range(role) + "), not the " +
                             std::string(role_noun(actual)) + " " + shown(name.text));
}

NodeCatalogue node_catalogue(const Scenario& scenario) {
  int es_nodes = scenario.elasticsearch ? scenario.elasticsearch->nodes : 0;
  return NodeCatalogue(scenario.recipe, scenario.zookeeper.servers, scenario.instances.count, es_nodes, scenario.clients.writers);
}

void read_faults(const Source& source, const Field& field, Scenario& scenario) {
  YAML::Node items = sequence(source, field, faults_max);
  FaultContext context{source, scenario, node_catalogue(scenario)};
  std::vector<Fault> faults;
  faults.reserve(items.size());
  for (const YAML::Node& item : items) faults.push_back(read_fault(context, item));
  // "Applied in time order": the file may list them in any order; equal times keep the file's order,
  // so a crash and a restart written for the same instant happen in the order written.
  std::stable_sort(faults.begin(), faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  scenario.faults = std::move(faults);
}

}  // namespace harness::scenario_yaml
