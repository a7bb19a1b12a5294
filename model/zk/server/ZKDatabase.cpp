#include "model/zk/server/ZKDatabase.h"

#include <algorithm>

#include "sim/assert.h"

namespace zk {

Zxid ServerDisk::last_logged_zxid() const {
  if (!log.empty()) return log.back()->header.zxid;
  return snapshot ? snapshot->zxid : 0;
}

void ServerDisk::truncate_log(Zxid zxid) {
  auto first_after = std::find_if(log.begin(), log.end(), [zxid](const auto& txn) { return txn->header.zxid > zxid; });
  log.erase(first_after, log.end());
  synced = std::min(synced, log.size());
}

Zxid ZKDatabase::getDataTreeLastProcessedZxid() const { return tree_.getLastProcessedZxid(); }

void ZKDatabase::setlastProcessedZxid(Zxid zxid) { tree_.setLastProcessedZxid(zxid); }

Zxid ZKDatabase::loadDataBase(ServerDisk& disk) {
  clear();
  if (disk.snapshot) {
    deserializeSnapshot(*disk.snapshot);
  } else {
    ELECTSIM_ASSERT_MSG(disk.log.empty(), "a txn log without a snapshot");
    // FileTxnSnapLog.restore with a trusted empty data dir: an empty snapshot at zxid 0.
    disk.snapshot = takeSnapshot();
    if (reload_observer_) reload_observer_(tree_);
  }
  Zxid snapshot_zxid = getDataTreeLastProcessedZxid();
  for (const auto& txn : disk.log) {
    if (txn->header.zxid <= snapshot_zxid) continue;
    replayTxn(txn);  // replayed txns also enter the committedLog, as in ZooKeeper
  }
  return getDataTreeLastProcessedZxid();
}

void ZKDatabase::fastForwardDataBase(const ServerDisk& disk) {
  Zxid applied = getDataTreeLastProcessedZxid();
  for (const auto& txn : disk.log) {
    if (txn->header.zxid > applied) replayTxn(txn);
  }
}

void ZKDatabase::replayTxn(const std::shared_ptr<const Txn>& txn) {
  std::vector<std::string> closed_ephemerals;
  if (replay_observer_ && txn->header.type == OpCode::close_session) closed_ephemerals = tree_.getEphemerals(txn->header.session_id);
  ProcessTxnResult result = processTxn(txn, nullptr);
  if (replay_observer_) replay_observer_(*txn, result, closed_ephemerals);
}

ProcessTxnResult ZKDatabase::processTxn(const std::shared_ptr<const Txn>& txn, std::vector<FiredWatch>* fired) {
  ELECTSIM_ASSERT(txn != nullptr);
  ProcessTxnResult result = tree_.processTxn(*txn, fired);
  processTxnForSessionEvents(*txn);
  addCommittedProposal(txn);
  return result;
}

void ZKDatabase::processTxnForSessionEvents(const Txn& txn) {
  // createSession and closeSession change the replicated session table on every server.
  if (txn.header.type == OpCode::create_session) {
    const auto* create = std::get_if<CreateSessionTxn>(&txn.body);
    ELECTSIM_ASSERT(create != nullptr);
    sessions_[txn.header.session_id] = create->timeout_ms;
  } else if (txn.header.type == OpCode::close_session) {
    sessions_.erase(txn.header.session_id);
  }
}

void ZKDatabase::addCommittedProposal(const std::shared_ptr<const Txn>& txn) {
  // No order check, as in ZKDatabase.addCommittedProposal: a log with two writers (ZOOKEEPER-4712)
  // replays out of order, and maxCommittedLog is then whatever came last.
  // ZKDatabase.addCommittedProposal trims before it adds ("if (committedLog.size() >
  // commitLogCount) committedLog.remove()"), so the log holds commitLogCount + 1 txns.
  if (committed_log_.size() > commit_log_count) {
    committed_log_.pop_front();
    // The next txn to leave was committed 500 txns ago and is out of the cache by now: its
    // reference count (beside it: txns are made by make_shared) is fetched ahead, so the next
    // pop_front does not stall on it (that stall was 2.5% of bench zk's time, perf).
    __builtin_prefetch(committed_log_.front().get());
  }
  committed_log_.push_back(txn);
}

std::shared_ptr<const Snapshot> ZKDatabase::takeSnapshot() const {
  return std::make_shared<const Snapshot>(Snapshot{tree_.snapshot(), sessions_, getDataTreeLastProcessedZxid()});
}

void ZKDatabase::deserializeSnapshot(const Snapshot& snapshot) {
  clear();
  tree_ = snapshot.tree;
  tree_.setWatchesSurviveTrigger(watches_survive_trigger_);
  sessions_ = snapshot.sessions;
  tree_.setLastProcessedZxid(snapshot.zxid);
  if (reload_observer_) reload_observer_(tree_);
}

void ZKDatabase::clear() {
  tree_ = DataTree();
  tree_.setWatchesSurviveTrigger(watches_survive_trigger_);
  sessions_.clear();
  committed_log_.clear();
}

Zxid ZKDatabase::getminCommittedLog() const {
  return committed_log_.empty() ? getDataTreeLastProcessedZxid() : committed_log_.front()->header.zxid;
}

Zxid ZKDatabase::getmaxCommittedLog() const {
  return committed_log_.empty() ? getDataTreeLastProcessedZxid() : committed_log_.back()->header.zxid;
}

}  // namespace zk
