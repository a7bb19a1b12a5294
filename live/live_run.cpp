#include "live/live_run.h"

#include <csignal>

#include "harness/trigger_kinds.h"
#include "live/child_process.h"
#include "live/live_platform.h"

namespace live {

namespace {

// Ctrl-C (or SIGTERM) stops the real-time loop: the run ends early, is reported (exit 1,
// `interrupted`), and everything it started is stopped and removed as at a normal end. A second
// signal falls back to the cleanup handler (child_process.h), which kills the children and dies.
//
// The cleanup handler is installed first, so that it is the one a second signal restores: when the
// first JVM started after this scope (servers start at the scenario's 0 s, inside the run), its
// installation used to replace this handler, and one Ctrl-C killed everything unreported.
std::atomic<LivePlatform*> interrupt_target{nullptr};
struct sigaction previous_sigint {};
struct sigaction previous_sigterm {};

extern "C" void stop_live_run(int) {
  if (LivePlatform* platform = interrupt_target.load()) platform->stop();
  ::sigaction(SIGINT, &previous_sigint, nullptr);
  ::sigaction(SIGTERM, &previous_sigterm, nullptr);
}

class InterruptScope {
 public:
  explicit InterruptScope(LivePlatform& platform) {
    install_cleanup_on_signals();
    interrupt_target.store(&platform);
    struct sigaction action {};
    action.sa_handler = stop_live_run;
    sigemptyset(&action.sa_mask);
    ::sigaction(SIGINT, &action, &previous_sigint);
    ::sigaction(SIGTERM, &action, &previous_sigterm);
  }
  ~InterruptScope() {
    ::sigaction(SIGINT, &previous_sigint, nullptr);
    ::sigaction(SIGTERM, &previous_sigterm, nullptr);
    interrupt_target.store(nullptr);
  }
};

}  // namespace

std::optional<std::string> live_unsupported(const harness::Scenario& scenario) {
  switch (scenario.recipe) {
    case harness::Recipe::leader_latch:
    case harness::Recipe::leader_selector:
    case harness::Recipe::elasticjob:
    case harness::Recipe::naive_master:
    case harness::Recipe::none: break;
    default:
      return "recipe " + std::string(harness::recipe_name(scenario.recipe)) +
             " has no ZooKeeper: live mode runs leader-latch, leader-selector, elasticjob, naive-master and none";
  }
  if (!scenario.bugs.empty()) return "bugs: a bug switch of the model cannot be applied to a real ZooKeeper (remove `bugs`)";
  if (scenario.zookeeper.version != "3.8.0") {
    return "zookeeper.version " + scenario.zookeeper.version +
           ": live mode runs the installed ZooKeeper 3.8, whatever the model's version (remove the key, or run it with electsim run)";
  }
  if (scenario.zookeeper.thread_delay_max != sim::Duration::zero()) {
    return "zookeeper.thread_delay_max: the real servers' threads are scheduled by the real machine (remove the key)";
  }
  for (const harness::Fault& fault : scenario.faults) {
    if (!fault.after) continue;
    const harness::TriggerKind* kind = harness::find_trigger_kind(fault.after->event);
    if (kind != nullptr && (kind->site != nullptr || (kind->roles & harness::trigger_server) != 0)) {
      return "a fault triggered by " + fault.after->event + ": live mode cannot see inside the real servers (only client-side events trigger faults there)";
    }
  }
  if (scenario.zookeeper.servers > live_servers_max) {
    return "zookeeper.servers: at most " + std::to_string(live_servers_max) + " real servers on one machine";
  }
  return std::nullopt;
}

LiveRunResult run_live(const harness::Scenario& scenario, const Installation& installation, const LiveRunOptions& options) {
  LiveRunResult result;
  result.skipped_faults = LivePlatform::unsupportedFaults(scenario);
  LivePlatform platform(scenario, installation);
  InterruptScope interrupts(platform);
  harness::RunOptions run;
  run.trace_out = options.trace_out;
  run.platform = &platform;
  run.run_loop = [&platform](sim::Simulation& sim, sim::Instant end) { platform.run(sim, end); };
  run.unjudgeable = LivePlatform::unjudgeableProperties();
  // Real time has no event budget to speak of; the memory budget stays.
  if (options.progress != nullptr) {
    *options.progress << "live: " << scenario.zookeeper.servers << " ZooKeeper servers in " << platform.ensemble().folder().string() << ", "
                      << sim::format_duration(scenario.duration) << " of real time\n";
    for (const std::string& skipped : result.skipped_faults) *options.progress << "live: skipped fault: " << skipped << "\n";
  }
  result.run = harness::runScenario(scenario, run);
  result.interrupted = platform.stopped();
  return result;
}

}  // namespace live
