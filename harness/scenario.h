// The Scenario data model: what a scenario file says, after parsing and validation.
//
// A Scenario is plain data. parse_scenario_text (scenario_parser.h) is the only way in from a file
// and checks every invariant listed below; write_scenario (scenario_writer.h) is the way out, and
// parse(write(s)) == s for every valid s. Model code never sees a Scenario: the runner turns it into
// platform, deployment and fault schedule (STYLE.md, "A scenario is platform + deployment + ...").
//
// Invariants of a parsed Scenario (the parser enforces them; docs/scenario-format.md lists them):
// - name is not empty; 0 < duration <= duration_max; every other duration is <= duration_max;
// - node names in faults exist: zk1..zkN (N = zookeeper.servers), i1..iN (instances.count), es1..esN
//   (elasticsearch.nodes, recipe es-zen only);
// - jobs is empty unless recipe is elasticjob; elasticsearch is engaged exactly when recipe is es-zen;
// - faults are sorted by `at` (stable: equal times keep the file's order), each at <= duration;
// - bugs, expect.hold and expect.fail name known entries of registry.h, without repeats.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/time.h"

namespace harness {

using namespace std::chrono_literals;

// Limits. Each is a reliability limit (a typo such as `count: 30000` fails fast instead of running
// out of memory) rather than a property of the simulated systems; raise one if a real case needs it.
inline constexpr int servers_max = 15;  // FLE traffic grows with the square of it
inline constexpr int instances_max = 1000;  // the performance suite runs 1,000 instances
inline constexpr int writers_max = 100;
inline constexpr int writes_max = 1'000'000;  // clients.writes
inline constexpr int es_nodes_max = 25;
inline constexpr int jobs_max = 32;
inline constexpr int faults_max = 10'000;
inline constexpr int sharding_total_count_max = 10'000;
inline constexpr int limit_ticks_max = 1'000;  // init_limit and sync_limit
inline constexpr int fd_ping_retries_max = 100;
inline constexpr double cluster_task_rate_max = 100'000;  // tasks per second
inline constexpr double cluster_task_rate_min = 1.0 / 86'400;  // a positive rate: one task a day
// Every duration in a file, the scenario's length included, is at most a simulated day. It also keeps
// sums such as `at + for` far away from the 292 years an int64 of nanoseconds can hold.
inline constexpr sim::Duration duration_max = 24h;

enum class Recipe { none, elasticjob, leader_latch, leader_selector, naive_master, es_zen };
enum class StartMode { together, staggered };
enum class LatencyDistribution { uniform };
// Elasticsearch's Priority enum, highest first (MasterService runs the highest pending task first).
enum class EsPriority { immediate, urgent, high, normal, low, languid };
enum class EsTaskExecutor { per_task, shared };
inline constexpr std::size_t es_priorities_count = 6;

struct ZooKeeperConfig {
  int servers = 3;  // named zk1..zkN, sid = N
  sim::Duration tick_time = 2000ms;
  int init_limit = 10;
  int sync_limit = 5;
  StartMode start = StartMode::together;
  sim::Duration start_interval = 1s;  // with staggered: zk1 at 0, zk2 at start_interval, ...
  // Persisted state before start, epoch<<32|counter, by server name (zk1..zkN); absent means empty.
  std::map<std::string, std::int64_t> initial_zxid;
  // electsim addition: the persisted currentEpoch (and acceptedEpoch) by server name, when it is not
  // the last zxid's epoch (a server that synced an epoch and logged nothing in it). Needs initial_zxid.
  std::map<std::string, std::int64_t> initial_epoch;
  // electsim additions: minSessionTimeout / maxSessionTimeout of zoo.cfg. Absent means ZooKeeper's
  // defaults, 2 and 20 ticks.
  std::optional<sim::Duration> min_session_timeout;
  std::optional<sim::Duration> max_session_timeout;
  // electsim additions: the release modelled ("3.8.0", "3.8.5", "3.9.3"), and the longest a server
  // thread is delayed where two of its threads race (0: never).
  std::string version = "3.8.0";
  sim::Duration thread_delay_max{};

  friend bool operator==(const ZooKeeperConfig&, const ZooKeeperConfig&) = default;
};

struct NetworkConfig {
  sim::Duration latency_min = 1ms;  // per message
  sim::Duration latency_max = 5ms;
  LatencyDistribution distribution = LatencyDistribution::uniform;

