// The configuration of an Elasticsearch 6.8 cluster running Zen1 discovery (discovery.zen.*), the
// cluster-task workload that drives it, and the bug switches. Defaults are Elasticsearch's.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/es/Priority.h"
#include "sim/time.h"

namespace es {

using namespace std::chrono_literals;

// Switches that re-introduce a known mistake. Off by default.
struct EsBugs {
  // es-2488-local-elect: Elasticsearch 1.x before the 1.4 fix of issue #2488, as a whole:
  //  - a node whose master fault detection fails removes the master from its own, possibly stale,
  //    node list and elects from that list without pinging (by node id); a node that elects itself
  //    becomes master at once (1.4 made a node that lost its master rejoin and ping instead);
  //  - an elected master does not wait for minimum_master_nodes - 1 joins (that came in 2.0, #12161);
  //  - publication is single-phase and sends full states (diffs came in 2.0, the two-phase commit in
  //    5.0, #13062); a follower applies a state from whichever master sends it (1.4 still did), and a
  //    master does not count fault-detection pings from another master (added by the 1.4 work);
  //  - candidates are ordered by node id only (cluster-state versions in pings came in 5.0, #20384).
  bool local_elect_2488 = false;
  // es-master-service-fifo: a teaching switch (no Elasticsearch release): MasterService's executor
  // ignores priorities and runs its queue in insertion order, a plain FIFO. An URGENT task (a node
  // join, a shard failure) then waits behind every LANGUID one queued before it; es-task-order
  // catches it.
  bool fifo_master_service = false;

  bool any() const { return local_elect_2488 || fifo_master_service; }
  // The switches by their scenario names ("es-2488-local-elect", "es-master-service-fifo").
  std::vector<std::string_view> enabled() const;
  // False for an unknown name.
  bool enable(std::string_view name);
};

// The cluster-task workload: while a node is the elected master, it submits "put-key" tasks at
// `rate` per second (intervals uniform in [0.5, 1.5] x 1/rate, from the node's own random stream),
// each with a priority drawn uniformly from `priorities`. Task n of node esK sets metadata key
// "key-<n mod keys>" to "esK#<n>": every task changes the state, deterministically.
// `sharedExecutor`: false, each task is a ClusterStateUpdateTask, its own executor, and runs alone
// (as most of Elasticsearch's tasks do); true, every task of the node goes through one
// PutKeysExecutor, the batching key, so the tasks waiting when one of them runs form one batch, one
// execution and one publication (as ShardStateAction's shard-started tasks do).
// The workload stands for clients that wait for their task's answer: while `pending_tasks_max` tasks
// already wait on the master, a new one is held back (counted, not submitted). Elasticsearch's own
// queue is unbounded and its clients time out and retry; the bound keeps an overload (a rate above
// what publication can carry) a slow master rather than an unbounded heap.
struct ClusterTasks {
  static constexpr std::size_t pending_tasks_max = 50'000;
  double rate = 0;  // tasks per second; 0: none
  std::vector<Priority> priorities{Priority::NORMAL};
  std::uint32_t keys = 16;
  bool sharedExecutor = false;
  // 1/rate, rounded to a whole number of nanoseconds once (the only floating-point step).
  sim::Duration meanInterval() const;
};

struct EsConfig {
  std::size_t nodes = 3;                           // es1..esN, all master-eligible
  int minimum_master_nodes = 2;                    // discovery.zen.minimum_master_nodes (-1: unset)
  sim::Duration ping_timeout = 3s;                 // discovery.zen.ping_timeout
  sim::Duration commit_timeout = 30s;              // discovery.zen.commit_timeout
  sim::Duration publish_timeout = 30s;             // discovery.zen.publish_timeout
  sim::Duration fd_ping_interval = 1s;             // discovery.zen.fd.ping_interval
  sim::Duration fd_ping_timeout = 30s;             // discovery.zen.fd.ping_timeout
  int fd_ping_retries = 3;                         // discovery.zen.fd.ping_retries
  int join_retry_attempts = 3;                     // discovery.zen.join_retry_attempts
  sim::Duration join_retry_delay = 100ms;          // discovery.zen.join_retry_delay
  int max_pings_from_another_master = 3;           // discovery.zen.max_pings_from_another_master
  std::size_t max_pending_cluster_states = 25;     // discovery.zen.publish.max_pending_cluster_states
  bool publish_diff = true;                        // discovery.zen.publish_diff.enable
  sim::Duration connect_timeout = 30s;             // transport.tcp.connect_timeout
  ClusterTasks cluster_tasks;
  EsBugs bugs;

  // discovery.zen.join_timeout: 20 x ping_timeout.
  sim::Duration joinTimeout() const { return ping_timeout * 20; }
  // discovery.zen.master_election.wait_for_joins_timeout: join_timeout / 2.
  sim::Duration waitForJoinsTimeout() const { return joinTimeout() / 2; }
  // How long fault detection takes to declare a silent peer dead: the first ping after one
  // interval, then `retries` pings that each time out.
  sim::Duration faultDetectionTime() const { return fd_ping_interval + fd_ping_timeout * fd_ping_retries; }
  // The bound within which, once every fault has healed, one master that every node follows must
  // exist (es-eventual-master). A sum of the real timeouts; see docs/es-model.md.
  sim::Duration stabilisationTime() const;
  // Throws std::invalid_argument naming the first bad setting.
  void validate() const;
};

}  // namespace es
