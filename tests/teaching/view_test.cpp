// The run viewer's data (harness/view.h): steps with their sentences and state changes, folding
// that keeps the state exact, the contradictions the teaching review found gone, determinism, and
// electsim diff's alignment (harness/run_diff.h).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <sstream>
#include <string>

#include "harness/message_summary.h"
#include "harness/run_diff.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"
#include "harness/view.h"

namespace {

using harness::ViewSink;

harness::Scenario scenario(const std::string& name) {
  return harness::parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/" + name + ".yaml");
}

struct Viewed {
  nlohmann::ordered_json data;
  harness::RunResult result;
};

Viewed view(const harness::Scenario& s, harness::ViewLimits limits = {}) {
  ViewSink sink(limits);
  harness::RunOptions options;
  options.timeline = false;
  options.sinks.push_back(&sink);
  options.message_describer = &harness::describe_message;
  harness::RunResult result = harness::runScenario(s, options);
  return {sink.data(sim::epoch + s.duration, s.name, result.violations), result};
}

// The state after every step, folded from the steps' changes as the page does.
using State = std::map<std::pair<std::int64_t, std::string>, std::string>;
std::vector<State> states(const nlohmann::ordered_json& data) {
  std::vector<State> all;
  State now;
  for (const auto& step : data["steps"]) {
    for (const auto& change : step["d"]) {
      std::pair<std::int64_t, std::string> key{change[0].get<std::int64_t>(), change[1].get<std::string>()};
      if (change[2].get<std::string>().empty()) now.erase(key); else now[key] = change[2].get<std::string>();
    }
    all.push_back(now);
  }
  return all;
}

std::int64_t lane_of(const nlohmann::ordered_json& data, const std::string& name) {
  for (std::size_t i = 0; i < data["lanes"].size(); i++) {
    if (data["lanes"][i]["name"] == name) return static_cast<std::int64_t>(i);
  }
  return -2;
}

TEST(View, EveryStepHasItsSentenceAndTheRunEnds) {
  Viewed viewed = view(scenario("zk-leader-crash"));
  const auto& steps = viewed.data["steps"];
  ASSERT_GT(steps.size(), 20u);
  EXPECT_EQ(steps.back()["k"], "run.end");
  EXPECT_EQ(viewed.data["steps_told"].get<std::uint64_t>() + 1, steps.size()) << "nothing folded in a short run";
  std::int64_t last = 0;
  for (const auto& step : steps) {
    EXPECT_GE(step["t"].get<std::int64_t>(), last);
    last = step["t"].get<std::int64_t>();
    if (step["k"] != "run.end") EXPECT_FALSE(step["x"].get<std::string>().empty());
  }
  EXPECT_GT(viewed.data["messages"].size(), 0u);
}

TEST(View, TheStateFollowsTheElectionAndTheCrash) {
  Viewed viewed = view(scenario("zk-leader-crash"));
  std::vector<State> after = states(viewed.data);
  const State& end = after.back();
  std::int64_t zk3 = lane_of(viewed.data, "zk3");
  // zk3 led epoch 1 and crashed at 20 s; another server leads at the end.
  EXPECT_EQ(end.at({zk3, "status"}), "crashed");
  EXPECT_FALSE(end.contains({zk3, "role"}));
  int leading = 0;
  for (const auto& [key, value] : end) leading += key.second == "role" && value == "LEADING";
  EXPECT_EQ(leading, 1);
  bool zk3_led = false;
  for (const State& state : after) zk3_led = zk3_led || (state.contains({zk3, "role"}) && state.at({zk3, "role"}) == "LEADING");
  EXPECT_TRUE(zk3_led);
}

TEST(View, FoldingKeepsTheStateExactAndSaysWhatItLeftOut) {
  harness::Scenario s = scenario("ej-leader-crash");
  Viewed whole = view(s);
  harness::ViewLimits small;
  small.head_steps = 40;
  small.tail_steps = 20;
  small.violation_steps_before = 30;
  small.violation_steps_after = 10;
  Viewed folded = view(s, small);
  const auto& steps = folded.data["steps"];
  EXPECT_LT(steps.size(), whole.data["steps"].size());
  EXPECT_EQ(folded.data["steps_told"], whole.data["steps_told"]);
  std::uint64_t gaps = 0, left_out = 0;
  for (const auto& step : steps) {
    if (!step.contains("gap")) continue;
    gaps++;
    left_out += step["gap"].get<std::uint64_t>();
    EXPECT_FALSE(step["kinds"].empty());
  }
  EXPECT_GE(gaps, 1u);
  EXPECT_EQ(steps.size() - gaps + left_out, whole.data["steps"].size()) << "every step is shown or counted in a gap";
  // The state at the end is the same, folded or not; and so at every shown step after a gap.
  EXPECT_EQ(states(folded.data).back(), states(whole.data).back());
}

// --view-from/--view-to: every step of the window is shown, beyond the head and the tail.
TEST(View, AWindowShowsEveryStepInIt) {
  harness::Scenario s = scenario("ej-leader-crash");
  harness::ViewLimits small;
  small.head_steps = 20;
  small.tail_steps = 20;
  small.violation_steps_before = 20;
  Viewed folded = view(s, small);
  small.window_from = sim::epoch + std::chrono::seconds(30);
  small.window_to = sim::epoch + std::chrono::seconds(40);
  Viewed windowed = view(s, small);
  auto in_window = [](const nlohmann::ordered_json& data) {
    std::size_t count = 0;
    for (const auto& step : data["steps"]) {
      std::int64_t t = step["t"].get<std::int64_t>();
      if (!step.contains("gap") && t >= 30'000'000'000 && t <= 40'000'000'000) count++;
    }
    return count;
  };
  Viewed whole = view(s);
  EXPECT_LT(in_window(folded.data), in_window(whole.data)) << "the window is folded without the option";
  EXPECT_EQ(in_window(windowed.data), in_window(whole.data));
  EXPECT_EQ(states(windowed.data).back(), states(whole.data).back());
}

TEST(View, AViolationIsShownWithTheStepsBeforeIt) {
  harness::ViewLimits small;
  small.head_steps = 10;
  small.violation_steps_before = 25;
  small.violation_steps_after = 5;
  Viewed viewed = view(scenario("bug-latch-ignores-connection-loss"), small);
  const auto& steps = viewed.data["steps"];
  std::size_t at = 0;
  while (at < steps.size() && steps[at]["k"] != "property.violation") at++;
  ASSERT_LT(at, steps.size());
  for (std::size_t i = at - 25; i < at; i++) EXPECT_FALSE(steps[i].contains("gap")) << i;
}

// D7: the picture began es2's master band 30 s after es-single-master says it acted as master. The
// viewer's "master" field starts where the checker's tenure does: at the node's first commit.
TEST(View, AnElasticsearchMasterIsMasterFromItsFirstCommitAsTheCheckerSays) {
  Viewed viewed = view(scenario("es-mmn1-split-brain"));
  std::int64_t es2 = lane_of(viewed.data, "es2");
  const auto& steps = viewed.data["steps"];
  std::vector<State> after = states(viewed.data);
  std::optional<std::int64_t> master_since, first_commit;
  for (std::size_t i = 0; i < steps.size(); i++) {
    if (!master_since && after[i].contains({es2, "master"})) master_since = steps[i]["t"].get<std::int64_t>();
  }
  for (const auto& message : viewed.result.violations) {
    if (message.property == "es-single-master") first_commit = (message.time - sim::epoch).count();
  }
  ASSERT_TRUE(master_since.has_value());
  ASSERT_TRUE(first_commit.has_value());
  EXPECT_LE(*master_since, *first_commit) << "es2 is master in the panel only after the checker found two masters";
  EXPECT_LT(*master_since, 110'000'000'000) << "es2 commits as master from 103.06 s";
}

// D10: both i1 and i2 believed they led for 17.5 s, but i1 was not connected for most of it; the
// panel shows both facts, so the picture can shade the belief that does not count.
TEST(View, ABeliefWithoutAConnectionIsShownAsSuch) {
  Viewed viewed = view(scenario("bug-latch-ignores-connection-loss"));
  std::int64_t i1 = lane_of(viewed.data, "i1");
  const auto& steps = viewed.data["steps"];
  std::vector<State> after = states(viewed.data);
  bool leader_disconnected = false;
  for (std::size_t i = 0; i < steps.size(); i++) {
    auto latch = after[i].find({i1, "latch"});
    auto connection = after[i].find({i1, "connection"});
    if (latch != after[i].end() && latch->second.find("LEADER") != std::string::npos && connection != after[i].end() &&
        connection->second.rfind("CONNECTED", 0) != 0) {
      leader_disconnected = true;
    }
  }
  EXPECT_TRUE(leader_disconnected);
}

TEST(View, TheSameSeedGivesTheSamePage) {
  harness::Scenario s = scenario("latch-leader-crash");
  EXPECT_EQ(view(s).data.dump(), view(s).data.dump());
  std::ostringstream page;
  ViewSink sink;
  harness::RunOptions options;
  options.sinks.push_back(&sink);
  options.message_describer = &harness::describe_message;
  harness::RunResult result = harness::runScenario(s, options);
  sink.write_html(page, sim::epoch + s.duration, "latch </script> test", result.violations);
  std::string html = page.str();
  EXPECT_NE(html.find("function ElectsimView"), std::string::npos);
  EXPECT_EQ(html.find("latch </script> test"), std::string::npos) << "a title cannot end the page's script";
}

TEST(Diff, ASeedAgainstItselfIsTheSameRun) {
  harness::Scenario s = scenario("zk-leader-crash");
  harness::RunDiff diff = harness::diff_runs(s, s, {});
  EXPECT_FALSE(diff.divergence.has_value());
  EXPECT_EQ(diff.events_a, diff.events_b);
  EXPECT_EQ(diff.a.trace_hash, diff.b.trace_hash);
}

TEST(Diff, ABugSwitchPartsTheRunsWhereItActs) {
  harness::Scenario with = scenario("bug-latch-ignores-connection-loss");
  harness::Scenario without = with;
  without.bugs.clear();
  harness::RunDiff diff = harness::diff_runs(with, without, {});
  ASSERT_TRUE(diff.divergence.has_value());
  ASSERT_TRUE(diff.divergence_time.has_value());
  EXPECT_GT(*diff.divergence, 100u) << "the election and the first leader are the same in both";
  EXPECT_FALSE(diff.before.empty());
  ASSERT_FALSE(diff.a_after.empty());
  ASSERT_FALSE(diff.b_after.empty());
  EXPECT_EQ(diff.a_after.front().index, *diff.divergence);
  EXPECT_TRUE(diff.a_after.front().kind != diff.b_after.front().kind || diff.a_after.front().fields != diff.b_after.front().fields ||
              diff.a_after.front().time != diff.b_after.front().time || diff.a_after.front().node != diff.b_after.front().node);
  // The bug's effect: the run with it violates latch-single-leader, the run without it does not.
  EXPECT_EQ(diff.a.properties.at("latch-single-leader"), properties::Verdict::violated);
  EXPECT_NE(diff.b.properties.at("latch-single-leader"), properties::Verdict::violated);
  // Two seeds part too, and everything before the divergence is the same in both.
  harness::Scenario other = with;
  other.seed = with.seed + 1;
  EXPECT_TRUE(harness::diff_runs(with, other, {}).divergence.has_value());
}

}  // namespace
