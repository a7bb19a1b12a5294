#include "model/curator/LockInternals.h"

#include <algorithm>

#include "model/curator/ZKPaths.h"

namespace curator {

LockInternals::LockInternals(CuratorFramework& client, std::string path, std::string lockName, int maxLeases, CuratorBugs bugs)
    : client_(client),
      basePath_(std::move(path)),
      lockName_(std::move(lockName)),
      path_(ZKPaths::makePath(basePath_, lockName_)),
      maxLeases_(maxLeases),
      bugs_(bugs),
      watcherOwner_(client.newWatcherOwner()),
      monitor_(client.sim()) {
  ELECTSIM_ASSERT(maxLeases > 0);
  ELECTSIM_ASSERT(!lockName_.empty());
}

LockInternals::~LockInternals() { client_.removeWatchers(watcherOwner_); }

std::string LockInternals::standardFixForSorting(std::string_view str, std::string_view lockName) {
  std::size_t index = str.rfind(lockName);
  if (index == std::string_view::npos) return std::string(str);
  index += lockName.size();
  return index <= str.size() ? std::string(str.substr(index)) : std::string();
}

std::vector<std::string> LockInternals::getSortedChildren(std::string_view lockName, std::vector<std::string> children) {
  // Collections.sort is stable; String.compareTo on these ASCII names is byte order.
  std::stable_sort(children.begin(), children.end(), [lockName](const std::string& a, const std::string& b) {
    return standardFixForSorting(a, lockName) < standardFixForSorting(b, lockName);
  });
  return children;
}

LockInternals::PredicateResults LockInternals::getsTheLock(const std::vector<std::string>& children, std::string_view sequenceNodeName,
                                                           int maxLeases) {
  auto found = std::find(children.begin(), children.end(), sequenceNodeName);
  ELECTSIM_ASSERT(found != children.end());  // validateOurIndex is the caller's job here
  auto ourIndex = static_cast<int>(found - children.begin());
  bool gets = ourIndex < maxLeases;
  return PredicateResults{gets ? std::string() : children[static_cast<std::size_t>(ourIndex - maxLeases)], gets};
}

sim::Task<zk::ChildrenResult> LockInternals::getSortedChildren() {
  zk::ChildrenResult result = co_await client_.getChildren(basePath_);
  if (result.code == zk::Code::no_node) result = zk::ChildrenResult{};
  if (result.code == zk::Code::ok) result.children = getSortedChildren(lockName_, std::move(result.children));
  co_return result;
}

CuratorWatcher LockInternals::watcher() {
  // postSafeNotify(LockInternals.this): any event, node or session, wakes the waiter.
  return CuratorWatcher{watcherOwner_, [this](const zk::WatchedEvent& event) {
                          if (event.type != zk::EventType::none) watchNotifications_++;
                          notifySequence_++;
                          monitor_.notify_all();
                        }};
}

sim::Task<LockInternals::AttemptResult> LockInternals::attemptLock(std::optional<sim::Duration> time, std::string lockNodeBytes) {
  sim::Instant startMillis = client_.sim().now();
  int retryCount = 0;
  while (true) {
    // StandardLockInternalsDriver.createsTheLock.
    CreateOptions options;
    options.mode = zk::CreateMode::ephemeral_sequential;
    options.creatingParentContainersIfNeeded = true;
    options.withProtection = !bugs_.latch_unprotected_create;
    if (options.withProtection) options.protectedId = client_.newProtectedId();
    attemptProtectedId_ = options.protectedId;
    zk::CreateResult created = co_await client_.create(path_, lockNodeBytes, options);
    attemptProtectedId_.clear();
    AttemptResult result;
    if (created.code != zk::Code::ok) {
      result = AttemptResult{created.code, ""};
    } else if (created.path.empty()) {
      // The create returned null. internalLockLoop reads the children, then throws
      // NullPointerException at `ourPath.substring`; its catch block's deleteOurPath(null) fails
      // path validation (a suppressed IllegalArgumentException), so nothing is deleted: the node
      // the create may have made stays in the queue as long as our session.
      result = AttemptResult{zk::Code::ok, "", true};
      if (client_.isStarted()) {
        zk::ChildrenResult children = co_await getSortedChildren();
        if (children.code != zk::Code::ok) result = AttemptResult{children.code, ""};  // thrown before the NPE
      }
    } else {
      attemptPath_ = created.path;
      result = co_await internalLockLoop(startMillis, time, created.path);
      attemptPath_.reset();
    }
    if (result.code != zk::Code::no_node) co_return result;
    // NoNodeException from the create (its parent went) or from the driver (our node went: the
    // session expired): try it all again.
    std::optional<sim::Duration> sleep = client_.getRetryPolicy().allowRetry(retryCount++);
    if (!sleep) co_return result;
    co_await client_.sim().sleep(*sleep);
  }
}

sim::Task<LockInternals::AttemptResult> LockInternals::internalLockLoop(sim::Instant startMillis, std::optional<sim::Duration> millisToWait,
                                                                        std::string ourPath) {
  bool haveTheLock = false;
  bool doDelete = false;
  zk::Code error = zk::Code::ok;
  std::string sequenceNodeName = ourPath.substr(basePath_.size() + 1);
  while (client_.isStarted() && !haveTheLock) {
    zk::ChildrenResult children = co_await getSortedChildren();
    if (children.code != zk::Code::ok) {
      error = children.code;
      break;
    }
    if (std::find(children.children.begin(), children.children.end(), sequenceNodeName) == children.children.end()) {
      error = zk::Code::no_node;  // validateOurIndex: "Sequential path not found"
      break;
    }
    PredicateResults predicate = getsTheLock(children.children, sequenceNodeName, maxLeases_);
    if (predicate.getsTheLock) {
      haveTheLock = true;
      break;
    }
    std::uint64_t seen = notifySequence_;
    zk::Code watched;
    CuratorWatcher wake = watcher();
    if (bugs_.latch_watches_parent) {
      zk::ChildrenResult listed = co_await client_.getChildren(basePath_, std::move(wake));  // the herd: everyone watches the parent
      watched = listed.code;
    } else {
      // "use getData() instead of exists() to avoid leaving unneeded watchers"
      zk::DataResult read = co_await client_.getData(ZKPaths::makePath(basePath_, predicate.pathToWatch), std::move(wake));
      watched = read.code;
    }
    if (watched == zk::Code::no_node) continue;  // the predecessor is already gone: look again
    if (watched != zk::Code::ok) {
      error = watched;
      break;
    }
    if (notifySequence_ != seen) continue;  // woken before we got to wait()
    if (millisToWait) {
      sim::Instant now = client_.sim().now();
      *millisToWait -= now - startMillis;
      startMillis = now;
      if (*millisToWait <= sim::Duration::zero()) {
        doDelete = true;  // timed out: delete our node
        break;
      }
      co_await monitor_.wait_for(*millisToWait);
    } else {
      co_await monitor_.wait();
    }
  }
  if (error != zk::Code::ok) doDelete = true;
  if (doDelete) co_await deleteOurPath(ourPath);
  if (error != zk::Code::ok) co_return AttemptResult{error, ""};
  co_return AttemptResult{zk::Code::ok, haveTheLock ? ourPath : std::string()};
}

sim::Task<void> LockInternals::deleteOurPath(std::string ourPath) {
  DeleteOptions options;
  options.guaranteed = true;
  options.quietly = true;  // "ignore - already deleted (possibly expired session, etc.)"
  (void)co_await client_.deleteNode(std::move(ourPath), options);
}

sim::Task<void> LockInternals::releaseLock(std::string lockPath) {
  client_.removeWatchers(watcherOwner_);
  co_await deleteOurPath(std::move(lockPath));
}

void LockInternals::abandonAttempt() {
  if (!attemptProtectedId_.empty()) {
    client_.findAndDeleteProtectedNodeInBackground(basePath_, attemptProtectedId_);
    attemptProtectedId_.clear();
  }
  if (attemptPath_) {
    client_.deleteGuaranteedInBackground(*attemptPath_);
    attemptPath_.reset();
  }
}

}  // namespace curator