  friend bool operator==(const NetworkConfig&, const NetworkConfig&) = default;
};

struct ClientsConfig {
  sim::Duration session_timeout = 6s;  // requested; the servers negotiate it into their bounds
  std::string connect = "all";         // "all": every client gets the whole server list (the only mode)
  // electsim additions: a ZooKeeper client workload, processes w1..wN, each writing one znode every
  // write_interval (create, then setData; ephemeral when ephemeral_writes), to drive Zab.
  int writers = 0;
  sim::Duration write_interval = 100ms;
  bool ephemeral_writes = false;
  // electsim addition: each writer stops after this many successful writes (0: it never stops), so a
  // systematic search has a small, fixed workload to enumerate crash points over.
  int writes = 0;
  // electsim addition: each writer reads its node back after every write, so a read that goes back
  // in time (a committed write lost) shows (zab-monotonic-reads).
  bool reads = false;

  friend bool operator==(const ClientsConfig&, const ClientsConfig&) = default;
};

struct InstancesConfig {
  int count = 3;  // named i1..iN
  // Explicit instance ids by instance name (i1..iN); the others get "10.0.0.N@-@N" (instance_id).
  std::map<std::string, std::string> ids;
  StartMode start = StartMode::together;
  sim::Duration start_interval = 1s;

  friend bool operator==(const InstancesConfig&, const InstancesConfig&) = default;
};

struct JobConfig {
  std::string name;
  int sharding_total_count = 1;  // required in a file; ElasticJob's shardingTotalCount
  std::string strategy = "average";  // a name of registry.h's strategy_names()
  sim::Duration fire_interval = 5s;
  sim::Duration execution_time_min = 100ms;
  sim::Duration execution_time_max = 100ms;
  bool monitor_execution = true;

  friend bool operator==(const JobConfig&, const JobConfig&) = default;
};

struct ClusterTasksConfig {
  double rate = 0;  // new cluster-state update tasks per second, 0: none
  std::vector<EsPriority> priorities{EsPriority::normal};
  EsTaskExecutor executor = EsTaskExecutor::per_task;  // (electsim addition)

  friend bool operator==(const ClusterTasksConfig&, const ClusterTasksConfig&) = default;
};

// Zen1 discovery settings (discovery.zen.* in Elasticsearch 1.x..6.x), names without the prefix.
struct ElasticsearchConfig {
  int nodes = 3;  // named es1..esN
  int minimum_master_nodes = 2;
  sim::Duration ping_timeout = 3s;
  sim::Duration commit_timeout = 30s;
  sim::Duration publish_timeout = 30s;
  sim::Duration fd_ping_interval = 1s;
  sim::Duration fd_ping_timeout = 30s;
  int fd_ping_retries = 3;
  ClusterTasksConfig cluster_tasks;

  friend bool operator==(const ElasticsearchConfig&, const ElasticsearchConfig&) = default;
};

enum class FaultKind {
  crash,
  power_off,
  restart,
  partition,
  isolate,
  bridge,
  drop,
  heal,
  pause,
  disable,
  enable,
  shutdown,
  set_sharding_total_count,
};

// What sets off a step-triggered fault: the `occurrence`-th time node `node` emits trace event (or
// reaches site) `event`, counting from the fault's `at`, among those whose fields match `where`
// (each key a field of the event, each value its text: `{state: LEADING}`).
struct Trigger {
  std::string event;  // a kind of harness/trigger_kinds.h: a model site or a trace event
  std::string node;
  int occurrence = 1;  // >= 1
  std::map<std::string, std::string> where;

