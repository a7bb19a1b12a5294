#include "harness/scenario_writer.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <charconv>

#include "sim/assert.h"

namespace harness {

namespace {

// electsim reads every value as text, so a name such as `yes` or `0123` reads back unchanged. Other
// readers of these files (a notebook's PyYAML is YAML 1.1) would turn it into a boolean or a number,
// so such strings are quoted. yaml-cpp already quotes what would read as null or break the syntax.
bool reads_as_non_string(const std::string& text) {
  std::string lower = text;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (std::string_view word : {"y", "n", "yes", "no", "on", "off", "true", "false", "null", "~"}) {
    if (lower == word) return true;
  }
  if (text.empty()) return false;
  char first = text[0];
  if (!std::isdigit(static_cast<unsigned char>(first)) && first != '+' && first != '-' && first != '.') return false;
  // Every YAML 1.1 number (ints in any base, floats, 1_000, sexagesimal 1:20) is made of these.
  return lower.find_first_not_of("0123456789abcdefxo+-._:") == std::string::npos;
}

void write_string(YAML::Emitter& out, const std::string& text) {
  if (reads_as_non_string(text)) out << YAML::DoubleQuoted;
  out << text;
}

void write_duration(YAML::Emitter& out, sim::Duration duration) { out << sim::format_duration(duration); }

// The shortest fixed-notation text that reads back as the same double; yaml-cpp's own output has 17
// significant digits.
void write_number(YAML::Emitter& out, double value) {
  // Fixed notation (100000, not 1e+05); a denormal needs about 330 characters of it.
  char buffer[512];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
  ELECTSIM_ASSERT(error == std::errc{});
  out << std::string(buffer, end);
}

void write_names(YAML::Emitter& out, const std::vector<std::string>& names) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const std::string& name : names) write_string(out, name);
  out << YAML::EndSeq;
}

void write_zookeeper(YAML::Emitter& out, const ZooKeeperConfig& config) {
  out << YAML::Key << "zookeeper" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "servers" << YAML::Value << config.servers;
  out << YAML::Key << "tick_time" << YAML::Value;
  write_duration(out, config.tick_time);
  out << YAML::Key << "init_limit" << YAML::Value << config.init_limit;
  out << YAML::Key << "sync_limit" << YAML::Value << config.sync_limit;
  out << YAML::Key << "start" << YAML::Value << std::string(start_mode_name(config.start));
  out << YAML::Key << "start_interval" << YAML::Value;
  write_duration(out, config.start_interval);
  if (!config.initial_zxid.empty()) {
    // Hex, as ZooKeeper prints zxids: the epoch is the high 32 bits.
    out << YAML::Key << "initial_zxid" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [server, zxid] : config.initial_zxid)
      out << YAML::Key << server << YAML::Value << YAML::Hex << zxid;
    out << YAML::EndMap;
  }
  if (!config.initial_epoch.empty()) {
    out << YAML::Key << "initial_epoch" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [server, epoch] : config.initial_epoch) out << YAML::Key << server << YAML::Value << YAML::Dec << epoch;
    out << YAML::EndMap;
  }
  if (config.min_session_timeout) {
    out << YAML::Key << "min_session_timeout" << YAML::Value;
    write_duration(out, *config.min_session_timeout);
  }
  if (config.max_session_timeout) {
    out << YAML::Key << "max_session_timeout" << YAML::Value;
    write_duration(out, *config.max_session_timeout);
  }
  if (config.version != "3.8.0") out << YAML::Key << "version" << YAML::Value << YAML::DoubleQuoted << config.version;
  if (config.thread_delay_max != sim::Duration::zero()) {
    out << YAML::Key << "thread_delay_max" << YAML::Value;
    write_duration(out, config.thread_delay_max);
  }
  out << YAML::EndMap;
}

void write_network_and_clients(YAML::Emitter& out, const NetworkConfig& network, const ClientsConfig& clients) {
  out << YAML::Key << "network" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "latency" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "min" << YAML::Value;
  write_duration(out, network.latency_min);
  out << YAML::Key << "max" << YAML::Value;
  write_duration(out, network.latency_max);
  out << YAML::Key << "distribution" << YAML::Value << std::string(distribution_name(network.distribution));
  out << YAML::EndMap << YAML::EndMap;

  out << YAML::Key << "clients" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "session_timeout" << YAML::Value;
  write_duration(out, clients.session_timeout);
  out << YAML::Key << "connect" << YAML::Value;
  write_string(out, clients.connect);
  out << YAML::Key << "writers" << YAML::Value << clients.writers;
  out << YAML::Key << "write_interval" << YAML::Value;
  write_duration(out, clients.write_interval);
  out << YAML::Key << "ephemeral_writes" << YAML::Value << clients.ephemeral_writes;
  if (clients.writes != 0) out << YAML::Key << "writes" << YAML::Value << clients.writes;
  if (clients.reads) out << YAML::Key << "reads" << YAML::Value << true;
  out << YAML::EndMap;
}

