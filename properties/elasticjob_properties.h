// The properties of the ElasticJob recipe (docs/elasticjob-model.md has the precise definitions).
//
// job-single-leader (JobSingleLeader), two parts reported separately:
//   belief overlap: per job, two live, unpaused, connected instances both believe they lead at the
//     end of an instant (job.leader / job.not_leader: what isLeader() would answer; see
//     leadership_beliefs.h for "live, unpaused, connected");
//   effect overlap: a leader-only write committed by a session other than the one owning
//     leader/election/instance just before its zxid (from the servers' znode.create / znode.delete
//     events and ephemeral owners). The leader-only writes: a sharding transaction (the
//     znode.create events of sharding/{i}/instance, all at one zxid), and since PR #1472 (3.0.x)
//     the creation of the resharding flag leader/sharding/necessary while a leader node exists.
// full-coverage (FullCoverage): for each fire time T of a job that is quiet, with ZooKeeper serving
//   and an enabled instance up: at T + interval - 1 ns every item 0..N-1 is owned (committed tree)
//   by a live enabled instance, and the executions started for fire T ran every item exactly once.
//   Quiet means at least `settleSoft` after the last membership change that needs no timeout to be
//   seen (a process's first start, a graceful shutdown, disable, enable, a sharding count change)
//   and at least `settleHard` after the last other disturbance (every other fault, the end of a
//   pause, a restart, a ZooKeeper leader established).
// no-double-execution (NoDoubleExecution): no item of a job runs on two instances at overlapping
//   times (job.exec.start .. job.exec.end; a crash ends its process's executions).
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/Property.h"
#include "properties/client_sessions.h"
#include "properties/leadership_beliefs.h"

namespace properties {

class JobSingleLeader final : public Property {
 public:
  // namespacePath: the Curator namespace ElasticJob's paths live under, "/electsim".
  JobSingleLeader(sim::Simulation& sim, std::string namespacePath);
  std::string_view name() const override { return "job-single-leader"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  void finish(const RunFacts& facts) override;
  std::size_t beliefOverlaps() const { return beliefOverlaps_; }
  std::size_t effectOverlaps() const { return effectOverlaps_; }

 private:
  struct Commit {
    std::int64_t zxid = 0;
    std::int64_t session = 0;
  };
  void judge();
  void observeZnode(const sim::TraceEvent& event, bool created);
  // `what` names the write in the report ("the sharding", "the resharding flag");
  // `judgedWithoutLeader`: whether a write made while no leader node exists is an overlap too.
  void judgeLeaderOnlyWrite(const std::string& job, std::int64_t zxid, sim::NodeId server, std::string_view what,
                            bool judgedWithoutLeader);

  std::string namespacePath_;
  LeadershipBeliefs beliefs_;
  sim::Instant instant_{};
  bool dirty_ = false;
  std::map<std::string, bool> overlapping_;                          // per job: a belief overlap in progress
  ClientSessions sessions_;                                          // client session -> its process
  std::map<sim::NodeId, Commit> lastCommit_;                         // per server: the last zab.commit
  // server -> job -> zxid -> owner session of leader/election/instance from that zxid on (0: none)
  std::map<sim::NodeId, std::map<std::string, std::map<std::int64_t, std::int64_t>>> leaderOwners_;
  std::map<std::string, std::set<std::int64_t>> judgedWrites_;      // job -> zxids of leader-only writes judged
  std::size_t beliefOverlaps_ = 0;
  std::size_t effectOverlaps_ = 0;
};

// What the committed znodes and the processes say about one job at a judging instant.
struct JobCoverageSnapshot {
  bool zookeeperServing = false;
  int shardingTotalCount = 0;
  std::map<int, std::string> owners;           // sharding/{i}/instance, as committed
  std::set<std::string> liveEnabledInstances;  // ids: process up, job running, instance node present, server ENABLED
};
using JobCoverageReader = std::function<std::optional<JobCoverageSnapshot>(const std::string& job)>;

struct CoverageJob {
  std::string name;
  sim::Duration fireInterval;
};

class FullCoverage final : public Property {
 public:
  FullCoverage(sim::Simulation& sim, std::vector<CoverageJob> jobs, sim::Duration settleSoft, sim::Duration settleHard, JobCoverageReader reader);
  std::string_view name() const override { return "full-coverage"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  void finish(const RunFacts& facts) override;
  Verdict verdict() const override;
  sim::Duration settleSoft() const { return settleSoft_; }
  sim::Duration settleHard() const { return settleHard_; }
  std::size_t firesJudged() const { return firesJudged_; }

 private:
  void scheduleJudge(std::size_t job, sim::Instant fire);
  void judge(std::size_t job, sim::Instant fire);

  std::vector<CoverageJob> jobs_;
  sim::Duration settleSoft_;
  sim::Duration settleHard_;
  JobCoverageReader reader_;
  sim::Instant lastSoft_{};
  sim::Instant lastHard_{};
  // job -> fire time (ns) -> item -> instance ids that started it for that fire
  std::map<std::string, std::map<std::int64_t, std::map<int, std::vector<std::string>>>> executions_;
  // (job, process) -> the latest fire time Quartz misfired there (job.misfire)
  std::map<std::pair<std::string, sim::NodeId>, std::int64_t> misfired_;
  std::size_t firesJudged_ = 0;
};

class NoDoubleExecution final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "no-double-execution"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  struct Item {
    std::map<sim::NodeId, int> running;  // executions in progress per process
    bool reported = false;               // the current overlap was reported
  };
  std::map<std::pair<std::string, std::int64_t>, Item> items_;
};

}  // namespace properties
