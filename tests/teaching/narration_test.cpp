// Narration (`electsim run FILE --narrate[=topics]`): the topic filter, the sentences a course
// relies on (a vote adoption says why, a violation comes with what led to it), and the promise that
// narrating a run does not change it.
#include <gtest/gtest.h>

#include <optional>
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
Narrated narrate(const std::string& name, const std::string& topics, std::optional<sim::Duration> duration = std::nullopt) {
  std::ostringstream out;
  NarrationFilter filter = NarrationFilter::parse(topics);
  harness::NarrationSink sink(out, filter);
  harness::RunOptions options;
  options.timeline = false;
  options.sinks.push_back(&sink);
  if (filter.needs_messages()) options.message_describer = &harness::describe_message;
  harness::Scenario run = scenario(name);
  if (duration) run.duration = *duration;  // a shorter run, for a test that needs only its start
  harness::RunResult result = harness::runScenario(run, options);
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
  // D16: the causal chain, not the last lines: the isolate at 10 s and the SUSPENDED at 12.35 s.
  auto at = [&](double seconds, const std::string& words) {
    return std::any_of(lead_up.begin(), lead_up.end(), [&](const Line& line) {
      return line.seconds > seconds - 0.01 && line.seconds < seconds + 0.01 && line.sentence.find(words) != std::string::npos;
    });
  };
  EXPECT_TRUE(at(10.0, "is cut off from every other node")) << run.text;
  EXPECT_TRUE(at(12.354802, "Curator: SUSPENDED")) << run.text;

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

// The lead-up of the first violation of `property` in a narration, as parsed lines.
std::vector<Line> lead_up_of(const std::string& text, const std::string& property) {
  std::vector<std::string> lines = lines_of(text);
  auto violation = std::find_if(lines.begin(), lines.end(), [&](const std::string& line) { return line.find("VIOLATION of " + property) != std::string::npos; });
  std::vector<Line> lead_up;
  if (violation == lines.end() || violation + 1 == lines.end() || *(violation + 1) != "    what led to it:") return lead_up;
  // Indented by four more than a line of the run (whose time column is six wide: 100 s and more fill it).
  for (auto line = violation + 2; line != lines.end() && line->starts_with("    ") && line->size() > 4 && (*line)[4] != '(' && !line->starts_with("    what"); ++line) {
    std::optional<Line> parsed = parse_line(*line);
    if (!parsed || line->find_first_not_of(' ') < 7) break;
    lead_up.push_back(*parsed);
  }
  return lead_up;
}

bool has(const std::vector<Line>& lines, const std::string& node, const std::string& words, double from = 0, double to = 1e9) {
  return std::any_of(lines.begin(), lines.end(), [&](const Line& line) {
    return (node.empty() || line.node == node) && line.seconds >= from && line.seconds <= to && line.sentence.find(words) != std::string::npos;
  });
}

TEST(NarrationCausalChain, SyncWindowAndSplitBrainIncludeTheirFaultsAndElections) {
  // D16: latch-session-shorter-than-sync-window's chain has the 6 s partition and the expiry.
  Narrated window = narrate("latch-session-shorter-than-sync-window", "all");
  std::vector<Line> chain = lead_up_of(window.text, "latch-single-leader");
  ASSERT_FALSE(chain.empty()) << window.text;
  EXPECT_TRUE(has(chain, "-", "network partition", 5.99, 6.01)) << window.text;
  EXPECT_TRUE(has(chain, "", "expires i1's session")) << window.text;
  // es-mmn1-split-brain: the partition and es2 electing itself, with the setting that allowed it.
  Narrated es = narrate("es-mmn1-split-brain", "es,fault,property");
  std::vector<Line> split = lead_up_of(es.text, "es-");
  ASSERT_FALSE(split.empty()) << es.text;
  EXPECT_TRUE(has(split, "-", "network partition")) << es.text;
  EXPECT_TRUE(has(split, "es2", "elects itself master")) << es.text;
  EXPECT_LE(split.size(), harness::NarrationSink::context_told_max);
}

TEST(NarrationWhy, AFollowerLeavingFollowingSaysWhy) {
  // D2: ZOOKEEPER-4394's COMMIT during the sync sends zk2 back to LOOKING at 0.346856 s.
  Narrated run = narrate("latch-leader-crash", "zk");
  EXPECT_TRUE(std::regex_search(run.text, std::regex(R"(0\.346856s  zk2 +is LOOKING \(currentEpoch 1\): it leaves FOLLOWING: a COMMIT arrived during the sync[^\n]*ZOOKEEPER-4394)")))
      << run.text;
  // Every LOOKING says why, and never "no reason".
  for (const std::string& text : lines_of(run.text)) {
    if (text.find("is LOOKING") == std::string::npos) continue;
    EXPECT_TRUE(text.find(": its process has just started") != std::string::npos || text.find(": it leaves ") != std::string::npos ||
                text.find(": its election ended") != std::string::npos)
        << text;
    EXPECT_EQ(text.find("gave no reason"), std::string::npos) << text;
  }
  Narrated crash = narrate("zk-leader-crash", "zk");
  EXPECT_TRUE(std::regex_search(crash.text, std::regex(R"(is LOOKING \(currentEpoch 1\): it leaves FOLLOWING: it lost its leader zk3: the leader closed the connection)"))) << crash.text;
}

TEST(NarrationWhy, AClientDisconnectedFromAHealthyServerSaysTheServerWentLooking) {
  // D4: zk1 never failed; it went LOOKING when its leader crashed and closed its clients.
  Narrated run = narrate("zk-leader-crash", "session");
  EXPECT_TRUE(std::regex_search(run.text, std::regex(R"(w1 +disconnected from zk1: zk1 stopped serving: it went LOOKING at 20\.003304s \(it leaves FOLLOWING: it lost its leader zk3)")))
      << run.text;
  EXPECT_TRUE(std::regex_search(run.text, std::regex(R"(w2 +disconnected from zk3: zk3 went down at 20\.000000s)"))) << run.text;
}

TEST(NarrationWhy, ASessionExpiredEarlierDoesNotLiveOn) {
  // D3: zk2 expired i1's session at 9.12 s; the disconnect at 15.18 s must not say it lives on.
  Narrated run = narrate("latch-session-shorter-than-sync-window", "latch,session");
  std::vector<std::string> lines = lines_of(run.text);
  auto disconnect = std::find_if(lines.begin(), lines.end(), [](const std::string& line) { return line.find("i1    disconnected from zk1") != std::string::npos; });
  ASSERT_NE(disconnect, lines.end()) << run.text;
  EXPECT_EQ(disconnect->find("lives on"), std::string::npos) << *disconnect;
  EXPECT_NE(disconnect->find("already expired at 9.121086s"), std::string::npos) << *disconnect;
}

TEST(NarrationWhy, ElasticJobElectionsSayWhichAndWhoWon) {
  // D5: the startup election, who won (the latch, then the leader node), and the passive election
  // after the leader's crash; no raw key=value logs and no nanosecond timestamps.
  Narrated run = narrate("ej-leader-crash", "job");
  EXPECT_NE(run.text.find("runs its startup election"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("holds the election latch first and finds no leader node: writes its id into the leader node, so it wins"), std::string::npos) << run.text;
  EXPECT_NE(run.text.find("runs a passive election: the leader node"), std::string::npos) << run.text;
  EXPECT_EQ(run.text.find("next_fire="), std::string::npos) << run.text;
  EXPECT_EQ(run.text.find("listeners: job="), std::string::npos) << run.text;
  EXPECT_FALSE(std::regex_search(run.text, std::regex("[0-9]{10}"))) << "a nanosecond timestamp: " << run.text;
}

TEST(NarrationWhy, ElasticsearchNamesMinimumMasterNodes) {
  // D6: the setting behind es2's election and the commits; 0 acknowledgements needed, said so.
  Narrated run = narrate("es-mmn1-split-brain", "es");
  EXPECT_TRUE(std::regex_search(run.text, std::regex(R"(es2 +elects itself master after a ping round[^\n]*minimum_master_nodes is 1)"))) << run.text;
  EXPECT_NE(run.text.find("minimum_master_nodes is 1 and the master counts as one, so 0 acknowledgements were needed"), std::string::npos);
  EXPECT_EQ(run.text.find("enough master-eligible nodes acknowledged"), std::string::npos);
  EXPECT_EQ(run.text.find("task.submit: "), std::string::npos) << "raw key=value logs";
}

TEST(NarrationWhy, FinalizeWaitStaleNotificationsAndWireValuesAreExplained) {
  Narrated five = narrate("zk-five-servers-staggered", "zk");
  // D17: a wait over 200 ms says why; D21: a notification from a server already FOLLOWING is stale.
  EXPECT_TRUE(std::regex_search(five.text, std::regex(R"(decides: finalizeWait \(217\.[0-9]+ms: 1 notification no better than its vote came in and each restarted the 200ms poll)")))
      << five.text;
  EXPECT_TRUE(std::regex_search(five.text, std::regex(R"(3\.010334s  zk4 +hears zk2 \(LOOKING, round 1\)[^\n]*\(stale: zk2 has been FOLLOWING since 2\.212243s)"))) << five.text;
  // D18: a server's own looped-back notification is not "zk1's vote".
  Narrated cycle = narrate("bug-fle-1419-nontotal-order", "zk,to=0.05s", std::chrono::milliseconds(100));
  EXPECT_FALSE(std::regex_search(cycle.text, std::regex(R"(  (zk[0-9]) +adopts \1's vote)"))) << cycle.text;
  EXPECT_EQ(cycle.text.find("cut short after 50us by a better vote; hears"), std::string::npos);
  // D22: -1 on the wire is explained.
  Narrated net = narrate("latch-leader-crash", "net,to=1s");
  EXPECT_NE(net.text.find("UPTODATE 0xffffffffffffffff (0xffffffffffffffff is -1: no zxid)"), std::string::npos) << net.text.substr(0, 3000);
}

TEST(NarrationFolding, Fle1419IsShortWithItsViolation) {
  // D1: 5 million lines before folding; the violation and every role change stay.
  // Its violation comes at 34.2 s; the 150 s run is cut at 40 s to keep the test fast.
  Narrated run = narrate("bug-fle-1419-nontotal-order", "all", std::chrono::seconds(40));
  std::vector<std::string> lines = lines_of(run.text);
  EXPECT_LT(lines.size(), 3000U);
  EXPECT_LT(run.text.size(), 1000000U);
  EXPECT_NE(run.text.find("VIOLATION of eventual-leader"), std::string::npos);
  EXPECT_TRUE(std::regex_search(run.text, std::regex(R"(\[repeated [0-9,]+ more times from [0-9.]+s to [0-9.]+s; the last:\] )")));
  // The time column never goes back (folded lines are told when their repeats end).
  double previous = 0;
  for (const std::string& text : lines) {
    if (text.starts_with("    ")) continue;  // a violation's causal chain
    std::optional<Line> line = parse_line(text);
    if (!line) continue;
    EXPECT_GE(line->seconds, previous) << text;
    previous = line->seconds;
  }
}

TEST(NarrationFolding, RoleChangesAreNeverFolded) {
  Narrated run = narrate("zk-leader-crash", "zk");
  for (const std::string& text : lines_of(run.text)) {
    if (text.find("[repeated") == std::string::npos) continue;
    EXPECT_EQ(text.find("is LOOKING"), std::string::npos) << text;
    EXPECT_EQ(text.find("decides:"), std::string::npos) << text;
  }
  // Every decision of the run is told: one per zk.state FOLLOWING or LEADING.
  std::size_t decides = 0;
  for (const std::string& text : lines_of(run.text)) decides += text.find("decides:") != std::string::npos ? 1 : 0;
  EXPECT_GE(decides, 5U) << run.text;
}

TEST(NarrationFilter, TimeWindowAndNodes) {
  NarrationFilter window = NarrationFilter::parse("zk,from=2s,to=2.3s,nodes=zk3+zk1");
  EXPECT_EQ(window.describe(), "zk; from 2s; to 2.3s; nodes zk3+zk1");
  EXPECT_TRUE(NarrationFilter::parse("from=1s").wants(NarrationTopic::latch)) << "no topic: every topic";
  Narrated run = narrate("zk-five-servers-staggered", "zk,from=2s,to=2.3s,nodes=zk3+zk1");
  std::vector<std::string> lines = lines_of(run.text);
  ASSERT_FALSE(lines.empty());
  for (const std::string& text : lines) {
    std::optional<Line> line = parse_line(text);
    ASSERT_TRUE(line) << text;
    EXPECT_GE(line->seconds, 2.0) << text;
    EXPECT_LE(line->seconds, 2.3) << text;
    EXPECT_TRUE(line->node == "zk3" || line->node == "zk1" || line->sentence.find("zk3") != std::string::npos ||
                line->sentence.find("zk1") != std::string::npos)
        << text;
  }
  for (const std::string bad : {"from=2x", "to=-1s", "nodes=", "nodes=zk1+", "window=2s", "from=5s,to=2s", "zk,,latch"}) {
    EXPECT_THROW(NarrationFilter::parse(bad), std::invalid_argument) << bad;
  }
  try {
    NarrationFilter::parse("from=soon");
  } catch (const std::invalid_argument& error) {
    EXPECT_NE(std::string(error.what()).find("from=2s"), std::string::npos) << error.what();
  }
}

TEST(Narration, SameSeedSameNarration) {
  for (const std::string name : {"ej-leader-crash", "bug-latch-ignores-connection-loss"}) {
    EXPECT_EQ(narrate(name, "all").text, narrate(name, "all").text) << name;
  }
}

}  // namespace
