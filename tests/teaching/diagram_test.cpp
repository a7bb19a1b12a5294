// Diagrams (`electsim run FILE --diagram OUT.html`): what the page's data holds (a lane per node,
// arrows for messages, faults shaded, leader periods), that the page is self-contained, and that
// drawing a run does not change it. tests/teaching/diagram_screenshot.py looks at the page in a
// real browser.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "harness/diagram.h"
#include "harness/message_summary.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"

namespace {

using json = nlohmann::ordered_json;
constexpr std::int64_t second = 1'000'000'000;

struct Drawn {
  json data;
  std::string html;
  harness::RunResult result;
};

Drawn draw(const std::string& name) {
  harness::Scenario scenario = harness::parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/" + name + ".yaml");
  harness::DiagramSink sink;
  harness::RunOptions options;
  options.timeline = false;
  options.sinks.push_back(&sink);
  options.message_describer = &harness::describe_message;
  harness::RunResult result = harness::runScenario(scenario, options);
  sim::Instant end = sim::epoch + scenario.duration;
  std::ostringstream html;
  sink.write_html(html, end, name, result.violations);
  return {sink.data(end, name, result.violations), html.str(), std::move(result)};
}

std::size_t lane(const json& data, const std::string& node) {
  for (std::size_t i = 0; i < data["lanes"].size(); i++) {
    if (data["lanes"][i]["name"] == node) return i;
  }
  ADD_FAILURE() << "no lane for " << node;
  return data["lanes"].size();
}

// The bands of one kind on one lane, as [from, to] in nanoseconds.
std::vector<std::pair<std::int64_t, std::int64_t>> bands(const json& data, const std::string& node, const std::string& kind) {
  std::vector<std::pair<std::int64_t, std::int64_t>> found;
  std::size_t index = lane(data, node);
  for (const json& band : data["bands"]) {  // [lane, kind, label, from, to]
    if (band[0] == index && band[1] == kind) found.emplace_back(band[3].get<std::int64_t>(), band[4].get<std::int64_t>());
  }
  return found;
}

TEST(Diagram, HasALanePerNodeArrowsAndLeaderPeriods) {
  Drawn crash = draw("latch-leader-crash");
  const json& data = crash.data;
  std::vector<std::string> names;
  for (const json& lane : data["lanes"]) names.push_back(lane["name"]);
  EXPECT_EQ(names, (std::vector<std::string>{"zk1", "zk2", "zk3", "i1", "i2", "i3"}));
  EXPECT_EQ(data["end"], 90 * second);

  // Arrows: election and Zab traffic among servers, client traffic to and from instances, each
  // drawn from its sender's lane at its send time to its receiver's lane no earlier.
  std::set<std::string> categories;
  std::size_t delivered = 0;
  for (const json& message : data["messages"]) {  // [from, to, sent, received, category, heartbeat, what, lost]
    categories.insert(message[4].get<std::string>());
    EXPECT_NE(message[0], message[1]);
    EXPECT_FALSE(message[6].get<std::string>().empty()) << "every arrow says what it carries";
    if (!message[3].is_null() && message[7] == "") {
      EXPECT_GT(message[3].get<std::int64_t>(), message[2].get<std::int64_t>());
      delivered++;
    }
  }
  EXPECT_GT(delivered, 100U);
  for (const char* category : {"election", "zab", "client"}) EXPECT_TRUE(categories.contains(category)) << category;

  // Leader periods: a LEADING server, and i1 leading the latch until its crash at 10 s.
  std::size_t leading = 0;
  for (const char* server : {"zk1", "zk2", "zk3"}) leading += bands(data, server, "zk-LEADING").size();
  EXPECT_EQ(leading, 1U);
  auto i1_leads = bands(data, "i1", "latch-leader");
  ASSERT_EQ(i1_leads.size(), 1U);
  EXPECT_EQ(i1_leads[0].second, 10 * second);
  EXPECT_FALSE(bands(data, "i2", "latch-leader").empty()) << "the next contender leads after i1's session expires";

  // The crash is shaded from 10 s to the restart at 30 s.
  auto down = bands(data, "i1", "down");
  ASSERT_EQ(down.size(), 1U);
  EXPECT_EQ(down[0], std::make_pair(10 * second, 30 * second));
  EXPECT_TRUE(data["violations"].empty());
}

TEST(Diagram, ShadesPausesAndPartitions) {
  Drawn paused = draw("latch-leader-paused");
  auto pause = bands(paused.data, "i1", "paused");
  ASSERT_EQ(pause.size(), 1U);
  EXPECT_EQ(pause[0], std::make_pair(10 * second, 25 * second));

  Drawn cut = draw("latch-leader-partitioned");
  auto isolated = bands(cut.data, "i1", "cut");
  ASSERT_EQ(isolated.size(), 1U);
  EXPECT_EQ(isolated[0], std::make_pair(10 * second, 30 * second));
  // The other end of each cut link is shaded lightly: the servers lost only their link to i1.
  EXPECT_TRUE(bands(cut.data, "zk1", "cut").empty());
  EXPECT_EQ(bands(cut.data, "zk1", "cut-some"), isolated);
}

TEST(Diagram, MarksViolations) {
  Drawn bug = draw("bug-latch-ignores-connection-loss");
  ASSERT_FALSE(bug.data["violations"].empty());
  EXPECT_NE(bug.data["violations"][0][1].get<std::string>().find("latch-single-leader"), std::string::npos);
  // Two believers at once: i1's latch band outlasts the moment i2's begins.
  auto i1 = bands(bug.data, "i1", "latch-leader");
  auto i2 = bands(bug.data, "i2", "latch-leader");
  ASSERT_FALSE(i1.empty());
  ASSERT_FALSE(i2.empty());
  EXPECT_GT(i1.back().second, i2.front().first);
  // D10: most of that overlap is i1 believing without a connection, which the checker does not
  // count; the lane says so with a "disconnected" band inside i1's latch band.
  auto disconnected = bands(bug.data, "i1", "disconnected");
  ASSERT_FALSE(disconnected.empty());
  EXPECT_LT(disconnected.front().first, i2.front().first);
  EXPECT_GT(disconnected.front().first, i1.front().first);
}

// D7: es2's master band began 30 s after es-single-master says it acted as master; it begins at its
// first commit as master, as the checker's tenure does.
TEST(Diagram, AnElasticsearchMasterBandStartsAtItsFirstCommit) {
  Drawn split = draw("es-mmn1-split-brain");
  auto es2 = bands(split.data, "es2", "es-master");
  ASSERT_FALSE(es2.empty());
  EXPECT_LT(es2.front().first, 110'000'000'000) << "es2 commits as master from 103.06 s";
}

TEST(Diagram, ThePageIsSelfContained) {
  Drawn crash = draw("latch-leader-crash");
  const std::string& html = crash.html;
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>"));
  EXPECT_NE(html.find("<svg id=\"diagram\""), std::string::npos);
  EXPECT_NE(html.find("<style>"), std::string::npos);
  EXPECT_NE(html.find("id=\"electsim-data\""), std::string::npos);
  // Nothing is fetched: no external script, style sheet, image, font or frame, and no URL but the
  // SVG namespace name (an identifier, never loaded).
  for (const char* fetching : {" src=", " href=", "<link", "@import", "url(http", "fetch(", "XMLHttpRequest", "<iframe", "<img"}) {
    EXPECT_EQ(html.find(fetching), std::string::npos) << fetching;
  }
  std::string without_namespace = html;
  for (std::size_t at; (at = without_namespace.find("http://www.w3.org/2000/svg")) != std::string::npos;) without_namespace.erase(at, 26);
  EXPECT_EQ(without_namespace.find("http://"), std::string::npos);
  EXPECT_EQ(without_namespace.find("https://"), std::string::npos);
  // The run's data sits inside a <script> element: whatever the messages say, it cannot end it.
  std::size_t data_start = html.find("id=\"electsim-data\">");
  std::size_t data_end = html.find("</script>", data_start);
  ASSERT_NE(data_end, std::string::npos);
  json embedded = json::parse(html.substr(data_start + 19, data_end - data_start - 19));
  EXPECT_EQ(embedded, crash.data);
  EXPECT_EQ(html.find("<!--", data_start), std::string::npos);
}

TEST(Diagram, DoesNotChangeTheRun) {
  for (const std::string name : {"latch-leader-crash", "ej-leader-crash", "es-bridge-partition"}) {
    harness::RunOptions plain;
    plain.timeline = false;
    harness::RunResult alone = harness::runScenario(harness::parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/" + name + ".yaml"), plain);
    Drawn drawn = draw(name);
    EXPECT_EQ(drawn.result.trace_hash, alone.trace_hash) << name;
    EXPECT_EQ(drawn.result.events, alone.events) << name;
    EXPECT_GT(drawn.data["messages"].size(), 0U) << name;
  }
}

}  // namespace
