#include "live/live_run.h"

#include <csignal>

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

LiveRunResult run_live(const harness::Scenario& scenario, const Installation& installation, const LiveRunOptions& options) {
  LiveRunResult result;
  result.skipped_faults = LivePlatform::unsupportedFaults(scenario);
  LivePlatform platform(scenario, installation);
  InterruptScope interrupts(platform);
  harness::RunOptions run;
  run.trace_out = options.trace_out;
  run.trace_bytes_max = options.trace_bytes_max;
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
