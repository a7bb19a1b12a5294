// SyncRequestProcessor (ZooKeeper 3.8.0 SyncRequestProcessor.run, FileTxnLog.append/commit): the
// thread that writes txns to the log, in groups.
//
// In 3.8.0's order: a txn waits in queuedRequests; the thread appends every queued txn to the log
// (FileTxnLog's BufferedOutputStream, inside the JVM), and when the queue is empty it flushes the
// stream to the operating system and fsyncs it (zkDb.commit), then hands each txn of the group to the
// next processor: a follower's SendAckRequestProcessor writes its ACK, a leader's AckRequestProcessor
// counts its own ack. (flushDelay is 0 and maxBatchSize 1,000 by default, so a group ends when the
// queue runs dry.) The thread wakes up for a new txn after a scheduling delay drawn at its race point
// (QuorumPeer::threadDelay; none unless zookeeper.thread_delay_max is set).
//
// What a fault keeps: a txn only appended is in the JVM and a process crash loses it; once flushed it
// is in the page cache, which a crash keeps and a power loss does not (ServerDisk::synced); once the
// fsync returned it survives both. Each step is a named site (ZabSites.h).
//
// How it ends: shutdown() is SyncRequestProcessor.shutdown, everything queued written and synced at
// once (a leader's, and a 3.9.3 follower's). orphan() is 3.8's Learner.shutdown, which never stops it
// (ZOOKEEPER-4712): the thread goes on writing what was queued, after the server has caught its
// memory up with the log, and dies at its next ACK, whose socket is gone (the NullPointerException of
// ZOOKEEPER-4409). The thread lives in the node's own scope for that, not the role's.
#pragma once

#include <deque>
#include <functional>
#include <memory>
#include <vector>

#include "model/zk/ZabSites.h"
#include "model/zk/server/ZKDatabase.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace zk {

class SyncRequestProcessor : public std::enable_shared_from_this<SyncRequestProcessor> {
 public:
  using Synced = std::function<void(const std::shared_ptr<const Txn>&)>;
  using Delay = std::function<sim::Duration()>;

  SyncRequestProcessor(sim::Simulation& sim, sim::NodeId node, ServerDisk& disk, sim::Duration fsync_latency, Synced on_synced, Delay wake_delay)
      : sim_(sim),
        node_(node),
        disk_(disk),
        fsync_latency_(fsync_latency),
        on_synced_(std::move(on_synced)),
        wake_delay_(std::move(wake_delay)),
        ready_(sim) {}

  // Spawns the log writer into `scope`; it holds the processor alive as long as it runs.
  void start(sim::Scope& scope) { scope.spawn(loop(shared_from_this())); }
  void processRequest(std::shared_ptr<const Txn> txn) {
    ELECTSIM_ASSERT(txn != nullptr);
    ELECTSIM_ASSERT_MSG(!stopped_ && !orphaned_, "a txn queued to a log writer that was shut down");
    sim::pass(sim_, node_, sites::txn_queued, {{"zxid", txn->header.zxid}});
    queued_.push_back(std::move(txn));
    ready_.notify_all();
  }
  // Graceful shutdown: everything queued reaches the disk, nothing more is acknowledged.
  void shutdown() {
    if (!groupFlushed_) {
      for (const auto& txn : toFlush_) append(txn);
    }
    for (const auto& txn : queued_) append(txn);
    queued_.clear();
    toFlush_.clear();
    groupFlushed_ = false;
    disk_.synced = disk_.log.size();
    stopped_ = true;
    ready_.notify_all();
  }
  // 3.8's Learner.shutdown leaves the thread running: it writes what is queued, then dies.
  void orphan() {
    orphaned_ = true;
    on_synced_ = nullptr;
    ready_.notify_all();
  }
  // Txns not yet acknowledged: queued, or appended and waiting for their group's fsync.
  std::size_t queued() const { return queued_.size() + toFlush_.size(); }
  // Txns not yet in the log (a process crash loses them): queued, or appended but not flushed.
  std::size_t unflushed() const { return queued_.size() + (groupFlushed_ ? 0 : toFlush_.size()); }

 private:
  // The log writer's thread (SyncRequestProcessor.cpp). It runs the loop itself, holding `self`: a
  // forwarding coroutine (run(self) { co_await self->loop(); }) breaks clang 14's build with
  // -fsanitize=function and -fsanitize=fuzzer-no-link ("Cannot represent a difference across sections").
  sim::Task<void> loop(std::shared_ptr<SyncRequestProcessor> self);
  void append(const std::shared_ptr<const Txn>& txn) {
    // FileTxnLog.append only warns about a zxid not above the last ("Current zxid ... is <= ..."),
    // and appends it: two writers on one log (ZOOKEEPER-4712) leave it out of order.
    disk_.log.push_back(txn);
  }

  sim::Simulation& sim_;
  sim::NodeId node_;
  ServerDisk& disk_;
  sim::Duration fsync_latency_;
  Synced on_synced_;
  Delay wake_delay_;
  std::deque<std::shared_ptr<const Txn>> queued_;
  std::vector<std::shared_ptr<const Txn>> toFlush_;  // appended, waiting for the group's fsync
  bool groupFlushed_ = false;                        // toFlush_ has reached the log (the page cache)
  bool stopped_ = false;
  bool orphaned_ = false;
  sim::Condition ready_;
};

}  // namespace zk
