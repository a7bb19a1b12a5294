// LockInternals with StandardLockInternalsDriver (curator-recipes locks), maxLeases = 1 as
// InterProcessMutex uses it:
//
//   attemptLock: create basePath/_c_<uuid>-lock-NNNNNNNNNN (protected EPHEMERAL_SEQUENTIAL,
//     parents as needed, foreground), then internalLockLoop; when our node is missing from the
//     children (NoNodeException: the session expired under us) try it all again while the retry
//     policy allows, with a new node.
//   internalLockLoop: while the client is started and we lack the lock: list the sorted children;
//     index 0 holds the lock; otherwise getData(predecessor) with a watcher that wakes us on any
//     event (a node event, but also Disconnected, SyncConnected, Expired), and wait (a predecessor
//     already gone means look again). On an error or a timeout our node is deleted (guaranteed).
//
// Children sort by standardFixForSorting: the part after the last occurrence of the lock name,
// so the protection prefix does not count.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/curator/CuratorBugs.h"
#include "model/curator/CuratorFramework.h"

namespace curator {

class LockInternals {
 public:
  struct PredicateResults {
    std::string pathToWatch;  // empty when we get the lock
    bool getsTheLock = false;
  };
  struct AttemptResult {
    zk::Code code = zk::Code::ok;  // not ok: the exception attemptLock would throw
    std::string ourPath;           // empty with ok: timed out, or the client is no longer started
    // The create returned null (CuratorFramework::create) and attemptLock threw the
    // NullPointerException of internalLockLoop's `ourPath.substring`: no KeeperException.
    bool nullPath = false;
  };

  LockInternals(CuratorFramework& client, std::string path, std::string lockName, int maxLeases, CuratorBugs bugs = {});
  ~LockInternals();
  LockInternals(const LockInternals&) = delete;
  LockInternals& operator=(const LockInternals&) = delete;

  sim::Task<AttemptResult> attemptLock(std::optional<sim::Duration> time, std::string lockNodeBytes);
  // removeWatchers, then a guaranteed foreground delete of the lock node (NONODE ignored).
  sim::Task<void> releaseLock(std::string lockPath);
  // The catch block of an attemptLock interrupted mid-way: with the interrupt flag set the
  // foreground deletes fail at once, so whatever the attempt left on the server (a node, or a
  // protected create in flight) is deleted in the background. Call after destroying the coroutine
  // that ran attemptLock.
  void abandonAttempt();

  // StandardLockInternalsDriver.fixForSorting / LockInternals.getSortedChildren.
  static std::string standardFixForSorting(std::string_view str, std::string_view lockName);
  static std::vector<std::string> getSortedChildren(std::string_view lockName, std::vector<std::string> children);
  static PredicateResults getsTheLock(const std::vector<std::string>& children, std::string_view sequenceNodeName, int maxLeases);
  // getSortedChildren(client, basePath, lockName): a foreground getChildren, NONODE as no children.
  sim::Task<zk::ChildrenResult> getSortedChildren();

  const std::string& basePath() const { return basePath_; }
  // Node events our watcher received (for measuring the herd effect).
  std::uint64_t watchNotifications() const { return watchNotifications_; }

 private:
  sim::Task<AttemptResult> internalLockLoop(sim::Instant startMillis, std::optional<sim::Duration> millisToWait, std::string ourPath);
  sim::Task<void> deleteOurPath(std::string ourPath);
  CuratorWatcher watcher();

  CuratorFramework& client_;
  std::string basePath_;
  std::string lockName_;
  std::string path_;  // basePath/lockName
  int maxLeases_;
  CuratorBugs bugs_;
  std::uint64_t watcherOwner_;
  sim::Condition monitor_;  // wait()/notifyAll() on LockInternals.this
  std::uint64_t notifySequence_ = 0;
  std::uint64_t watchNotifications_ = 0;
  // The attempt in progress, for abandonAttempt.
  std::string attemptProtectedId_;
  std::optional<std::string> attemptPath_;
};

}  // namespace curator
