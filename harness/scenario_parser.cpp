// The scenario file's top level and its sections. Faults and node names are in scenario_faults.cpp,
// the strict YAML reading in scenario_yaml.cpp.
#include "harness/scenario_parser.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <yaml-cpp/eventhandler.h>

#include "harness/registry.h"
#include "model/elasticjob/strategies/JobInstance.h"
#include "harness/scenario_faults.h"
#include "harness/scenario_yaml.h"
#include "sim/assert.h"

namespace harness {

namespace {

std::string error_text(const std::string& file, int line, int column, const std::string& message) {
  if (line == 0) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

}  // namespace

ScenarioError::ScenarioError(std::string file, int line, int column, std::string message)
    : std::runtime_error(error_text(file, line, column, message)),
      file_(std::move(file)),
      line_(line),
      column_(column),
      message_(std::move(message)) {}

namespace {

using namespace scenario_yaml;

std::vector<std::string_view> names_of(const std::vector<Entry>& entries) {
  std::vector<std::string_view> names;
  for (const Entry& entry : entries) names.push_back(entry.name);
  return names;
}

// A name from a registry list, else "unknown <noun> 'x'" with a suggestion or `listed_by`.
void require_known(const Source& source, const Name& name, const std::vector<Entry>& entries, std::string_view noun,
                   std::string_view listed_by) {
  std::vector<std::string_view> names = names_of(entries);
  if (std::find(names.begin(), names.end(), name.text) != names.end()) return;
  std::string hint = did_you_mean(name.text, names);
  if (hint.empty()) hint = " (" + std::string(listed_by) + " lists them)";
  source.fail(name.mark, "unknown " + std::string(noun) + " " + shown(name.text) + hint);
}

// Instance ids and job names become znode path components (/{job}/instances/{id}).
std::string path_component(const Source& source, const Field& field) {
  std::string value = nonempty_text(source, field);
  if (value.find('/') != std::string::npos) {
    source.fail(field.mark(), field.path + " must not contain '/': it becomes part of a znode path");
  }
  // ZooKeeper's PathUtils.validatePath refuses these too ("relative paths not allowed", "invalid
  // character"): accepted here, every instance would fail to start and a run would pass vacuously.
  if (value == "." || value == "..") {
    source.fail(field.mark(), field.path + " must not be " + shown(value) + ": ZooKeeper refuses relative znode paths");
  }
  for (char c : value) {
    auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      source.fail(field.mark(), field.path + " must not contain control characters (NUL included): ZooKeeper refuses them in a znode path");
    }
  }
  return value;
}

StartMode start_mode(const Source& source, const Field& field) {
  std::string value = text(source, field);
  if (auto mode = start_mode_from_name(value)) return *mode;
  source.fail(field.mark(),
              "unknown start mode " + shown(value) + " for " + field.path + ": expected together or staggered");
}

// The sections whose keys are node names wait until every node count is known.
struct NamedMaps {
  std::optional<Field> initial_zxid;
  std::optional<Field> initial_epoch;
  std::optional<Field> ids;
};

void read_zookeeper(const Source& source, const Field& field, ZooKeeperConfig& config, NamedMaps& later) {
  MapReader map(source, field,
                {"servers", "tick_time", "init_limit", "sync_limit", "start", "start_interval", "initial_zxid",
                 "initial_epoch", "min_session_timeout", "max_session_timeout", "version", "thread_delay_max"});
  if (auto f = map.find("servers")) config.servers = static_cast<int>(integer(source, *f, 1, servers_max));
  if (auto f = map.find("tick_time")) config.tick_time = setting_duration(source, *f);
  if (auto f = map.find("init_limit")) config.init_limit = static_cast<int>(integer(source, *f, 1, limit_ticks_max));
  if (auto f = map.find("sync_limit")) config.sync_limit = static_cast<int>(integer(source, *f, 1, limit_ticks_max));
  if (auto f = map.find("start")) config.start = start_mode(source, *f);
  if (auto f = map.find("start_interval")) config.start_interval = duration(source, *f);
  if (auto f = map.find("initial_zxid")) later.initial_zxid = *f;
  if (auto f = map.find("initial_epoch")) later.initial_epoch = *f;
  if (auto f = map.find("min_session_timeout")) config.min_session_timeout = setting_duration(source, *f);
  if (auto f = map.find("max_session_timeout")) config.max_session_timeout = setting_duration(source, *f);
  if (auto f = map.find("version")) {
    config.version = text(source, *f);
    if (!is_zookeeper_version(config.version)) {
      source.fail(f->mark(), "unknown ZooKeeper version " + shown(config.version) + ": the model runs " + one_of(zookeeper_versions()));
    }
  }
  if (auto f = map.find("thread_delay_max")) config.thread_delay_max = duration(source, *f);
  if (config.min_session_timeout && config.max_session_timeout &&
      *config.max_session_timeout < *config.min_session_timeout) {
    source.fail(map.find("max_session_timeout")->mark(), "zookeeper.max_session_timeout (" +
                                                             sim::format_duration(*config.max_session_timeout) +
                                                             ") is shorter than zookeeper.min_session_timeout (" +
                                                             sim::format_duration(*config.min_session_timeout) + ")");
  }
}

// `latency: 2ms` (fixed) or `latency: {min: 1ms, max: 5ms, distribution: uniform}`.
void read_latency(const Source& source, const Field& field, NetworkConfig& config) {
  if (field.value.IsScalar()) {
    config.latency_min = config.latency_max = positive_duration(source, field);
    return;
  }
  MapReader map(source, field, {"min", "max", "distribution"});
  if (auto f = map.find("min")) config.latency_min = positive_duration(source, *f);
  if (auto f = map.find("max")) config.latency_max = positive_duration(source, *f);
  if (auto f = map.find("distribution")) {
    std::string name = text(source, *f);
    auto distribution = distribution_from_name(name);
    if (!distribution) {
      source.fail(f->mark(),
                  "unknown distribution " + shown(name) + " for " + f->path + ": only uniform is supported for now");
    }
    config.distribution = *distribution;
  }
  if (config.latency_max < config.latency_min) {
    const Field* at = map.find("max") ? map.find("max") : map.find("min");
    source.fail(at->mark(), "network.latency: max (" + sim::format_duration(config.latency_max) +
                                ") is less than min (" + sim::format_duration(config.latency_min) + ")");
  }
}

void read_network(const Source& source, const Field& field, NetworkConfig& config) {
  MapReader map(source, field, {"latency"});
  if (auto f = map.find("latency")) read_latency(source, *f, config);
}

void read_clients(const Source& source, const Field& field, ClientsConfig& config) {
  MapReader map(source, field, {"session_timeout", "connect", "writers", "write_interval", "ephemeral_writes", "writes", "reads"});
  if (auto f = map.find("session_timeout")) config.session_timeout = setting_duration(source, *f);
  if (auto f = map.find("writers")) config.writers = static_cast<int>(integer(source, *f, 0, writers_max));
  if (auto f = map.find("write_interval")) config.write_interval = setting_duration(source, *f);
  if (auto f = map.find("ephemeral_writes")) config.ephemeral_writes = boolean(source, *f);
  if (auto f = map.find("writes")) config.writes = static_cast<int>(integer(source, *f, 0, writes_max));
  if (auto f = map.find("reads")) config.reads = boolean(source, *f);
  if (auto f = map.find("connect")) {
    config.connect = text(source, *f);
    if (config.connect != "all") {
      source.fail(f->mark(), "unknown connect mode " + shown(config.connect) +
                                 " for clients.connect: only all (every client gets the whole server list) is "
                                 "supported for now");
    }
  }
}

void read_instances(const Source& source, const Field& field, InstancesConfig& config, NamedMaps& later) {
  MapReader map(source, field, {"count", "ids", "start", "start_interval"});
  if (auto f = map.find("count")) config.count = static_cast<int>(integer(source, *f, 0, instances_max));
  if (auto f = map.find("ids")) later.ids = *f;
  if (auto f = map.find("start")) config.start = start_mode(source, *f);
  if (auto f = map.find("start_interval")) config.start_interval = duration(source, *f);
}

// A mapping from node names of one role to values: `initial_zxid: {zk2: 0x100000005}`. MapReader does
// not fit: the allowed keys depend on the counts, and an unknown one deserves NodeCatalogue's message.
template <typename ReadValue>
auto read_by_node(const Source& source, const Field& field, const NodeCatalogue& nodes, NodeRole role,
                  ReadValue read_value) {
  std::map<std::string, decltype(read_value(field))> values;
  if (field.value.IsNull()) return values;
  if (!field.value.IsMap()) {
    source.fail(field.mark(), field.path + " must be a mapping from node names to values, got a " +
                                  (field.value.IsSequence() ? "list" : "single value"));
  }
  // Ends at the first unknown or repeated name, so it runs at most once per node.
  for (const auto& pair : field.value) {
    Name name = item_name(source, pair.first, "a node name");
    nodes.require(source, name, role, field.path + " takes");
    if (values.contains(name.text)) source.fail(name.mark, "duplicate key " + shown(name.text) + " in " + field.path);
    Field entry{name.text, field.path + "." + name.text, pair.first, pair.second};
    values.emplace(name.text, read_value(entry));
  }
  return values;
}

void read_named_maps(const Source& source, const NamedMaps& later, Scenario& scenario) {
  NodeCatalogue nodes = node_catalogue(scenario);
  if (later.initial_zxid) {
    scenario.zookeeper.initial_zxid =
        read_by_node(source, *later.initial_zxid, nodes, NodeRole::server,
                     [&](const Field& entry) { return integer(source, entry, 0, INT64_MAX); });
  }
  if (later.initial_epoch) {
    scenario.zookeeper.initial_epoch =
        read_by_node(source, *later.initial_epoch, nodes, NodeRole::server, [&](const Field& entry) {
          std::int64_t epoch = integer(source, entry, 0, INT32_MAX);
          auto zxid = scenario.zookeeper.initial_zxid.find(entry.name);
          if (zxid == scenario.zookeeper.initial_zxid.end()) {
            source.fail(entry.mark(), "zookeeper.initial_epoch." + entry.name + " needs zookeeper.initial_zxid." + entry.name);
          }
          if (epoch < (zxid->second >> 32)) {
            source.fail(entry.mark(), "zookeeper.initial_epoch." + entry.name + " (" + std::to_string(epoch) +
                                          ") is older than the epoch of its initial zxid (" + std::to_string(zxid->second >> 32) + ")");
          }
          return epoch;
        });
  }
  if (!later.ids) return;
  scenario.instances.ids = read_by_node(source, *later.ids, nodes, NodeRole::instance, [&](const Field& entry) {
    std::string id = path_component(source, entry);
    // ElasticJob's JobInstance: "IP@-@PID"; getServerIp and the servers/{ip} node read the ip back.
    if (scenario.recipe == Recipe::elasticjob && !elasticjob::isWellFormedJobInstanceId(id)) {
      source.fail(entry.mark(), entry.path + " " + shown(id) +
                                    " is not an ElasticJob instance id: it is IP@-@PID (JobInstance), such as 10.0.0.1@-@1");
    }
    return id;
  });
  // Two instances with one id would share one /instances/{id} node; refuse it here rather than let
  // the run show a confusing takeover. Explicit ids may also collide with another's default id.
  std::map<std::string, int> numbers_by_id;
  for (int number = 1; number <= scenario.instances.count; number++) {
    auto [earlier, inserted] = numbers_by_id.emplace(instance_id(scenario, number), number);
    if (inserted) continue;
    std::string name = instance_name(number);
    bool this_explicit = scenario.instances.ids.contains(name);
    std::string at = this_explicit ? name : instance_name(earlier->second);
    YAML::Node value = later.ids->value[at];
    source.fail(value.Mark(), "instance id " + shown(earlier->first) + " is used by both " +
                                  instance_name(earlier->second) + " and " + name + "; instance ids must be unique");
  }
}

JobConfig read_job(const Source& source, const YAML::Node& item) {
  if (!item.IsMap()) source.fail(item.Mark(), "a job must be a mapping with at least name and sharding_total_count");
  MapReader map(source, item, "jobs",
                {"name", "sharding_total_count", "strategy", "fire_interval", "execution_time", "monitor_execution"});
  JobConfig job;
  job.name = path_component(source, map.require("name"));
  job.sharding_total_count =
      static_cast<int>(integer(source, map.require("sharding_total_count"), 1, sharding_total_count_max));
  if (auto f = map.find("strategy")) {
    job.strategy = text(source, *f);
    require_known(source, Name{job.strategy, f->mark()}, strategy_names(), "strategy", "electsim strategies");
  }
  if (auto f = map.find("fire_interval")) job.fire_interval = setting_duration(source, *f);
  if (auto f = map.find("execution_time")) {
    if (f->value.IsScalar()) {
      job.execution_time_min = job.execution_time_max = duration(source, *f);
    } else {
      MapReader range(source, *f, {"min", "max"});
      job.execution_time_min = duration(source, range.require("min"));
      job.execution_time_max = duration(source, range.require("max"));
      if (job.execution_time_max < job.execution_time_min) {
        source.fail(range.find("max")->mark(),
                    "jobs.execution_time: max (" + sim::format_duration(job.execution_time_max) +
                        ") is less than min (" + sim::format_duration(job.execution_time_min) + ")");
      }
    }
  }
  if (auto f = map.find("monitor_execution")) job.monitor_execution = boolean(source, *f);
  return job;
}

void read_jobs(const Source& source, const Field& field, Scenario& scenario) {
  YAML::Node items = sequence(source, field, jobs_max);
  if (items.size() > 0 && scenario.recipe != Recipe::elasticjob) {
    source.fail(field.key.Mark(),
                "jobs are for recipe elasticjob only, but the recipe is " + std::string(recipe_name(scenario.recipe)));
  }
  std::vector<YAML::Mark> marks;
  for (const YAML::Node& item : items) {
    JobConfig job = read_job(source, item);
    for (std::size_t i = 0; i < scenario.jobs.size(); i++) {
      if (scenario.jobs[i].name != job.name) continue;
      source.fail(item["name"].Mark(), "two jobs are named " + shown(job.name) + " (the first at line " +
                                           std::to_string(marks[i].line + 1) + "); job names must be unique");
    }
    marks.push_back(item.Mark());
    scenario.jobs.push_back(std::move(job));
  }
}

void read_cluster_tasks(const Source& source, const Field& field, ClusterTasksConfig& config) {
  MapReader map(source, field, {"rate", "priorities", "executor"});
  if (auto f = map.find("rate")) {
    config.rate = number(source, *f, 0, cluster_task_rate_max);
    // A positive rate below one task in the longest run draws an interval no clock can hold.
    if (config.rate > 0 && config.rate < cluster_task_rate_min) {
      source.fail(f->mark(), f->path + " must be 0 (no tasks) or at least 1/86400, one task a day");
    }
  }
  if (auto f = map.find("priorities")) {
    std::vector<Name> names = unique_names(source, *f, es_priorities_count);
    if (names.empty()) source.fail(f->mark(), f->path + " must name at least one priority");
    config.priorities.clear();
    for (const Name& name : names) {
      auto priority = es_priority_from_name(name.text);
      if (!priority) {
        source.fail(name.mark, "unknown priority " + shown(name.text) +
                                   ": expected IMMEDIATE, URGENT, HIGH, NORMAL, LOW or LANGUID");
      }
      config.priorities.push_back(*priority);
    }
  }
  if (auto f = map.find("executor")) {
    std::string name = text(source, *f);
    auto executor = es_task_executor_from_name(name);
    if (!executor) source.fail(f->mark(), "unknown executor " + shown(name) + " for " + f->path + ": expected per-task or shared");
    config.executor = *executor;
  }
}

ElasticsearchConfig read_elasticsearch(const Source& source, const Field& field) {
  MapReader map(source, field,
                {"nodes", "minimum_master_nodes", "ping_timeout", "commit_timeout", "publish_timeout",
                 "fd_ping_interval", "fd_ping_timeout", "fd_ping_retries", "cluster_tasks"});
  ElasticsearchConfig config;
  if (auto f = map.find("nodes")) config.nodes = static_cast<int>(integer(source, *f, 1, es_nodes_max));
  // Below a quorum is allowed: that is the misconfiguration behind many split brains. Above the node
  // count no master could ever be elected, which is a mistake in the file rather than a scenario.
  if (auto f = map.find("minimum_master_nodes")) {
    config.minimum_master_nodes = static_cast<int>(integer(source, *f, 1, config.nodes));
  } else if (config.minimum_master_nodes > config.nodes) {
    source.fail(map.find("nodes")->mark(), "elasticsearch.minimum_master_nodes is " +
                                               std::to_string(config.minimum_master_nodes) +
                                               " (the default), more than elasticsearch.nodes; set it too");
  }
  if (auto f = map.find("ping_timeout")) config.ping_timeout = setting_duration(source, *f);
  if (auto f = map.find("commit_timeout")) config.commit_timeout = setting_duration(source, *f);
  if (auto f = map.find("publish_timeout")) config.publish_timeout = setting_duration(source, *f);
  // ZenDiscovery's constructor: "discovery.zen.commit_timeout [..] cannot be higher than
  // [discovery.zen.publish_timeout]" (an IllegalArgumentException: the node does not start).
  if (config.commit_timeout > config.publish_timeout) {
    const Field* at = map.find("commit_timeout") ? map.find("commit_timeout") : map.find("publish_timeout");
    source.fail(at->mark(), "elasticsearch.commit_timeout (" + sim::format_duration(config.commit_timeout) +
                                ") cannot be higher than elasticsearch.publish_timeout (" + sim::format_duration(config.publish_timeout) +
                                "), as Elasticsearch's ZenDiscovery refuses");
  }
  if (auto f = map.find("fd_ping_interval")) config.fd_ping_interval = setting_duration(source, *f);
  if (auto f = map.find("fd_ping_timeout")) config.fd_ping_timeout = setting_duration(source, *f);
  if (auto f = map.find("fd_ping_retries")) {
    config.fd_ping_retries = static_cast<int>(integer(source, *f, 1, fd_ping_retries_max));
  }
  if (auto f = map.find("cluster_tasks")) read_cluster_tasks(source, *f, config.cluster_tasks);
  return config;
}

void read_expect(const Source& source, const Field& field, const NodeCatalogue& nodes, Recipe recipe, Expect& expect) {
  MapReader map(source, field, {"hold", "fail", "zookeeper_leader"});
  if (auto f = map.find("zookeeper_leader")) {
    if (recipe == Recipe::es_zen) {
      source.fail(f->mark(), "expect.zookeeper_leader needs ZooKeeper servers, and recipe es-zen runs none");
    }
    expect.zookeeper_leader = nonempty_text(source, *f);
    const std::string& leader = *expect.zookeeper_leader;
    if (leader != "none") nodes.require(source, Name{leader, f->mark()}, NodeRole::server, "expect.zookeeper_leader takes none or");
  }
  std::vector<Name> hold;
  std::vector<Name> fail;
  if (auto f = map.find("hold")) hold = unique_names(source, *f, properties().size());
  if (auto f = map.find("fail")) fail = unique_names(source, *f, properties().size());
  for (const Name& name : hold) require_known(source, name, properties(), "property", "electsim properties");
  for (const Name& name : fail) {
    require_known(source, name, properties(), "property", "electsim properties");
    auto same = [&](const Name& held) { return held.text == name.text; };
    if (std::any_of(hold.begin(), hold.end(), same)) {
      source.fail(name.mark, "property " + shown(name.text) + " is in both expect.hold and expect.fail");
    }
  }
  // A property the recipe cannot judge would pass unjudged: a vacuous "expectations met".
  for (const std::vector<Name>* names : {&hold, &fail}) {
    for (const Name& name : *names) {
      if (!property_applies_to(name.text, recipe)) {
        source.fail(name.mark, "property " + shown(name.text) + " is judged in runs of " + property_recipes(name.text) + ", not recipe " +
                                   std::string(recipe_name(recipe)));
      }
    }
  }
  for (Name& name : hold) expect.hold.push_back(std::move(name.text));
  for (Name& name : fail) expect.fail.push_back(std::move(name.text));
}

// failure.limits: the same ranges as the command line's --max-* options (cli/limits.cpp).
std::map<std::string, std::uint64_t> read_failure_limits(const Source& source, const Field& field) {
  static constexpr std::array<std::pair<std::string_view, std::int64_t>, 4> ranges{{
      {"max_events", 1'000'000'000'000},
      {"max_nodes", 1'000'000},
      {"max_pending_events", 1'000'000'000},
      {"max_memory_bytes", std::int64_t{1} << 40},
  }};
  MapReader map(source, field, {"max_events", "max_nodes", "max_pending_events", "max_memory_bytes"});
  std::map<std::string, std::uint64_t> limits;
  for (const auto& [name, max] : ranges) {
    if (auto f = map.find(std::string(name))) limits[std::string(name)] = static_cast<std::uint64_t>(integer(source, *f, 1, max));
  }
  return limits;
}

FailureRecord read_failure(const Source& source, const Field& field) {
  MapReader map(source, field, {"property", "trace_hash", "found_by", "limits"});
  FailureRecord failure;
  const Field& property = map.require("property");
  failure.property = nonempty_text(source, property);
  require_known(source, Name{failure.property, property.mark()}, properties(), "property", "electsim properties");
  const Field& trace_hash = map.require("trace_hash");
  failure.trace_hash = text(source, trace_hash);
  bool hex = std::all_of(failure.trace_hash.begin(), failure.trace_hash.end(),
                         [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  if (failure.trace_hash.size() != 16 || !hex) {
    source.fail(trace_hash.mark(), "failure.trace_hash must be 16 hex digits, got " + shown(failure.trace_hash));
  }
  // electsim prints hashes in lowercase; a hand-edited uppercase one means the same hash.
  for (char& c : failure.trace_hash) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto f = map.find("found_by")) failure.found_by = text(source, *f);
  if (auto f = map.find("limits")) failure.limits = read_failure_limits(source, *f);
  return failure;
}

Recipe read_recipe(const Source& source, const Field& field) {
  std::string name = text(source, field);
  if (auto recipe = recipe_from_name(name)) return *recipe;
  std::vector<std::string_view> names = names_of(recipes());
  std::string hint = did_you_mean(name, names);
  if (hint.empty()) hint = ": expected " + one_of(names);
  source.fail(field.mark(), "unknown recipe " + shown(name) + hint);
}

Scenario read_scenario(const Source& source, const YAML::Node& document) {
  MapReader top(source, document, "",
                {"name", "description", "seed", "duration", "recipe", "bugs", "zookeeper", "network", "clients",
                 "instances", "jobs", "elasticsearch", "faults", "expect", "failure"});
  Scenario scenario;
  scenario.name = nonempty_text(source, top.require("name"));
  if (auto f = top.find("description")) scenario.description = text(source, *f);
  if (auto f = top.find("seed")) scenario.seed = unsigned_integer(source, *f);
  scenario.duration = positive_duration(source, top.require("duration"));
  if (auto f = top.find("recipe")) scenario.recipe = read_recipe(source, *f);
  if (auto f = top.find("bugs")) {
    for (Name& name : unique_names(source, *f, bug_switches().size())) {
      require_known(source, name, bug_switches(), "bug switch", "electsim bugs");
      if (!bug_applies_to(name.text, scenario.recipe)) {
        source.fail(name.mark, "bug switch " + shown(name.text) + " is for " + bug_recipes(name.text) + ", not recipe " +
                                   std::string(recipe_name(scenario.recipe)) + ", which would run without it");
      }
      scenario.bugs.push_back(std::move(name.text));
    }
  }

  // Sections in dependency order, whatever their order in the file: node counts first, then what
  // names nodes (initial_zxid, ids, faults) or jobs (faults).
  NamedMaps later;
  if (auto f = top.find("zookeeper")) read_zookeeper(source, *f, scenario.zookeeper, later);
  if (auto f = top.find("network")) read_network(source, *f, scenario.network);
  if (auto f = top.find("clients")) read_clients(source, *f, scenario.clients);
  if (auto f = top.find("instances")) read_instances(source, *f, scenario.instances, later);
  if (auto f = top.find("jobs")) read_jobs(source, *f, scenario);
  const Field* elasticsearch = top.find("elasticsearch");
  if (elasticsearch != nullptr && scenario.recipe != Recipe::es_zen) {
    source.fail(elasticsearch->key.Mark(), "elasticsearch is for recipe es-zen only, but the recipe is " +
                                               std::string(recipe_name(scenario.recipe)));
  }
  // Engaged exactly for es-zen, defaults included, so the runner never has to guess them.
  if (scenario.recipe == Recipe::es_zen) {
    scenario.elasticsearch = elasticsearch ? read_elasticsearch(source, *elasticsearch) : ElasticsearchConfig{};
  }
  read_named_maps(source, later, scenario);
  if (auto f = top.find("faults")) read_faults(source, *f, scenario);
  if (auto f = top.find("expect")) read_expect(source, *f, node_catalogue(scenario), scenario.recipe, scenario.expect);
  if (auto f = top.find("failure")) scenario.failure = read_failure(source, *f);
  return scenario;
}

// "1048576 bytes (1 MiB)", "300 bytes": a size limit in messages.
std::string size_text(std::size_t bytes) {
  std::string text = std::to_string(bytes) + " bytes";
  if (bytes >= 1024 && bytes % (1024 * 1024) == 0) return text + " (" + std::to_string(bytes >> 20) + " MiB)";
  if (bytes >= 1024 && bytes % 1024 == 0) return text + " (" + std::to_string(bytes >> 10) + " KiB)";
  return text;
}

// The length of the well-formed UTF-8 sequence at the start of `rest` (Unicode's table 3-7: no
// overlong forms, no surrogates, nothing above U+10FFFF), or 0 if there is none.
std::size_t utf8_sequence_length(std::string_view rest) {
  auto byte = [&](std::size_t i) { return i < rest.size() ? static_cast<unsigned char>(rest[i]) : 0u; };
  auto continuation = [&](std::size_t i, unsigned min = 0x80, unsigned max = 0xbf) { return byte(i) >= min && byte(i) <= max; };
  unsigned lead = byte(0);
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return continuation(1) ? 2 : 0;
  if (lead == 0xe0) return continuation(1, 0xa0) && continuation(2) ? 3 : 0;
  if (lead == 0xed) return continuation(1, 0x80, 0x9f) && continuation(2) ? 3 : 0;
  if (lead >= 0xe1 && lead <= 0xef) return continuation(1) && continuation(2) ? 3 : 0;
  if (lead == 0xf0) return continuation(1, 0x90) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead == 0xf4) return continuation(1, 0x80, 0x8f) && continuation(2) && continuation(3) ? 4 : 0;
  if (lead >= 0xf1 && lead <= 0xf3) return continuation(1) && continuation(2) && continuation(3) ? 4 : 0;
  return 0;
}

// A scenario file is UTF-8 text of YAML's printable characters. yaml-cpp passes other bytes through
// into strings but its emitter turns them into U+FFFD, and it keeps a control character such as NUL
// that its emitter then writes in a form it does not read back, so such a scenario would not survive
// being written as a failure file (both found by fuzz_scenario_parser). Refused here with the
// position of the first bad byte. YAML 1.2 c-printable: TAB, LF, CR and U+0020 on; of the ASCII
// range, DEL and the other C0 controls are out.
void require_text(std::string_view yaml, const std::string& file) {
  int line = 1;
  int column = 1;
  for (std::size_t at = 0; at < yaml.size();) {
    std::size_t length = utf8_sequence_length(yaml.substr(at));
    auto byte = static_cast<unsigned char>(yaml[at]);
    char shown[8];
    std::snprintf(shown, sizeof shown, "0x%02X", static_cast<unsigned>(byte));
    if (length == 0) {
      throw ScenarioError(file, line, column, std::string("the file is not UTF-8 text: byte ") + shown + " does not start a valid UTF-8 character");
    }
    if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f) {
      throw ScenarioError(file, line, column, std::string("the file has the control character ") + shown + ", which YAML does not allow");
    }
    if (yaml[at] == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
    at += length;
  }
}

// Sees where each YAML document starts, and nothing else.
class DocumentStarts : public YAML::EventHandler {
 public:
  std::optional<YAML::Mark> last_start;
  void OnDocumentStart(const YAML::Mark& mark) override { last_start = mark; }
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
  void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
  void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t, const std::string&) override {}
  void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnSequenceEnd() override {}
  void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t, YAML::EmitterStyle::value) override {}
  void OnMapEnd() override {}
};

// yaml-cpp 0.7 loops forever in LoadAll, allocating as it goes, on a document that starts with a
// token it cannot start a node with (a stray `,` at the top level): it makes an empty document
// without consuming the token, again and again (found by fuzz_scenario_parser: 6 GB in 10 s). Each
// real document consumes at least one token, so a document that starts where the previous one did
// is that loop, refused here before LoadAll runs. Syntax errors are left for LoadAll to report.
void refuse_stuck_documents(std::string_view yaml, const std::string& file) {
  std::istringstream stream{std::string(yaml)};
  YAML::Parser parser(stream);
  DocumentStarts starts;
  std::optional<int> previous;
  try {
    while (parser.HandleNextDocument(starts)) {
      if (!starts.last_start) return;
      const YAML::Mark& mark = *starts.last_start;
      if (previous && mark.pos <= *previous) {
        std::string shown = mark.pos >= 0 && static_cast<std::size_t>(mark.pos) < yaml.size() ? std::string(1, yaml[static_cast<std::size_t>(mark.pos)]) : "?";
        throw ScenarioError(file, mark.line + 1, mark.column + 1, "YAML syntax error: unexpected '" + shown + "' where a document should start");
      }
      previous = mark.pos;
      starts.last_start.reset();
    }
  } catch (const YAML::Exception&) {
    return;  // LoadAll reports it, with its position
  }
}

// Where the text ends, for a yaml-cpp error that carries no position.
std::pair<int, int> end_position(std::string_view yaml) {
  int line = 1;
  int column = 1;
  for (char c : yaml) {
    if (c == '\n') {
      line++;
      column = 1;
    } else {
      column++;
    }
  }
  return {line, column};
}

}  // namespace