  friend bool operator==(const Trigger&, const Trigger&) = default;
};

// One timed action. A flat struct rather than a variant: the runner switches on `kind`, and the
// fields a kind does not use stay at their defaults, so defaulted == still compares meaningfully.
struct Fault {
  sim::Duration at{};
  FaultKind kind = FaultKind::heal;
  // crash, power_off, restart, isolate, pause: any node; disable, enable, shutdown: an instance;
  // bridge: the node that sees both sides.
  std::string node;
  // partition: two or more disjoint groups; bridge: exactly two disjoint sides.
  std::vector<std::vector<std::string>> groups;
  std::string from;  // drop: one-way loss from -> to
  std::string to;
  sim::Duration pause_for{};  // pause: how long the process stays frozen (> 0)
  std::string job;            // set_sharding_total_count
  int value = 0;
  // electsim addition: a step-triggered fault happens `delay` after its trigger fires instead of at
  // `at`; `at` and `until` bound when the trigger may fire ([at, until]); unfired by `until`, the
  // fault never happens (and the run's report says so).
  std::optional<Trigger> after;
  sim::Duration delay{};
  std::optional<sim::Duration> until;  // absent: the scenario's end

  friend bool operator==(const Fault&, const Fault&) = default;
};

struct Expect {
  std::vector<std::string> hold;  // properties that must hold
  std::vector<std::string> fail;  // properties this scenario must violate (bug demonstrations)
  // electsim addition: the server that must be LEADING at the end ("none": no leader).
  std::optional<std::string> zookeeper_leader;

  friend bool operator==(const Expect&, const Expect&) = default;
};

// Written by `electsim explore` into failure files and checked by `electsim replay`.
struct FailureRecord {
  std::string property;    // the property that failed
  std::string trace_hash;  // 16 lowercase hex digits
  std::string found_by;    // free text: the command line or seed that found it
  // The run's limits that differ from sim::SimulationLimits' defaults (max_events, max_nodes,
  // max_pending_events, max_memory_bytes): a limit hit replays only under the same limits, so
  // `electsim replay`, `run` and `shrink` apply these unless told otherwise on the command line.
  std::map<std::string, std::uint64_t> limits;

  friend bool operator==(const FailureRecord&, const FailureRecord&) = default;
};

struct Scenario {
  std::string name;
  std::string description;
  std::uint64_t seed = 1;
  sim::Duration duration{};
  Recipe recipe = Recipe::none;
  std::vector<std::string> bugs;
  ZooKeeperConfig zookeeper;
  NetworkConfig network;
  ClientsConfig clients;
  InstancesConfig instances;
  std::vector<JobConfig> jobs;
  std::optional<ElasticsearchConfig> elasticsearch;
  std::vector<Fault> faults;
  Expect expect;
  std::optional<FailureRecord> failure;

  friend bool operator==(const Scenario&, const Scenario&) = default;
};

// Which nodes a recipe runs: ZooKeeper servers and clients (w1..wN) with every recipe but es-zen,
// instances i1..iN with those that have contenders (not none, not es-zen).
inline bool runs_zookeeper(Recipe recipe) { return recipe != Recipe::es_zen; }
inline bool has_instances(Recipe recipe) { return recipe != Recipe::none && recipe != Recipe::es_zen; }

// The file's spelling of each enum value ("leader-latch", "power_off", "NORMAL", ...).
std::string_view recipe_name(Recipe recipe);
std::string_view start_mode_name(StartMode mode);
std::string_view distribution_name(LatencyDistribution distribution);
std::string_view es_priority_name(EsPriority priority);
std::string_view es_task_executor_name(EsTaskExecutor executor);
std::string_view fault_kind_name(FaultKind kind);
// The ZooKeeper releases the model runs: 3.8.0 (the default), 3.8.5 and 3.9.3.
const std::vector<std::string_view>& zookeeper_versions();
bool is_zookeeper_version(std::string_view version);
std::optional<Recipe> recipe_from_name(std::string_view name);
std::optional<StartMode> start_mode_from_name(std::string_view name);
std::optional<LatencyDistribution> distribution_from_name(std::string_view name);
std::optional<EsPriority> es_priority_from_name(std::string_view name);
std::optional<EsTaskExecutor> es_task_executor_from_name(std::string_view name);
std::optional<FaultKind> fault_kind_from_name(std::string_view name);

// Node names: zk1.., i1.., es1.. (number is 1-based, as in the name).
std::string server_name(int number);
std::string instance_name(int number);
std::string es_node_name(int number);

// The ElasticJob instance id of instance `number` (1-based: 1 is i1): its entry in instances.ids,
// else "10.0.0.N@-@N" (the IP@-@PID form of ElasticJob's InstanceService).
std::string instance_id(const Scenario& scenario, int number);

}  // namespace harness
