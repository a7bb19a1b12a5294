// ZKDatabase and what a server keeps on disk (FileTxnSnapLog, the epoch files).
//
// On disk, surviving a crash: acceptedEpoch and currentEpoch (one number each), the fsynced prefix
// of the txn log, and the latest snapshot (a copy of the DataTree and the session table at a zxid).
// In memory: the DataTree, the sessions with their timeouts (replicated through createSession and
// closeSession txns), and the committedLog: the last 501 committed txns the leader can send a
// learner as a DIFF. Loading = the snapshot, then every logged txn after it, committed or not: the
// log has no commit records (ZooKeeper replays the same way).
#pragma once

#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <vector>

#include "model/zk/server/DataTree.h"
#include "model/zk/types.h"

namespace zk {

struct Snapshot {
  DataTree tree;
  std::map<SessionId, std::int32_t> sessions;  // sessionsWithTimeouts
  Zxid zxid = 0;
};

struct ServerDisk {
  std::int64_t accepted_epoch = -1;  // -1: the file does not exist yet
  std::int64_t current_epoch = -1;
  // Flushed to the operating system, in zxid order: what a process crash keeps. The first `synced`
  // entries are also fsynced: what a power loss keeps (QuorumPeer::on_stop cuts the rest).
  std::vector<std::shared_ptr<const Txn>> log;
  std::size_t synced = 0;
  std::shared_ptr<const Snapshot> snapshot;     // the latest one

  Zxid last_logged_zxid() const;
  // FileTxnSnapLog.truncateLog: drop log entries after `zxid`. (Snapshots newer than it are left
  // alone, as in ZooKeeper: ZOOKEEPER-1549.)
  void truncate_log(Zxid zxid);
};

class ZKDatabase {
 public:
  // ZKDatabase.commitLogCount: the committedLog kept for DIFF syncs holds this many txns plus one.
  static constexpr std::size_t commit_log_count = 500;

  DataTree& getDataTree() { return tree_; }
  const DataTree& getDataTree() const { return tree_; }
  std::map<SessionId, std::int32_t>& getSessionWithTimeOuts() { return sessions_; }
  const std::map<SessionId, std::int32_t>& getSessionWithTimeOuts() const { return sessions_; }
  Zxid getDataTreeLastProcessedZxid() const;
  void setlastProcessedZxid(Zxid zxid);

  // Snapshot, then the log after it. Returns the last processed zxid. A server with neither starts
  // empty at zxid 0 and writes an empty snapshot (zookeeper.datadir.autocreate: trusted).
  Zxid loadDataBase(ServerDisk& disk);
  // Replays logged txns beyond what memory has applied (ZOOKEEPER-2845, on a non-crash step-down).
  void fastForwardDataBase(const ServerDisk& disk);
  // Applies a committed txn: the tree, the session table, and the committedLog.
  ProcessTxnResult processTxn(const std::shared_ptr<const Txn>& txn, std::vector<FiredWatch>* fired);
  std::shared_ptr<const Snapshot> takeSnapshot() const;
  void deserializeSnapshot(const Snapshot& snapshot);
  void clear();

  const std::deque<std::shared_ptr<const Txn>>& getCommittedLog() const { return committed_log_; }
  // Bug switch zk-watch-not-one-shot, kept across reloads of the tree.
  void setWatchesSurviveTrigger(bool survive) {
    watches_survive_trigger_ = survive;
    tree_.setWatchesSurviveTrigger(survive);
  }
  Zxid getminCommittedLog() const;
  Zxid getmaxCommittedLog() const;

  // Told of every txn replayed from the log (loadDataBase, fastForwardDataBase), with the
  // ephemerals a closeSession removed: replays change the tree as commits do, and the trace must
  // say so (QuorumPeer traces them like commits, flagged as replayed).
  using ReplayObserver = std::function<void(const Txn&, const ProcessTxnResult&, const std::vector<std::string>& closed_ephemerals)>;
  void setReplayObserver(ReplayObserver observer) { replay_observer_ = std::move(observer); }
  // Told whenever the tree is replaced wholesale (a snapshot loaded from disk or from the leader,
  // or an empty start), before any txn is replayed on top.
  using ReloadObserver = std::function<void(const DataTree&)>;
  void setReloadObserver(ReloadObserver observer) { reload_observer_ = std::move(observer); }

 private:
  void replayTxn(const std::shared_ptr<const Txn>& txn);
  void addCommittedProposal(const std::shared_ptr<const Txn>& txn);
  void processTxnForSessionEvents(const Txn& txn);

  DataTree tree_;
  std::map<SessionId, std::int32_t> sessions_;
  std::deque<std::shared_ptr<const Txn>> committed_log_;
  bool watches_survive_trigger_ = false;
  ReplayObserver replay_observer_;
  ReloadObserver reload_observer_;
};

}  // namespace zk
