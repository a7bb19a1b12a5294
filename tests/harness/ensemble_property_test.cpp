// RapidCheck over whole ZooKeeper ensembles: random sizes, start orders, persisted zxids, crash,
// restart, pause and partition schedules, and a write workload. Zab's safety must always hold, and
// once everything heals a leader must exist within the derived bound.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "harness/recipe.h"
#include "harness/runner.h"

namespace {

using namespace std::chrono_literals;
using harness::Fault;
using harness::FaultKind;

harness::Scenario randomEnsembleScenario() {
  harness::Scenario scenario;
  scenario.name = "random-ensemble";
  scenario.seed = *rc::gen::arbitrary<std::uint64_t>();
  int servers = *rc::gen::element(3, 5);
  scenario.zookeeper.servers = servers;
  scenario.zookeeper.start = *rc::gen::element(harness::StartMode::together, harness::StartMode::staggered);
  scenario.zookeeper.start_interval = std::chrono::milliseconds(*rc::gen::inRange(0, 2000));
  for (int sid = 1; sid <= servers; sid++) {
    if (*rc::gen::arbitrary<bool>()) {
      scenario.zookeeper.initial_zxid["zk" + std::to_string(sid)] = (std::int64_t{*rc::gen::inRange(1, 3)} << 32) | *rc::gen::inRange(1, 20);
    }
  }
  scenario.clients.writers = *rc::gen::inRange(0, 3);
  scenario.clients.write_interval = std::chrono::milliseconds(*rc::gen::inRange(20, 500));

  // Faults in the first 60 s; then everything comes back and the run goes on past the bound.
  sim::Duration fault_window = 60s;
  int faults = *rc::gen::inRange(0, 8);
  for (int i = 0; i < faults; i++) {
    Fault fault;
    fault.at = std::chrono::milliseconds(*rc::gen::inRange(1000, static_cast<int>(sim::millis(fault_window))));
    std::string node = "zk" + std::to_string(*rc::gen::inRange(1, servers + 1));
    switch (*rc::gen::inRange(0, 5)) {
      case 0: fault.kind = FaultKind::crash; fault.node = node; break;
      case 1: fault.kind = FaultKind::power_off; fault.node = node; break;
      case 2: fault.kind = FaultKind::restart; fault.node = node; break;
      case 3:
        fault.kind = FaultKind::pause;
        fault.node = node;
        fault.pause_for = std::chrono::milliseconds(*rc::gen::inRange(100, 15000));
        break;
      default: fault.kind = FaultKind::isolate; fault.node = node; break;
    }
    scenario.faults.push_back(fault);
  }
  // The liveness tail: heal, restart every server, and wait out the bound.
  Fault heal;
  heal.at = fault_window + 16s;  // after the longest pause
  heal.kind = FaultKind::heal;
  scenario.faults.push_back(heal);
  for (int sid = 1; sid <= servers; sid++) {
    Fault restart;
    restart.at = fault_window + 16s;
    restart.kind = FaultKind::restart;
    restart.node = "zk" + std::to_string(sid);
    scenario.faults.push_back(restart);
  }
  std::stable_sort(scenario.faults.begin(), scenario.faults.end(), [](const Fault& a, const Fault& b) { return a.at < b.at; });
  scenario.duration = fault_window + 16s + harness::zookeeper_leader_bound(scenario) + 5s;
  scenario.expect.hold = {"zab-single-leader", "zab-agreement", "eventual-leader"};
  return scenario;
}

RC_GTEST_PROP(EnsembleProperty, ZabIsSafeAndAQuorumAlwaysElectsOnceHealed, ()) {
  harness::Scenario scenario = randomEnsembleScenario();
  harness::RunOptions options;
  options.timeline = false;
  harness::RunResult result = harness::runScenario(scenario, options);
  std::string why;
  for (const auto& reason : result.unmet) why += reason + "; ";
  for (const auto& violation : result.violations) why += violation.message + "; ";
  RC_LOG() << "seed " << scenario.seed << ": " << why;
  RC_ASSERT(result.expectations_met);
}

}  // namespace
