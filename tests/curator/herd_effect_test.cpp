// The herd effect of source 003, measured: when the leader leaves, how many contenders are
// notified, how many watch notifications the servers send, and how many requests the clients
// make. Curator watches only the predecessor (one notification per release); the
// latch_watches_parent switch makes every contender watch the latch parent (n - 1).
//
// The counts for 2..200 contenders are printed as JSON lines starting with "HERD " (and recorded
// as test properties) for the notebooks.
#include <nlohmann/json.hpp>

#include "latch_fixture.h"
#include "model/curator/LockInternals.h"

namespace curator_test {
namespace {

struct HerdCounts {
  int contenders = 0;
  bool watchesParent = false;
  std::uint64_t notifications = 0;  // node events delivered to STARTED latches' watchers
  std::uint64_t watchFires = 0;     // notifications the servers sent about the latch's znodes
  std::uint64_t requests = 0;       // ZooKeeper requests all clients made
  sim::Duration handover{0};        // from close() to the next latch.leader
};

HerdCounts measureRelease(int contenders, bool watchesParent) {
  Cluster cluster;
  curator::CuratorBugs bugs;
  bugs.latch_watches_parent = watchesParent;
  auto latches = addLatches(cluster, contenders, 10s, bugs);
  // Joins 100 ms apart, so each join's wave of re-listing settles before the next: the model's
  // client registers a watch only when the awaiting coroutine resumes, so a notification that
  // arrives in the same instant as the reply that set its watch is dropped (see the report).
  startInOrder(cluster, latches, 100ms);
  cluster.sim.run_for(5s);
  // Who leads and who is next in the queue (start order does not fix the queue order exactly).
  auto leaders = leadersOf(latches);
  EXPECT_EQ(leaders.size(), 1u);
  std::vector<std::string> queue = curator::LockInternals::getSortedChildren("latch-", latchChildren(cluster));
  EXPECT_EQ(queue.size(), static_cast<std::size_t>(contenders));
  curator::LeaderLatchInstance* leader = leaders.empty() ? latches[0] : leaders[0];
  curator::LeaderLatchInstance* successor = nullptr;
  for (auto* latch : latches) {
    if (queue.size() > 1 && latch->latch()->getOurPath() == latch_path + "/" + queue[1]) successor = latch;
  }
  EXPECT_NE(successor, nullptr);
  EXPECT_EQ(*leader->latch()->getOurPath(), latch_path + "/" + queue[0]);
  auto sumNotifications = [&] {
    std::uint64_t total = 0;
    for (auto* latch : latches) total += latch->latch()->watchNotifications();
    return total;
  };
  auto sumRequests = [&] {
    std::uint64_t total = 0;
    for (auto* latch : latches) total += latch->framework()->requestCounts().total();
    return total;
  };
  auto countFires = [&] {
    std::uint64_t total = 0;
    for (const TraceRecorder::Event& event : cluster.trace.events) {
      if (event.kind == "watch.fire" && event.field("path").rfind(latch_path, 0) == 0) total++;
    }
    return total;
  };
  HerdCounts counts;
  counts.contenders = contenders;
  counts.watchesParent = watchesParent;
  std::uint64_t notificationsBefore = sumNotifications();
  std::uint64_t requestsBefore = sumRequests();
  std::uint64_t firesBefore = countFires();
  sim::Instant close = cluster.sim.now();
  leader->closeLatch();
  cluster.sim.run_for(3s);
  EXPECT_EQ(leadersOf(latches), std::vector<curator::LeaderLatchInstance*>{successor});
  counts.notifications = sumNotifications() - notificationsBefore;
  counts.requests = sumRequests() - requestsBefore;
  counts.watchFires = countFires() - firesBefore;
  std::vector<TraceRecorder::Event> led = cluster.trace.of("latch.leader", successor->id());
  if (!led.empty()) counts.handover = led.back().time - close;
  return counts;
}

std::string toJson(const HerdCounts& counts) {
  nlohmann::json line = {{"contenders", counts.contenders},
                         {"watches_parent", counts.watchesParent},
                         {"notifications", counts.notifications},
                         {"watch_fire_messages", counts.watchFires},
                         {"zk_requests", counts.requests},
                         {"handover_ms", sim::millis(counts.handover)}};
  return line.dump();
}

TEST(HerdEffect, OnlyTheSuccessorHearsThatTheLeaderLeft) {
  HerdCounts counts = measureRelease(5, false);
  EXPECT_EQ(counts.notifications, 1u);
  EXPECT_EQ(counts.watchFires, 1u);
  // delete (the leaver), getChildren + getData (the owner check) by the successor.
  EXPECT_EQ(counts.requests, 3u);
}

TEST(HerdEffect, WatchingTheParentWakesEveryContender) {
  HerdCounts counts = measureRelease(5, true);
  EXPECT_EQ(counts.notifications, 4u);  // every remaining contender
  EXPECT_GE(counts.watchFires, 4u);      // and the leaver's own parent watch, still on the server
  EXPECT_LE(counts.watchFires, 5u);
  EXPECT_GE(counts.requests, 1u + 4u);   // every one of them lists the children again
}

TEST(HerdEffect, CountsFromTwoToTwoHundredContenders) {
  for (int contenders : {2, 5, 10, 20, 50, 100, 200}) {
    for (bool watchesParent : {false, true}) {
      HerdCounts counts = measureRelease(contenders, watchesParent);
      std::string json = toJson(counts);
      std::cout << "HERD " << json << "\n";
      RecordProperty("herd_" + std::to_string(contenders) + (watchesParent ? "_parent" : "_predecessor"), json);
      auto remaining = static_cast<std::uint64_t>(contenders - 1);
      EXPECT_EQ(counts.notifications, watchesParent ? remaining : 1u) << json;
      if (watchesParent) {
        EXPECT_GE(counts.requests, remaining + 1) << json;
      } else {
        EXPECT_EQ(counts.watchFires, 1u) << json;
      }
    }
  }
}

}  // namespace
}  // namespace curator_test
