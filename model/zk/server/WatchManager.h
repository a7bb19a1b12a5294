// The server side of one-shot watches: org.apache.zookeeper.server.watch.WatchManager (3.8).
//
// A DataTree keeps two of these, dataWatches and childWatches. The watcher is the server connection
// (a ServerCnxn in Java), so a connection that registers the same path twice holds one watch, and
// the client fans a notification out to its own watcher objects.
//
// Determinism: Java keeps HashMap<String, HashSet<Watcher>> and notifies a path's watchers in hash
// order; electsim keeps ordered containers and notifies them in ascending connection id.
// Persistent and persistent-recursive watches (3.6+, addWatch) are not modelled.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "model/zk/types.h"

namespace zk {

// A server connection id: what Java's WatchManager keys its tables by (the ServerCnxn).
using WatcherId = std::uint64_t;

// One event sent to some connections: each of them gets a notification (xid -1) for it.
struct FiredWatch {
  WatchedEvent event;
  std::vector<WatcherId> watchers;  // ascending, never empty
  // A SetWatches catch-up event answers one watch of one table ("data" or "child"); DataTree
  // sends one per table, so a node deleted while the client was away gets two NodeDeleted
  // (DataTree.setWatches, ZooKeeper 3.8). Empty for a trigger, which serves both tables at once.
  std::string_view table;
  bool operator==(const FiredWatch&) const = default;
};

class WatchManager {
 public:
  // Registers one watch; false if the connection already watched the path (they collapse).
  bool addWatch(const std::string& path, WatcherId watcher);
  // The connection closed (DataTree.removeCnxn): every watch it held goes.
  void removeWatcher(WatcherId watcher);
  // One-shot: removes the path's whole watcher set, appends one FiredWatch for the watchers not in
  // `suppress` (none if all are suppressed), and returns the removed set, so a caller can suppress
  // a second notification to the same connections (deleteNode's NodeDeleted on the child table).
  // `fired` may be null: the watches are consumed and nobody hears of it.
  std::set<WatcherId> triggerWatch(const std::string& path, EventType type, const std::set<WatcherId>* suppress,
                                   std::vector<FiredWatch>* fired);

  bool containsWatcher(std::string_view path, WatcherId watcher) const;
  // Number of (path, connection) pairs.
  std::size_t size() const { return watchCount_; }
  // Every path a connection watches, in order (for tests and the reconnect logic).
  std::vector<std::string> pathsOf(WatcherId watcher) const;
  // watchTable and watch2Paths describe the same relation; the count matches it.
  void checkInvariants() const;

  // Bug switch zk-watch-not-one-shot (a teaching switch, not a ZooKeeper release).
  void setKeepAfterTrigger(bool keep) { keepAfterTrigger_ = keep; }

 private:
  bool keepAfterTrigger_ = false;
  std::map<std::string, std::set<WatcherId>, std::less<>> watchTable_;
  std::map<WatcherId, std::set<std::string, std::less<>>> watch2Paths_;
  std::size_t watchCount_ = 0;
};

}  // namespace zk
