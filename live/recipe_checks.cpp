// The recipe rows of the conformance suite: the same scenario file (scenarios/live-*.yaml) run on
// the model (harness::runScenario, deterministic) and on a real ensemble (run_live), with the same
// LeaderLatch and ElasticJob code on both sides. Measures come from each run's timeline: who leads
// after the leader's process is killed, how long after the kill, and the sharding afterwards.
#include <optional>

#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "live/conformance.h"
#include "live/live_platform.h"
#include "live/live_run.h"

namespace live {

namespace {

std::string scenario_path(const std::string& check) {
  if (check == "latch-leader-kill") return std::string(ELECTSIM_SCENARIO_DIR) + "/live-latch-leader-killed.yaml";
  if (check == "ej-leader-kill") return std::string(ELECTSIM_SCENARIO_DIR) + "/live-ej-leader-killed.yaml";
  ELECTSIM_ASSERT_MSG(false, "not a recipe check: " + check);
  ELECTSIM_UNREACHABLE();
}

// From a run: the first `leader_text` entry after the crash of the node the scenario kills.
Measures measure(const harness::Scenario& scenario, const harness::RunResult& run, const std::string& leader_text) {
  Measures measures;
  std::optional<sim::Instant> crash;
  std::string killed;
  for (const harness::TimelineEntry& entry : run.timeline) {
    if (!crash && entry.text == "crash") {
      crash = entry.time;
      killed = entry.node;
      continue;
    }
    if (crash && entry.text.starts_with(leader_text) && entry.node != killed) {
      measures.words["new leader"] = entry.node;
      measures.milliseconds["re-election"] = std::chrono::duration<double, std::milli>(entry.time - *crash).count();
      break;
    }
  }
  if (!crash) measures.error = "the run has no crash in its timeline";
  // The verdicts both sides can give: live mode cannot judge some properties at all.
  std::string verdicts;
  const std::map<std::string, std::string> unjudgeable = LivePlatform::unjudgeableProperties();
  for (const auto& [name, verdict] : run.properties) {
    if (verdict == properties::Verdict::not_judged || unjudgeable.contains(name)) continue;
    verdicts += (verdicts.empty() ? "" : ", ") + name + " " + std::string(properties::verdict_name(verdict));
  }
  measures.words["properties"] = verdicts;
  if (scenario.recipe == harness::Recipe::elasticjob && run.final.contains("jobs")) {
    std::string sharding;
    for (const auto& [job, report] : run.final["jobs"].items()) {
      for (const auto& [instance, items] : report["sharding"].items()) {
        if (items.empty()) continue;
        sharding += (sharding.empty() ? "" : "; ") + instance + ":" + items.dump();
      }
    }
    measures.words["sharding"] = sharding;
  }
  if (run.finding) measures.error = *run.finding;
  return measures;
}

std::string leader_text(const harness::Scenario& scenario) { return scenario.recipe == harness::Recipe::elasticjob ? "job.leader" : "latch.leader"; }

}  // namespace

Measures run_model_recipe_check(const std::string& check, const ConformanceConfig& config) {
  harness::Scenario scenario = harness::parse_scenario_file(scenario_path(check));
  scenario.zookeeper.version = config.model_zookeeper_version;
  harness::RunOptions options;
  options.seed = config.model_seed;
  harness::RunResult run = harness::runScenario(scenario, options);
  return measure(scenario, run, leader_text(scenario));
}

Measures run_live_recipe_check(const std::string& check, const Installation& installation) {
  harness::Scenario scenario = harness::parse_scenario_file(scenario_path(check));
  LiveRunResult live = run_live(scenario, installation, LiveRunOptions{});
  Measures measures = measure(scenario, live.run, leader_text(scenario));
  if (live.interrupted) measures.error = "interrupted";
  return measures;
}

}  // namespace live
