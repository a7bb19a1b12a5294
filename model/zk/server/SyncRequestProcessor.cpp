// SyncRequestProcessor's thread (ZooKeeper 3.8.0 SyncRequestProcessor.run): see the header.
#include "model/zk/server/SyncRequestProcessor.h"

namespace zk {

// `self` is in the coroutine frame: the processor lives as long as its thread runs.
sim::Task<void> SyncRequestProcessor::loop(std::shared_ptr<SyncRequestProcessor> self) {
  ELECTSIM_ASSERT(self.get() == this);
  while (!stopped_) {
    if (queued_.empty()) {
      if (orphaned_) co_return;  // idle when its server stepped down: it blocks in take() for good
      co_await ready_.wait();
      if (stopped_) co_return;
      if (sim::Duration delay = wake_delay_ ? wake_delay_() : sim::Duration::zero(); delay > sim::Duration::zero()) co_await sim_.sleep(delay);
      continue;
    }
    // Group commit: append whatever is queued, one txn at a time (each a site), until the queue
    // runs dry; txns queued meanwhile join the group. Appended is in the JVM's buffered stream:
    // nothing of the group is on disk yet.
    while (!queued_.empty()) {
      std::shared_ptr<const Txn> txn = std::move(queued_.front());
      queued_.pop_front();
      toFlush_.push_back(txn);
      co_await sim::reach(sim_, node_, sites::txn_appended, {"zxid", txn->header.zxid});
      if (stopped_) co_return;
    }
    // flush(): zkDb.commit() = logStream.flush() (the page cache), the fsync, the next processor.
    for (const auto& txn : toFlush_) append(txn);
    groupFlushed_ = true;
    Zxid last = toFlush_.back()->header.zxid;
    co_await sim::reach(sim_, node_, sites::log_flushed, {"zxid", last});
    co_await sim_.sleep(fsync_latency_);
    if (stopped_) co_return;
    disk_.synced = disk_.log.size();
    co_await sim::reach(sim_, node_, sites::log_synced, {"zxid", last});
    if (stopped_) co_return;
    // Taken out of toFlush_ first: a shutdown from inside on_synced_ must see an empty group.
    std::vector<std::shared_ptr<const Txn>> group;
    group.swap(toFlush_);
    groupFlushed_ = false;
    if (orphaned_) co_return;  // SendAckRequestProcessor: learner.sock is null (ZOOKEEPER-4409)
    for (const auto& txn : group) {
      if (on_synced_) on_synced_(txn);
    }
    group.clear();
    if (toFlush_.empty()) toFlush_.swap(group);  // its capacity serves the next group
  }
}

}  // namespace zk
