// Narration (`electsim run FILE --narrate[=topics]`): the topic filter, the sentences a course
// relies on (a vote adoption says why, a violation comes with what led to it), and the promise that
// narrating a run does not change it.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "harness/message_summary.h"
#include "harness/narration.h"
#include "harness/runner.h"
#include "harness/scenario_parser.h"

namespace {

using harness::NarrationFilter;
using harness::NarrationTopic;

harness::Scenario scenario(const std::string& name) { return harness::parse_scenario_file(std::string(ELECTSIM_SCENARIOS_DIR) + "/" + name + ".yaml"); }

struct Narrated {
  std::string text;
  harness::RunResult result;
};

// Runs a scenario the way `electsim run --narrate=LIST` does, into a string.
Narrated narrate(const std::string& name, const std::string& topics) {
  std::ostringstream out;
  NarrationFilter filter = NarrationFilter::parse(topics);
  harness::NarrationSink sink(out, filter);
  harness::RunOptions options;
  options.timeline = false;
  options.sinks.push_back(&sink);
  if (filter.wants_messages()) options.message_describer = &harness::describe_message;
  harness::RunResult result = harness::runScenario(scenario(name), options);
  sink.finish(result.violations);
  return {out.str(), std::move(result)};
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

// A narration line is "<time>s  <node>  <sentence>", possibly indented (the lead-up of a violation).
struct Line {
  double seconds = 0;
  std::string node;
  std::string sentence;
};
std::optional<Line> parse_line(const std::string& text) {
  static const std::regex shape(R"(^\s*([0-9]+\.[0-9]{6})s  (\S+)\s+(.*)$)");
  std::smatch match;
  if (!std::regex_match(text, match, shape)) return std::nullopt;
  return Line{std::stod(match[1]), match[2], match[3]};
}

bool is_server(const std::string& node) { return std::regex_match(node, std::regex("zk[0-9]+")); }

TEST(NarrationFilter, ParsesTopicListsAndRefusesUnknownTopics) {
  NarrationFilter some = NarrationFilter::parse("zk, latch");
  EXPECT_TRUE(some.wants(NarrationTopic::zk));
  EXPECT_TRUE(some.wants(NarrationTopic::latch));
  EXPECT_FALSE(some.wants(NarrationTopic::job));
  EXPECT_FALSE(some.wants(NarrationTopic::property));
  EXPECT_EQ(some.describe(), "zk, latch");

  // "all" is every topic but the messages, which are many and asked for by name.
  NarrationFilter all = NarrationFilter::parse("all");
  EXPECT_TRUE(all.wants(NarrationTopic::es));
  EXPECT_FALSE(all.wants_messages());
  EXPECT_TRUE(NarrationFilter::parse("all,net").wants_messages());
  EXPECT_EQ(NarrationFilter::parse("").describe(), all.describe());

  try {
    NarrationFilter::parse("zk,frob");
    FAIL() << "an unknown topic was accepted";
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("unknown narration topic 'frob'"), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find("latch"), std::string::npos) << "the message lists the known topics: " << error.what();
  }
}

TEST(Narration, TheZkFilterShowsOnlyTheEnsemblesStory) {
  // A LeaderLatch run has all of it: the election, sessions, watches, the latch, a crash.
  Narrated zk = narrate("latch-leader-crash", "zk");
  Narrated all = narrate("latch-leader-crash", "all");
  std::vector<std::string> zk_lines = lines_of(zk.text);
  ASSERT_GT(zk_lines.size(), 10U) << zk.text;
  for (const std::string& text : zk_lines) {
    std::optional<Line> line = parse_line(text);
    ASSERT_TRUE(line) << "not a narration line: " << text;
    EXPECT_TRUE(is_server(line->node)) << "--narrate=zk told a sentence of a client: " << text;
    EXPECT_EQ(line->sentence.find("Curator"), std::string::npos) << text;
    EXPECT_EQ(line->sentence.find("latch"), std::string::npos) << text;
    // Filtering chooses sentences; it never rewrites one.
    EXPECT_NE(all.text.find(text + "\n"), std::string::npos) << "not in the unfiltered narration: " << text;
  }
  // ... while the whole story has the clients' side too, which the zk filter left out.
  EXPECT_NE(all.text.find("becomes leader of /electsim/latch"), std::string::npos);
  EXPECT_NE(all.text.find("Curator: CONNECTED"), std::string::npos);
  EXPECT_GT(lines_of(all.text).size(), zk_lines.size());

  Narrated latch = narrate("latch-leader-crash", "latch");
  EXPECT_NE(latch.text.find("becomes leader of /electsim/latch"), std::string::npos);
  EXPECT_EQ(latch.text.find("adopts"), std::string::npos) << "votes are zk's topic, not latch's";
}

TEST(Narration, AVoteAdoptionSaysWhy) {
  // Source 002's five fresh servers: every vote in round 1 has zxid 0 and epoch 0, so a server
  // adopts a vote only for its higher sid, and the sentence says so.
  Narrated five = narrate("zk-five-servers-staggered", "zk");
  std::regex adoption(R"(  zk([0-9]) +adopts zk([0-9])'s vote[^:]*: same peerEpoch and zxid, higher sid \(it voted for zk[0-9] \(zxid 0x0, peerEpoch 0\)\))");
  std::smatch match;
  ASSERT_TRUE(std::regex_search(five.text, match, adoption)) << five.text;
  EXPECT_NE(match[1], match[2]);
  EXPECT_NE(five.text.find("waits finalizeWait for a better vote"), std::string::npos);
  EXPECT_NE(five.text.find("decides: finalizeWait"), std::string::npos);
  EXPECT_TRUE(std::regex_search(five.text, std::regex(R"(  zk3 +decides: finalizeWait[^\n]*-> LEADING\n)"))) << "source 002: server 3 leads";

  // With logs of different lengths, the reason is the zxid.
  Narrated logged = narrate("zk-most-logged-wins", "zk");
  EXPECT_TRUE(std::regex_search(logged.text, std::regex(R"(adopts zk[0-9]'s vote[^:]*: [^(]*higher zxid)"))) << logged.text;
}

TEST(Narration, APersistentRecursiveWatchIsToldAsOneThatStays) {
  // ElasticJob's CuratorCache: one addWatch per instance on the job's root (Curator 5 over a 3.6+
  // client), whose events do not use it up.
  Narrated crash = narrate("ej-leader-crash", "watch");
  EXPECT_TRUE(std::regex_search(crash.text, std::regex(R"(i1 adds a persistent recursive watch on /electsim/order-sync: it stays)"))) << crash.text;
  EXPECT_TRUE(std::regex_search(crash.text, std::regex(R"(notifies [^\n]*: NodeCreated /electsim/order-sync/[^\n]* \(the watch stays\))")));
}

TEST(Narration, AViolationIsToldWithTheEventsThatLedToIt) {
  // A LeaderLatch that ignores SUSPENDED and LOST: the isolated leader keeps believing while the
  // next contender takes over; after the heal both believe.
  Narrated run = narrate("bug-latch-ignores-connection-loss", "all");
  std::vector<std::string> lines = lines_of(run.text);
  auto violation = std::find_if(lines.begin(), lines.end(), [](const std::string& line) { return line.find("VIOLATION of latch-single-leader") != std::string::npos; });
  ASSERT_NE(violation, lines.end()) << run.text;
  std::optional<Line> told = parse_line(*violation);
  ASSERT_TRUE(told);
  ASSERT_NE(violation + 1, lines.end());
  EXPECT_EQ(*(violation + 1), "    what led to it:");

  // The lead-up: indented, in time order, not after the violation, about the nodes it names.
  std::vector<Line> lead_up;
  for (auto line = violation + 2; line != lines.end() && line->starts_with("        "); ++line) {
    std::optional<Line> parsed = parse_line(*line);
    ASSERT_TRUE(parsed) << *line;
    lead_up.push_back(*parsed);
  }
  ASSERT_GE(lead_up.size(), 3U) << run.text;
  EXPECT_LE(lead_up.size(), harness::NarrationSink::context_told_max);
  for (std::size_t i = 0; i < lead_up.size(); i++) {
    EXPECT_LE(lead_up[i].seconds, told->seconds);
    if (i > 0) {
      EXPECT_LE(lead_up[i - 1].seconds, lead_up[i].seconds);
    }
  }
  auto says = [&](const std::string& words) {
    return std::any_of(lead_up.begin(), lead_up.end(), [&](const Line& line) { return line.sentence.find(words) != std::string::npos; });
  };
  EXPECT_TRUE(says("becomes leader of /electsim/latch")) << "the second leader's takeover";
  EXPECT_TRUE(says("Curator: LOST")) << "the connection loss the buggy latch ignored";

  // Only the property topic: the violation and its lead-up still come (of any topic).
  Narrated only = narrate("bug-latch-ignores-connection-loss", "property");
  EXPECT_NE(only.text.find("VIOLATION of latch-single-leader"), std::string::npos);
  EXPECT_NE(only.text.find("what led to it:"), std::string::npos);
  for (const std::string& line : lines_of(only.text)) {
    bool part_of_a_violation = line.find("VIOLATION of ") != std::string::npos || line.starts_with("    ");
    EXPECT_TRUE(part_of_a_violation) << "--narrate=property told more than violations: " << line;
  }
}

TEST(Narration, DoesNotChangeTheRun) {
  // Narration and the message trace are observers: same events, same trace hash.
  for (const std::string name : {"latch-leader-crash", "zk-leader-isolated", "es-master-crash"}) {
    harness::RunOptions plain;
    plain.timeline = false;
    harness::RunResult alone = harness::runScenario(scenario(name), plain);
    Narrated told = narrate(name, "all,net");
    EXPECT_EQ(told.result.trace_hash, alone.trace_hash) << name;
    EXPECT_EQ(told.result.events, alone.events) << name;
    std::vector<std::string> lines = lines_of(told.text);
    EXPECT_TRUE(std::any_of(lines.begin(), lines.end(), [](const std::string& text) {
      std::optional<Line> line = parse_line(text);
      return line && line->sentence.starts_with("<- ");
    })) << name << ": net narrates each message received";
  }
}

}  // namespace