void write_instances(YAML::Emitter& out, const InstancesConfig& config) {
  out << YAML::Key << "instances" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "count" << YAML::Value << config.count;
  if (!config.ids.empty()) {
    out << YAML::Key << "ids" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [instance, id] : config.ids) {
      out << YAML::Key << instance << YAML::Value;
      write_string(out, id);
    }
    out << YAML::EndMap;
  }
  out << YAML::Key << "start" << YAML::Value << std::string(start_mode_name(config.start));
  out << YAML::Key << "start_interval" << YAML::Value;
  write_duration(out, config.start_interval);
  out << YAML::EndMap;
}

void write_job(YAML::Emitter& out, const JobConfig& job) {
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  write_string(out, job.name);
  out << YAML::Key << "sharding_total_count" << YAML::Value << job.sharding_total_count;
  out << YAML::Key << "strategy" << YAML::Value;
  write_string(out, job.strategy);
  out << YAML::Key << "fire_interval" << YAML::Value;
  write_duration(out, job.fire_interval);
  out << YAML::Key << "execution_time" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "min" << YAML::Value;
  write_duration(out, job.execution_time_min);
  out << YAML::Key << "max" << YAML::Value;
  write_duration(out, job.execution_time_max);
  out << YAML::EndMap;
  out << YAML::Key << "monitor_execution" << YAML::Value << job.monitor_execution;
  out << YAML::EndMap;
}

void write_elasticsearch(YAML::Emitter& out, const ElasticsearchConfig& config) {
  out << YAML::Key << "elasticsearch" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "nodes" << YAML::Value << config.nodes;
  out << YAML::Key << "minimum_master_nodes" << YAML::Value << config.minimum_master_nodes;
  const std::pair<const char*, sim::Duration> durations[]{
      {"ping_timeout", config.ping_timeout},       {"commit_timeout", config.commit_timeout},
      {"publish_timeout", config.publish_timeout}, {"fd_ping_interval", config.fd_ping_interval},
      {"fd_ping_timeout", config.fd_ping_timeout},
  };
  for (const auto& [key, value] : durations) {
    out << YAML::Key << key << YAML::Value;
    write_duration(out, value);
  }
  out << YAML::Key << "fd_ping_retries" << YAML::Value << config.fd_ping_retries;
  out << YAML::Key << "cluster_tasks" << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "rate" << YAML::Value;
  write_number(out, config.cluster_tasks.rate);
  out << YAML::Key << "priorities" << YAML::Value << YAML::Flow << YAML::BeginSeq;
  for (EsPriority priority : config.cluster_tasks.priorities) out << std::string(es_priority_name(priority));
  out << YAML::EndSeq;
  out << YAML::Key << "executor" << YAML::Value << std::string(es_task_executor_name(config.cluster_tasks.executor));
  out << YAML::EndMap;
  out << YAML::EndMap;
}

void write_group(YAML::Emitter& out, const std::vector<std::string>& group) {
  out << YAML::Flow << YAML::BeginSeq;
  for (const std::string& node : group) out << node;
  out << YAML::EndSeq;
}

