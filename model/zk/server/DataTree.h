// The replicated state of one ZooKeeper server: org.apache.zookeeper.server.DataTree (3.8).
//
// Every server applies the same committed txns in zxid order through processTxn, so replicas that
// applied the same prefix hold the same tree (digest() checks it). Reads are served locally and may
// leave a one-shot watch for the connection that asked; applying a txn fires the watches it
// triggers, in the order 3.8 triggers them, into a list the caller turns into notifications.
//
// Differences from the Java class (see also WatchManager.h):
// - children are a sorted std::set; Java keeps a HashSet and getChildren returns hash order;
// - ACLs, quotas, containers and TTL nodes are not modelled;
// - a node's children and the ephemerals of a session are ordered, so every walk is deterministic;
//   the nodes are a hash map by path, as Java's NodeHashMap, which nothing walks in hash order
//   (digest() sorts).
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "model/zk/server/WatchManager.h"
#include "model/zk/types.h"
#include "sim/string_hash.h"

namespace zk {

// org.apache.zookeeper.server.DataNode.
struct DataNode {
  std::string data;
  Stat stat;  // stat.data_length and stat.num_children always match data and children
  // Child names (not paths). Sorted here; a HashSet in ZooKeeper, whose getChildren order is the
  // set's hash order. Clients that sort (Curator, ElasticJob) see no difference.
  std::set<std::string, std::less<>> children;
};

// DataTree.ProcessTxnResult: what applying one txn did, for the reply and for the caller.
struct ProcessTxnResult {
  Code error = Code::ok;
  OpCode type = OpCode::error;  // the applied type (a rewritten multi op reports OpCode::error)
  std::string path;             // create: the created path (with its sequential suffix)
  Stat stat;                    // create, setData: the node's stat after the change
  std::vector<ProcessTxnResult> multi;  // multi: one result per op, in op order
  bool operator==(const ProcessTxnResult&) const = default;
};

class DataTree {
 public:
  // The nodes every tree starts with (DataTree's constructor and addConfigNode).
  static constexpr std::string_view rootZookeeper = "/";
  static constexpr std::string_view procZookeeper = "/zookeeper";
  static constexpr std::string_view quotaZookeeper = "/zookeeper/quota";
  static constexpr std::string_view configZookeeper = "/zookeeper/config";

  DataTree();

  // DataTree.createStat: the stat of a node created by txn `zxid` at leader time `time`.
  static Stat createStat(Zxid zxid, std::int64_t time, SessionId ephemeralOwner);
  // DataNode.copyStat: the stat a client is given. The stored cversion counts the creates of
  // children (sequence numbers come from it); a client sees the changes, creates and deletes:
  // "for every create there is a delete except for the children still present".
  static Stat copyStat(const DataNode& node);
  // "/", "/zookeeper", "/zookeeper/quota", "/zookeeper/config": never deleted.
  static bool isSpecialPath(std::string_view path);

  // ---- reads (FinalRequestProcessor → DataTree), served by whichever server the client uses ----
  // getData: NONODE and no watch when the node is missing.
  Code getData(std::string_view path, std::optional<WatcherId> watcher, std::string* data, Stat* stat);
  // exists (DataTree.statNode): the data watch is left even when the node is missing, so it fires
  // NodeCreated when the node appears (the "exists watch").
  Code exists(std::string_view path, std::optional<WatcherId> watcher, Stat* stat);
  // getChildren / getChildren2: NONODE and no watch when the node is missing.
  Code getChildren(std::string_view path, std::optional<WatcherId> watcher, std::vector<std::string>* children,
                   Stat* stat);

  // The node at `path`, or null. "" is the root as well, as in Java, where the root is stored under
  // both "" and "/" (PrepRequestProcessor looks parents of top-level nodes up by "").
  const DataNode* getNode(std::string_view path) const;
  std::size_t nodeCount() const { return nodes_.size(); }  // "/" counted once (Java counts it twice)
  using Nodes = std::unordered_map<std::string, DataNode, sim::StringHash, std::equal_to<>>;
  const Nodes& nodes() const { return nodes_; }  // in hash order: sort what a run depends on

  // ---- writes: committed txns only, on every server in zxid order ----
  // `fired` receives the triggered watches in trigger order; it may be null.
  ProcessTxnResult processTxn(const Txn& txn, std::vector<FiredWatch>* fired);

