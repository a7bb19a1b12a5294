#include "live/live_refusal.h"

#include <fstream>
#include <sstream>

#include "harness/trigger_kinds.h"
#include "live/client_proxy.h"
#include "live/ensemble.h"
#include "live/scenario_position.h"

namespace live {

namespace {

bool whole_milliseconds(sim::Duration duration) { return duration % std::chrono::milliseconds(1) == sim::Duration::zero(); }

// zoo.cfg's times are ints of milliseconds (QuorumPeerConfig.parseProperties: Integer.parseInt), and
// the C client's zookeeper_init takes the session timeout as an int of milliseconds: 1500us would be
// written as 1 and run as something the scenario does not say.
std::optional<LiveRefusal> not_whole_milliseconds(const std::string& key_path, sim::Duration duration, const std::string& what) {
  if (whole_milliseconds(duration)) return std::nullopt;
  auto below = std::chrono::duration_cast<std::chrono::milliseconds>(duration);
  std::string closest = below.count() == 0 ? sim::format_duration(below + std::chrono::milliseconds(1))
                                           : sim::format_duration(below) + " or " + sim::format_duration(below + std::chrono::milliseconds(1));
  return LiveRefusal{key_path, "",
                     key_path + ": " + sim::format_duration(duration) + " is not a whole number of milliseconds, and " + what +
                         " takes milliseconds (write " + closest + ")",
                     ""};
}

}  // namespace

int live_client_sessions(const harness::Scenario& scenario) {
  long long sessions = scenario.clients.writers;
  if (harness::has_instances(scenario.recipe)) {
    sessions += scenario.instances.count;
    if (scenario.recipe == harness::Recipe::elasticjob) sessions += 1;  // ElasticJobConsole's registry center
    for (const harness::Fault& fault : scenario.faults) {
      if (fault.kind == harness::FaultKind::restart && fault.node.starts_with("i")) sessions += 1;
    }
  }
  return static_cast<int>(std::min<long long>(sessions, 1'000'000'000));
}

std::optional<LiveRefusal> live_refusal(const harness::Scenario& scenario) {
  switch (scenario.recipe) {
    case harness::Recipe::leader_latch:
    case harness::Recipe::leader_selector:
    case harness::Recipe::elasticjob:
    case harness::Recipe::naive_master:
    case harness::Recipe::none: break;
    default:
      return LiveRefusal{"recipe", "",
                         "recipe " + std::string(harness::recipe_name(scenario.recipe)) +
                             " has no ZooKeeper: live mode runs leader-latch, leader-selector, elasticjob, naive-master and none",
                         ""};
  }
  if (!scenario.bugs.empty()) return LiveRefusal{"bugs", "", "bugs: a bug switch of the model cannot be applied to a real ZooKeeper (remove `bugs`)", ""};
  if (scenario.zookeeper.version != "3.8.0") {
    return LiveRefusal{"zookeeper.version", "",
                       "zookeeper.version " + scenario.zookeeper.version +
                           ": live mode runs the installed ZooKeeper 3.8, whatever the model's version (remove the key, or run it with electsim run)",
                       ""};
  }
  if (scenario.zookeeper.thread_delay_max != sim::Duration::zero()) {
    return LiveRefusal{"zookeeper.thread_delay_max", "",
                       "zookeeper.thread_delay_max: the real servers' threads are scheduled by the real machine (remove the key)", ""};
  }
  for (const harness::Fault& fault : scenario.faults) {
    if (!fault.after) continue;
    const harness::TriggerKind* kind = harness::find_trigger_kind(fault.after->event);
    if (kind != nullptr && (kind->site != nullptr || (kind->roles & harness::trigger_server) != 0)) {
      return LiveRefusal{"faults[*].after.event", fault.after->event,
                         "a fault triggered by " + fault.after->event +
                             ": live mode cannot see inside the real servers (only client-side events trigger faults there)",
                         ""};
    }
  }
  if (scenario.zookeeper.servers > live_servers_max) {
    return LiveRefusal{"zookeeper.servers", "", "zookeeper.servers: at most " + std::to_string(live_servers_max) + " real servers on one machine", ""};
  }
  if (auto refused = not_whole_milliseconds("zookeeper.tick_time", scenario.zookeeper.tick_time, "zoo.cfg's tickTime")) return refused;
  if (scenario.zookeeper.min_session_timeout) {
    if (auto refused = not_whole_milliseconds("zookeeper.min_session_timeout", *scenario.zookeeper.min_session_timeout, "zoo.cfg's minSessionTimeout")) {
      return refused;
    }
  }
  if (scenario.zookeeper.max_session_timeout) {
    if (auto refused = not_whole_milliseconds("zookeeper.max_session_timeout", *scenario.zookeeper.max_session_timeout, "zoo.cfg's maxSessionTimeout")) {
      return refused;
    }
  }
  int sessions = live_client_sessions(scenario);
  if (sessions > 0) {
    if (scenario.clients.session_timeout < live_session_timeout_min) {
      return LiveRefusal{"clients.session_timeout", "",
                         "clients.session_timeout: " + sim::format_duration(scenario.clients.session_timeout) + " is below live mode's " +
                             sim::format_duration(live_session_timeout_min) +
                             ": the C client waits 2/3 of the requested timeout, in whole milliseconds, for the server's answer "
                             "to a connection, here 0 ms, so no connection would ever complete (the servers raise any request to "
                             "2 ticks anyway: ask for that)",
                         ""};
    }
    if (auto refused = not_whole_milliseconds("clients.session_timeout", scenario.clients.session_timeout, "the C client's zookeeper_init")) {
      return refused;
    }
  }
  if (sessions > ClientProxy::clients_max) {
    std::string breakdown;
    if (harness::has_instances(scenario.recipe)) {
      breakdown += std::to_string(scenario.instances.count) + " instances";
      if (scenario.recipe == harness::Recipe::elasticjob) breakdown += " + 1 ElasticJob console";
      int restarts = sessions - scenario.instances.count - scenario.clients.writers - (scenario.recipe == harness::Recipe::elasticjob ? 1 : 0);
      if (restarts > 0) breakdown += " + " + std::to_string(restarts) + " instance restarts";
      breakdown += " + ";
    }
    breakdown += std::to_string(scenario.clients.writers) + " writers";
    // At the instances' count (the writers' when the file does not give it, or has no instances).
    bool instances = harness::has_instances(scenario.recipe);
    return LiveRefusal{instances ? "instances.count" : "clients.writers", "",
                       "live mode opens each ZooKeeper session through its own client proxy port, at most " +
                           std::to_string(ClientProxy::clients_max) + " open at once; this scenario opens " + std::to_string(sessions) + " (" +
                           breakdown + ")",
                       instances ? "clients.writers" : "instances.count"};
  }
  return std::nullopt;
}

std::string live_refusal_text(const std::string& file, const LiveRefusal& refusal) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  std::optional<FilePosition> position;
  if (in.is_open()) {
    position = find_key_position(text.str(), refusal.key_path, refusal.key_value);
    if (!position && !refusal.fallback_key_path.empty()) position = find_key_position(text.str(), refusal.fallback_key_path);
  }
  if (!position) return file + ": live: " + refusal.message;
  return file + ":" + std::to_string(position->line) + ":" + std::to_string(position->column) + ": live: " + refusal.message;
}

}  // namespace live