// One fault, one line: {at: 20s, crash: i1}, or with a trigger
// {after: {event: zab.current_epoch_written, node: zk1, nth: 1}, delay: 5ms, crash: zk1}.
void write_fault(YAML::Emitter& out, const Fault& fault) {
  out << YAML::Flow << YAML::BeginMap;
  if (fault.after) {
    const Trigger& trigger = *fault.after;
    out << YAML::Key << "after" << YAML::Value << YAML::BeginMap;
    out << YAML::Key << "event" << YAML::Value << trigger.event;
    out << YAML::Key << "node" << YAML::Value << trigger.node;
    out << YAML::Key << "nth" << YAML::Value << trigger.occurrence;
    if (!trigger.where.empty()) {
      out << YAML::Key << "where" << YAML::Value << YAML::BeginMap;
      for (const auto& [key, value] : trigger.where) {
        out << YAML::Key << key << YAML::Value;
        write_string(out, value);
      }
      out << YAML::EndMap;
    }
    out << YAML::EndMap;
    if (fault.at != sim::Duration::zero()) {
      out << YAML::Key << "at" << YAML::Value;
      write_duration(out, fault.at);
    }
    if (fault.until) {
      out << YAML::Key << "until" << YAML::Value;
      write_duration(out, *fault.until);
    }
    if (fault.delay != sim::Duration::zero()) {
      out << YAML::Key << "delay" << YAML::Value;
      write_duration(out, fault.delay);
    }
  } else {
    out << YAML::Key << "at" << YAML::Value;
    write_duration(out, fault.at);
  }
  out << YAML::Key << std::string(fault_kind_name(fault.kind)) << YAML::Value;
  switch (fault.kind) {
    case FaultKind::crash:
    case FaultKind::power_off:
    case FaultKind::restart:
    case FaultKind::isolate:
    case FaultKind::pause:
    case FaultKind::disable:
    case FaultKind::enable:
    case FaultKind::shutdown:
      out << fault.node;
      break;
    case FaultKind::partition:
      out << YAML::BeginSeq;
      for (const auto& group : fault.groups) write_group(out, group);
      out << YAML::EndSeq;
      break;
    case FaultKind::bridge:
      ELECTSIM_ASSERT(fault.groups.size() == 2);
      out << YAML::BeginMap << YAML::Key << "node" << YAML::Value << fault.node << YAML::Key << "sides" << YAML::Value
          << YAML::BeginSeq;
      for (const auto& side : fault.groups) write_group(out, side);
      out << YAML::EndSeq << YAML::EndMap;
      break;
    case FaultKind::drop:
      out << YAML::BeginMap << YAML::Key << "from" << YAML::Value << fault.from << YAML::Key << "to" << YAML::Value
          << fault.to << YAML::EndMap;
      break;
    case FaultKind::heal:
      out << "all";
      break;
    case FaultKind::set_sharding_total_count:
      out << YAML::BeginMap << YAML::Key << "job" << YAML::Value;
      write_string(out, fault.job);
      out << YAML::Key << "value" << YAML::Value << fault.value << YAML::EndMap;
      break;
  }
  if (fault.kind == FaultKind::pause) {
    out << YAML::Key << "for" << YAML::Value;
    write_duration(out, fault.pause_for);
  }
  out << YAML::EndMap;
}

void write_expect_and_failure(YAML::Emitter& out, const Expect& expect, const std::optional<FailureRecord>& failure) {
  out << YAML::Key << "expect" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "hold" << YAML::Value;
  write_names(out, expect.hold);
  out << YAML::Key << "fail" << YAML::Value;
  write_names(out, expect.fail);
  if (expect.zookeeper_leader) out << YAML::Key << "zookeeper_leader" << YAML::Value << *expect.zookeeper_leader;
  out << YAML::EndMap;
  if (!failure) return;
  out << YAML::Key << "failure" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "property" << YAML::Value << failure->property;
  // Always quoted: sixteen hex digits can look like a number (or 1e5...) to another YAML reader.
  out << YAML::Key << "trace_hash" << YAML::Value << YAML::DoubleQuoted << failure->trace_hash;
  out << YAML::Key << "found_by" << YAML::Value;
  write_string(out, failure->found_by);
  if (!failure->limits.empty()) {
    out << YAML::Key << "limits" << YAML::Value << YAML::Flow << YAML::BeginMap;
    for (const auto& [name, value] : failure->limits) out << YAML::Key << name << YAML::Value << value;
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
}

}  // namespace

std::string write_scenario(const Scenario& scenario) {
  YAML::Emitter out;
  out.SetIndent(2);
  out << YAML::BeginMap;
  out << YAML::Key << "name" << YAML::Value;
  write_string(out, scenario.name);
  out << YAML::Key << "description" << YAML::Value;
  write_string(out, scenario.description);
  out << YAML::Key << "seed" << YAML::Value << scenario.seed;
  out << YAML::Key << "duration" << YAML::Value;
  write_duration(out, scenario.duration);
  out << YAML::Key << "recipe" << YAML::Value << std::string(recipe_name(scenario.recipe));
  out << YAML::Key << "bugs" << YAML::Value;
  write_names(out, scenario.bugs);
  write_zookeeper(out, scenario.zookeeper);
  write_network_and_clients(out, scenario.network, scenario.clients);
  write_instances(out, scenario.instances);
  if (scenario.recipe == Recipe::elasticjob) {
    out << YAML::Key << "jobs" << YAML::Value;
    if (scenario.jobs.empty()) out << YAML::Flow;
    out << YAML::BeginSeq;
    for (const JobConfig& job : scenario.jobs) write_job(out, job);
    out << YAML::EndSeq;
  }
  if (scenario.elasticsearch) write_elasticsearch(out, *scenario.elasticsearch);
  out << YAML::Key << "faults" << YAML::Value;
  if (scenario.faults.empty()) out << YAML::Flow;
  out << YAML::BeginSeq;
  for (const Fault& fault : scenario.faults) write_fault(out, fault);
  out << YAML::EndSeq;
  write_expect_and_failure(out, scenario.expect, scenario.failure);
  out << YAML::EndMap;
  ELECTSIM_ASSERT_MSG(out.good(), out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

}  // namespace harness
