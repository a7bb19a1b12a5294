// SyncRequestProcessor: appends txns to the log and fsyncs them in groups. Only after the fsync is a
// txn durable and acknowledged (the leader's AckRequestProcessor counts its own ack then; a
// follower's SendAckRequestProcessor sends ACK then). A crash loses what was not yet synced; a
// graceful shutdown flushes everything still queued (SyncRequestProcessor.shutdown).
#pragma once

#include <functional>
#include <memory>
#include <vector>

#include "model/zk/server/ZKDatabase.h"
#include "sim/node.h"
#include "sim/sync.h"

namespace zk {

class SyncRequestProcessor {
 public:
  using Synced = std::function<void(const std::shared_ptr<const Txn>&)>;

  SyncRequestProcessor(sim::Simulation& sim, ServerDisk& disk, sim::Duration fsync_latency, Synced on_synced)
      : sim_(sim), disk_(disk), fsync_latency_(fsync_latency), on_synced_(std::move(on_synced)), ready_(sim) {}

  // Spawns the log writer into `scope` (the role's processes).
  void start(sim::Scope& scope) { scope.spawn(run()); }
  void processRequest(std::shared_ptr<const Txn> txn) {
    ELECTSIM_ASSERT(txn != nullptr);
    queued_.push_back(std::move(txn));
    ready_.notify_all();
  }
  // Graceful shutdown: everything queued reaches the disk, nothing more is acknowledged.
  void shutdown() {
    for (const auto& txn : syncing_) append(txn);
    for (const auto& txn : queued_) append(txn);
    syncing_.clear();
    queued_.clear();
  }
  std::size_t queued() const { return queued_.size() + syncing_.size(); }

 private:
  sim::Task<void> run() {
    while (true) {
      if (queued_.empty()) {
        co_await ready_.wait();
        continue;
      }
      // Group commit: everything queued by the time the fsync starts goes in this one. The two
      // buffers trade places rather than being rebuilt, so a steady load allocates nothing here.
      syncing_.clear();
      syncing_.swap(queued_);
      co_await sim_.sleep(fsync_latency_);
      // Taken out of syncing_ first: a shutdown from inside on_synced_ must not append them twice.
      std::vector<std::shared_ptr<const Txn>> synced;
      synced.swap(syncing_);
      for (const auto& txn : synced) append(txn);
      for (const auto& txn : synced) on_synced_(txn);
      // Its capacity serves the next group (syncing_ is empty again: only this loop fills it).
      synced.clear();
      if (syncing_.empty()) syncing_.swap(synced);
    }
  }
  void append(const std::shared_ptr<const Txn>& txn) {
    ELECTSIM_ASSERT_MSG(disk_.log.empty() || txn->header.zxid > disk_.log.back()->header.zxid, "txn log out of order");
    disk_.log.push_back(txn);
  }

  sim::Simulation& sim_;
  ServerDisk& disk_;
  sim::Duration fsync_latency_;
  Synced on_synced_;
  std::vector<std::shared_ptr<const Txn>> queued_;
  std::vector<std::shared_ptr<const Txn>> syncing_;  // in the fsync now
  sim::Condition ready_;
};

}  // namespace zk
