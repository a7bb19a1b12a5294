// ListenerNotifierManager (3.0.2+, PR #2092): one single-thread executor per job,
// "ListenerNotify-{jobName}", on which every data listener of the job runs. Curator's cache hands
// each (listener, event) pair to the executor as its own task, so listeners of one job run one at a
// time in submission order, and a listener that blocks (electLeader on the latch,
// isLeaderUntilBlock's 100 ms loop, isEnableServer's 1 s of retries) delays every later event of
// that job, while the cache itself keeps up to date.
//
// Here the executor is a queue and one coroutine. shutdown() is ExecutorService.shutdown(): queued
// tasks still run, new ones are rejected (Curator logs the RejectedExecutionException).
//
// Like every long-lived coroutine of an ElasticJob process, the worker runs in the node's own
// process scope: a crash destroys all of them before any object they use (ElasticJobInstance).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/curator/ChildData.h"
#include "model/elasticjob/DataChangedEvent.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace elasticjob {

class JobNotifyExecutor {
 public:
  // A LinkedBlockingQueue is unbounded; a run that queues this many events has a runaway listener.
  // A job's first sharding of 10,000 items (the scenario maximum) gives every instance two cache
  // events an item, each queued once for every listener of the job (about ten): 200,000 at once,
  // and more arrive while the first are handled (up to half a million at 100 instances).
  static constexpr std::size_t queue_max = 2'000'000;

  JobNotifyExecutor(sim::Node& node, std::string jobName);
  JobNotifyExecutor(const JobNotifyExecutor&) = delete;
  JobNotifyExecutor& operator=(const JobNotifyExecutor&) = delete;

  void start();
  // executor.execute(() -> cacheListener.event(type, oldData, newData)) for a listener that
  // ZookeeperRegistryCenter.watch wrapped: the work makes the DataChangedEvent of `node` (the path
  // without the namespace's `namespaceLength` characters) when it runs, and hands it to `listener`.
  // A queued work holds the cache's shared copy of the node, not an event of its own: a first
  // sharding of 10,000 items queues some 200,000 of them on every instance.
  void execute(DataChangedEventListener& listener, DataChangedEvent::Type type, curator::SharedChildData node, std::size_t namespaceLength);
  void shutdown();
  bool isShutdown() const { return shutdown_; }
  // Notifications queued and not started.
  std::size_t pending() const { return queued_; }
  // Queue entries holding them (a run of listeners for one change is one entry).
  std::size_t entries() const { return queue_.size(); }

 private:
  // A run of notifications of one change: the listeners firstListener, firstListener + 1, ...
  // (in the order this executor first saw them), each handed the same node and type. One change
  // queues one Runnable per listener of the job in Java, one after another: those consecutive
  // Runnables are one entry here, 16 bytes where ten entries took 240 (a first sharding of 10,000
  // items queues some 200,000 notifications on every instance). They run one by one, in order,
  // exactly as the separate Runnables would.
  struct Work {
    curator::SharedChildData node;
    std::uint16_t firstListener = 0;
    std::uint16_t listenerCount = 0;
    std::uint16_t namespaceLength = 0;
    DataChangedEvent::Type type = DataChangedEvent::Type::IGNORED;
  };
  static_assert(sizeof(Work) == 16);
  std::uint16_t listenerIndex(DataChangedEventListener& listener);
  sim::Task<void> run();

  sim::Node& node_;
  std::string jobName_;
  bool started_ = false;
  bool shutdown_ = false;
  std::vector<DataChangedEventListener*> listeners_;  // each listener once, in the order first seen
  std::size_t queued_ = 0;
  sim::Queue<Work> queue_;
};

// ListenerNotifierManager: the executors of one process (a JVM singleton in Java), by job name.
class ListenerNotifierManager {
 public:
  explicit ListenerNotifierManager(sim::Node& node) : node_(node) {}
  void registerJobNotifyExecutor(const std::string& jobName);
  // Null once removed (or never registered).
  JobNotifyExecutor* getJobNotifyExecutor(const std::string& jobName);
  // Java removes it from the map and calls shutdown(); the object stays alive here until the
  // process goes, so that its worker can drain what was queued.
  void removeJobNotifyExecutor(const std::string& jobName);

 private:
  struct Entry {
    std::unique_ptr<JobNotifyExecutor> executor;
    bool removed = false;
  };
  sim::Node& node_;
  std::map<std::string, std::vector<Entry>> executors_;  // by job; the last entry is current
};

}  // namespace elasticjob