  // The operations processTxn is made of, as in Java (each throws a KeeperException there, returns
  // its code here). parentCVersion -1 means "the parent's cversion + 1".
  Code createNode(const std::string& path, const std::string& data, SessionId ephemeralOwner,
                  std::int32_t parentCVersion, Zxid zxid, std::int64_t time, Stat* outputStat,
                  std::vector<FiredWatch>* fired);
  Code deleteNode(const std::string& path, Zxid zxid, std::vector<FiredWatch>* fired);
  Code setData(const std::string& path, const std::string& data, std::int32_t version, Zxid zxid,
               std::int64_t time, Stat* outputStat, std::vector<FiredWatch>* fired);
  // Raises cversion (and sets pzxid) only if newCversion is larger: the snapshot-replay fixup.
  Code setCversionPzxid(std::string_view path, std::int32_t newCversion, Zxid zxid);
  // closeSession: deletes pathsInTxn in list order, then any ephemeral of the session left over.
  void killSession(SessionId session, Zxid zxid, const std::vector<std::string>& pathsInTxn,
                   std::vector<FiredWatch>* fired);

  Zxid getLastProcessedZxid() const { return lastProcessedZxid_; }
  void setLastProcessedZxid(Zxid zxid) { lastProcessedZxid_ = zxid; }

  // ---- watches ----
  // A connection closed (DataTree.removeCnxn): drop its data and child watches.
  void removeWatcher(WatcherId watcher);
  // addWatch (3.6+): a persistent or persistent-recursive watch, in both tables, on a path that
  // need not exist (DataTree.addWatch; FinalRequestProcessor does not look the node up).
  void addWatch(const std::string& basePath, WatcherId watcher, AddWatchMode mode);
  // SetWatches(2) after a reconnect (§3.5 of the digest): catch-up events for what changed after
  // relativeZxid (the client's last seen zxid), re-registration for the rest. Persistent watches
  // are re-registered with no catch-up event (DataTree.setWatches, 3.8).
  void setWatches(Zxid relativeZxid, const std::vector<std::string>& dataPaths,
                  const std::vector<std::string>& existPaths, const std::vector<std::string>& childPaths,
                  const std::vector<std::string>& persistentPaths, const std::vector<std::string>& persistentRecursivePaths,
                  WatcherId watcher, std::vector<FiredWatch>* fired);
  std::size_t watchCount() const { return dataWatches_.size() + childWatches_.size(); }
  const WatchManager& dataWatches() const { return dataWatches_; }
  // Bug switch zk-watch-not-one-shot: watches survive their trigger.
  void setWatchesSurviveTrigger(bool survive) {
    dataWatches_.setKeepAfterTrigger(survive);
    childWatches_.setKeepAfterTrigger(survive);
  }
  const WatchManager& childWatches() const { return childWatches_; }

  // ---- sessions ----
  std::vector<std::string> getEphemerals(SessionId session) const;  // sorted paths
  std::vector<SessionId> getSessions() const;                       // owners of ephemerals, ascending

  // ---- replicas ----
  // A hash of every node's path, data, czxid, mzxid, pzxid, version, cversion and ephemeralOwner,
  // in path order: equal on replicas that applied the same txns.
  std::uint64_t digest() const;
  // What a snapshot carries (FileSnap): the nodes, the ephemerals and the zxid, without watches,
  // which belong to the connections of the server that took it.
  DataTree snapshot() const;
  // Walks everything; asserts the tree's structural invariants. O(nodes).
  void checkInvariants() const;

 private:
  template <typename Body>
  ProcessTxnResult processOp(OpCode type, const TxnHeader& header, const Body& body, std::vector<FiredWatch>* fired);
  ProcessTxnResult processMulti(const TxnHeader& header, const MultiTxn& txns, std::vector<FiredWatch>* fired);
  DataNode* findNode(std::string_view path);

  Nodes nodes_;                                                         // by path
  std::map<SessionId, std::set<std::string, std::less<>>> ephemerals_;  // never an empty set
  WatchManager dataWatches_;
  WatchManager childWatches_;
  Zxid lastProcessedZxid_ = 0;
};

}  // namespace zk