Scenario parse_scenario_text(std::string_view yaml, const std::string& file_name_for_messages, std::size_t size_max) {
  const std::string& file = file_name_for_messages;
  if (yaml.size() > size_max) {
    throw ScenarioError(file, 0, 0,
                        "the file is " + std::to_string(yaml.size()) + " bytes, larger than the limit of " + size_text(size_max) +
                            " for a scenario file");
  }
  require_text(yaml, file);
  refuse_stuck_documents(yaml, file);
  std::vector<YAML::Node> documents;
  try {
    documents = YAML::LoadAll(std::string(yaml));
  } catch (const YAML::Exception& error) {
    // ParserException (bad syntax, nesting too deep, an undefined alias) and anything else yaml-cpp
    // throws while reading: all are errors in the file, never in electsim.
    auto [line, column] = end_position(yaml);
    if (!error.mark.is_null()) {
      line = error.mark.line + 1;
      column = error.mark.column + 1;
    }
    throw ScenarioError(file, line, column, "YAML syntax error: " + error.msg);
  }
  if (documents.empty() || documents[0].IsNull()) {
    throw ScenarioError(file, 0, 0, "the file is empty; a scenario needs at least name and duration");
  }
  Source source(file);
  for (std::size_t i = 1; i < documents.size(); i++) {
    // A trailing `---` with nothing after it is harmless; a second scenario is not.
    if (!documents[i].IsNull())
      source.fail(documents[i].Mark(), "a scenario file holds one YAML document, but a second one starts here");
  }
  return read_scenario(source, documents[0]);
}

Scenario parse_scenario_file(const std::string& path, std::size_t size_max) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw ScenarioError(path, 0, 0, "is a directory, not a scenario file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError(path, 0, 0, std::string("cannot open: ") + std::strerror(errno));
  // Read at most one byte past the limit, not the whole file: the file may be a pipe or huge. In
  // chunks, so that a generous limit costs memory only for a file that is really that large.
  std::string text;
  std::array<char, 65536> chunk;
  while (in && text.size() <= size_max) {
    in.read(chunk.data(), static_cast<std::streamsize>(std::min(chunk.size(), size_max + 1 - text.size())));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  if (in.bad()) throw ScenarioError(path, 0, 0, std::string("cannot read: ") + std::strerror(errno));
  if (text.size() > size_max) {
    throw ScenarioError(path, 0, 0, "the file is larger than the limit of " + size_text(size_max) + " for a scenario file");
  }
  return parse_scenario_text(text, path, size_max);
}

}  // namespace harness
