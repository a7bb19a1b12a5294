// The server side of watches: org.apache.zookeeper.server.watch.WatchManager (3.8).
//
// A DataTree keeps two of these, dataWatches and childWatches. The watcher is the server connection
// (a ServerCnxn in Java), so a connection that registers the same path twice holds one watch, and
// the client fans a notification out to its own watcher objects.
//
// Watch modes (3.6+, WatcherMode): STANDARD watches are one-shot; PERSISTENT ones (addWatch) stay
// after they fire; PERSISTENT_RECURSIVE ones also fire for every node below their path, except
// for NodeChildrenChanged. As in 3.8's WatcherModeManager, a connection has ONE mode per path and
// table, the last one set: a standard watch set on a path the connection watches persistently
// turns that watch into a one-shot one (ZOOKEEPER-4466, fixed in 3.9). A trigger walks the path's
// parents only while some recursive watch exists (WatchManager.getPathParentIterator).
//
// Determinism: Java keeps HashMap<String, HashSet<Watcher>> and notifies a path's watchers in hash
// order; electsim keeps ordered containers and notifies them in ascending connection id.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <boost/container/flat_map.hpp>
#include <boost/container/flat_set.hpp>
#include <boost/container/small_vector.hpp>

#include "model/zk/types.h"
#include "sim/string_hash.h"

namespace zk {

// A server connection id: what Java's WatchManager keys its tables by (the ServerCnxn).
using WatcherId = std::uint64_t;
// The connections one trigger fired: ordered as a std::set would be, and kept inline while there are
// few (every write triggers, and a handful of connections watch any one path).
using WatcherSet = boost::container::flat_set<WatcherId, std::less<WatcherId>, boost::container::small_vector<WatcherId, 8>>;

// org.apache.zookeeper.server.watch.WatcherMode.
enum class WatcherMode : std::uint8_t { standard, persistent, persistent_recursive };
constexpr bool is_persistent(WatcherMode mode) { return mode != WatcherMode::standard; }
constexpr bool is_recursive(WatcherMode mode) { return mode == WatcherMode::persistent_recursive; }

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
  // Registers one watch, or sets the mode of the connection's watch on the path (the last mode
  // wins); false if the connection already watched the path.
  bool addWatch(const std::string& path, WatcherId watcher, WatcherMode mode = WatcherMode::standard);
  // The connection closed (DataTree.removeCnxn): every watch it held goes.
  void removeWatcher(WatcherId watcher);
  // Fires the path's watchers and the recursive watchers of its parents (not for
  // NodeChildrenChanged). Standard watches of the path are used up; persistent ones stay. Appends
  // one FiredWatch for the watchers not in `suppress` (none if all are suppressed), and returns
  // every watcher that fired, so a caller can suppress a second notification to the same
  // connections (deleteNode's NodeDeleted on the child table). `fired` may be null: the
  // watches are consumed and nobody hears of it.
  WatcherSet triggerWatch(const std::string& path, EventType type, const WatcherSet* suppress, std::vector<FiredWatch>* fired);

  bool containsWatcher(std::string_view path, WatcherId watcher) const;
  // The connection's mode on the path; standard if it does not watch it.
  WatcherMode watcherMode(std::string_view path, WatcherId watcher) const;
  // Number of (path, connection) pairs.
  std::size_t size() const { return watchCount_; }
  std::size_t recursiveWatchCount() const { return recursiveWatchQty_; }
  // Every path a connection watches, in order (for tests and the reconnect logic).
  std::vector<std::string> pathsOf(WatcherId watcher) const;
  // watchTable and watch2Paths describe the same relation; the counts match it.
  void checkInvariants() const;

  // Bug switch zk-watch-not-one-shot (a teaching switch, not a ZooKeeper release).
  void setKeepAfterTrigger(bool keep) { keepAfterTrigger_ = keep; }

 private:
  // A HashMap in Java too; looked up at every path of a trigger's walk, walked only by
  // checkInvariants. Each path's watchers carry their mode (WatcherModeManager's table, keyed by
  // watcher and path in Java), so a trigger reads it without a second lookup.
  using PathWatchers = boost::container::flat_map<WatcherId, WatcherMode>;
  using WatchTable = std::unordered_map<std::string, PathWatchers, sim::StringHash, std::equal_to<>>;

  // Fires and consumes the watches of one path of the walk; `atParent`: a parent of the event's
  // path, where only recursive watches fire.
  void triggerPath(std::string_view localPath, bool atParent, EventType type, WatcherSet& watchers);
  // Drops a path whose last watcher went, and its count by length.
  void erasePath(WatchTable::iterator entry);

  bool keepAfterTrigger_ = false;
  WatchTable watchTable_;
  // How many watched paths have each length (the last slot: that long or longer). A trigger's walk
  // up the parents skips the lookup of a length nobody watches: with recursive watches on a job's
  // root only, that is nearly every parent (skipping them saved 1.0% of an exploration).
  static constexpr std::size_t length_slots = 128;
  static std::size_t lengthSlot(std::string_view path) { return std::min(path.size(), length_slots - 1); }
  std::array<std::size_t, length_slots> pathsOfLength_{};
  std::map<WatcherId, std::set<std::string, std::less<>>> watch2Paths_;
  std::size_t watchCount_ = 0;
  std::size_t recursiveWatchQty_ = 0;  // WatcherModeManager.getRecursiveQty
};

}  // namespace zk
