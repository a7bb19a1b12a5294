// The operation builders of CuratorFrameworkImpl: CreateBuilderImpl (with protection and parent
// creation), ExistsBuilderImpl, GetDataBuilderImpl, GetChildrenBuilderImpl, SetDataBuilderImpl,
// DeleteBuilderImpl and CuratorMultiTransactionImpl, each a loop over RetryLoop.
#include <algorithm>

#include "model/curator/CuratorFramework.h"
#include "model/curator/ProtectedUtils.h"
#include "model/curator/RetryLoop.h"
#include "model/curator/ZKPaths.h"

namespace curator {

namespace {
constexpr int delete_children_rounds_max = 16;  // NOTEMPTY again after deleting the children: others keep adding
}

sim::Task<zk::CreateResult> CuratorFramework::create(std::string path, std::string data, CreateOptions options) {
  ELECTSIM_ASSERT(!path.empty() && path.front() == '/');
  const bool protect = options.withProtection;
  const bool ephemeral = zk::is_ephemeral(options.mode);
  const bool parents = options.creatingParentsIfNeeded || options.creatingParentContainersIfNeeded;
  // ProtectedMode: one UUID for every attempt of this create.
  std::string protectedId = protect ? (options.protectedId.empty() ? newProtectedId() : options.protectedId) : std::string();
  std::string adjustedPath = protect ? ProtectedUtils::toProtectedZNodePath(path, protectedId) : path;
  std::string parentPath = ZKPaths::getParent(adjustedPath);
  std::string prefix = protect ? ProtectedUtils::getProtectedPrefix(protectedId) : std::string();
  zk::SessionId sessionId = 0;  // ProtectedMode.sessionId, for ephemeral modes
  bool firstTime = true;
  RetryLoop loop(*this, "create", options.call);
  while (true) {
    zk::CreateResult result;
    result.code = co_await loop.beforeAttempt();
    if (result.code == zk::Code::ok) {
      bool localFirstTime = std::exchange(firstTime, false);
      zk::ZooKeeper& zk = client_.getZooKeeper();  // handles live as long as the framework
      if (protect && ephemeral && sessionId == 0) sessionId = zk.getSessionId();  // checkSetSessionId
      std::optional<std::string> found;
      if (protect && !localFirstTime) {
        // findProtectedNodeInForeground: did an earlier attempt create the node after all?
        requestCounts_.getChildren++;
        zk::ChildrenResult children = co_await zk.getChildren(parentPath);
        if (children.code == zk::Code::ok) {
          auto match = std::find_if(children.children.begin(), children.children.end(),
                                    [&prefix](const std::string& child) { return child.starts_with(prefix); });
          if (match != children.children.end()) found = ZKPaths::makePath(parentPath, *match);
        } else if (children.code != zk::Code::no_node) {
          result.code = children.code;
        }
        zk::SessionId currentSession = client_.getZooKeeper().getSessionId();
        if (ephemeral && currentSession != sessionId) {
          // validateFoundNode (CURATOR-498): a node of an older session is not ours any more.
          if (found) deleteGuaranteedInBackground(*found);
          found.reset();
          sessionId = currentSession;
        }
      }
      if (found) {
        result = zk::CreateResult{zk::Code::ok, *found};
      } else if (result.code == zk::Code::ok) {
        requestCounts_.create++;
        result = co_await zk.create(adjustedPath, data, options.mode);
        if (result.code == zk::Code::no_node && parents) {
          zk::Code made = co_await mkdirs(zk, parentPath);
          if (made == zk::Code::ok) {
            requestCounts_.create++;
            result = co_await zk.create(adjustedPath, data, options.mode);
          } else {
            result.code = made;
          }
        }
      }
    }
    if (result.code == zk::Code::ok) co_return result;
    if (co_await loop.shouldRetry(result.code)) continue;
    // Giving up. A protected create may have left its node on the server: find it and delete it
    // (CURATOR-45); foreground only after a connection loss, background after any retryable code.
    bool orphanPossible = options.call == Call::foreground ? result.code == zk::Code::connection_loss
                                                            : ExponentialBackoffRetry::isRetryable(result.code);
    if (protect && orphanPossible) findAndDeleteProtectedNodeInBackground(parentPath, protectedId);
    co_return result;
  }
}

sim::Task<zk::Code> CuratorFramework::mkdirs(zk::ZooKeeper& zk, std::string path) {
  // ZKPaths.mkdirs: every missing ancestor, top down, as a plain persistent node (the model's
  // server has no CONTAINER nodes). Someone else creating one meanwhile is fine.
  std::size_t position = 1;
  while (position <= path.size()) {
    std::size_t slash = path.find('/', position);
    if (slash == std::string::npos) slash = path.size();
    std::string prefix = path.substr(0, slash);
    position = slash + 1;
    requestCounts_.exists++;
    zk::StatResult exists = co_await zk.exists(prefix);
    if (exists.code == zk::Code::ok) continue;
    if (exists.code != zk::Code::no_node) co_return exists.code;
    requestCounts_.create++;
    zk::CreateResult created = co_await zk.create(prefix, "", zk::CreateMode::persistent);
    if (created.code != zk::Code::ok && created.code != zk::Code::node_exists) co_return created.code;
  }
  co_return zk::Code::ok;
}

// The reads keep in their frames only what a retry needs (the path, the watcher, the loop) and
// one result: with CuratorCache's background reads, a burst of notifications holds one such frame
// per changed node and instance. A failed read carries only its code, so a read that gives up
// answers a fresh result with that code.

sim::Task<zk::StatResult> CuratorFramework::checkExists(std::string path, CuratorWatcher watcher, Call call) {
  RetryLoop loop(*this, "checkExists", call);
  while (true) {
    zk::Code code = co_await loop.beforeAttempt();
    if (code == zk::Code::ok) {
      std::uint64_t id = 0;
      requestCounts_.exists++;
      zk::Async<zk::StatResult> read = client_.getZooKeeper().exists(path, usingWatcher(watcher, client_.getInstanceIndex(), id));
      zk::StatResult result = co_await std::move(read);
      // ExistsWatchRegistration: a watch either way, unless the call failed.
      if (id != 0 && result.code != zk::Code::ok && result.code != zk::Code::no_node) dropWatcher(id);
      // NONODE is an answer here (checkExists returns null), not an error.
      if (result.code == zk::Code::ok || result.code == zk::Code::no_node) co_return result;
      ELECTSIM_ASSERT(result.stat == zk::Stat{});
      code = result.code;
    }
    if (!co_await loop.shouldRetry(code)) co_return zk::StatResult{code, {}};
  }
}

const CuratorFramework::ReadOperation<zk::DataResult> CuratorFramework::getDataOperation{"getData", &RequestCounts::getData,
                                                                                        &zk::ZooKeeper::getData, &zk::ZooKeeper::getData};
const CuratorFramework::ReadOperation<zk::ChildrenResult> CuratorFramework::getChildrenOperation{
    "getChildren", &RequestCounts::getChildren, &zk::ZooKeeper::getChildren, &zk::ZooKeeper::getChildren};

template <class Result>
sim::Task<Result> CuratorFramework::readWithRetry(const ReadOperation<Result>& operation, std::string path, CuratorWatcher watcher,
                                                  Call call, sim::Instant start, zk::Code failed) {
  RetryLoop loop(*this, operation.name, call, start);
  zk::Code code = failed;
  while (true) {
    if (code == zk::Code::ok) code = co_await loop.beforeAttempt();
    if (code == zk::Code::ok) {
      std::uint64_t id = 0;
      requestCounts_.*operation.count += 1;
      zk::Async<Result> pending = (client_.getZooKeeper().*operation.read)(path, usingWatcher(watcher, client_.getInstanceIndex(), id));
      Result result = co_await std::move(pending);
      if (result.code == zk::Code::ok) co_return result;
      if (id != 0) dropWatcher(id);  // a data or child watch only on success
      ELECTSIM_ASSERT(result.stat == zk::Stat{});
      code = result.code;
    }
    if (!co_await loop.shouldRetry(code)) co_return Result{code, {}, {}};
    code = zk::Code::ok;
  }
}

bool CuratorFramework::canReadInBackground() {
  // What readWithRetry's first beforeAttempt answers at once; the attempt is the same request.
  return RetryLoop::backgroundAttemptReady(*this) && client_.getZooKeeper().hasCallbacks();
}

template <class Result>
bool CuratorFramework::readInBackground(const ReadOperation<Result>& operation, std::string path, std::function<void(Result)> callback) {
  if (!canReadInBackground()) return false;
  zk::ZooKeeper& zk = client_.getZooKeeper();
  requestCounts_.*operation.count += 1;
  (zk.*operation.readWithCallback)(std::move(path), {}, std::move(callback));
  return true;
}

sim::Task<zk::DataResult> CuratorFramework::getData(std::string path, CuratorWatcher watcher, Call call) {
  return readWithRetry(getDataOperation, std::move(path), std::move(watcher), call, sim().now());
}

sim::Task<zk::ChildrenResult> CuratorFramework::getChildren(std::string path, CuratorWatcher watcher, Call call) {
  return readWithRetry(getChildrenOperation, std::move(path), std::move(watcher), call, sim().now());
}

bool CuratorFramework::getDataInBackground(std::string path, zk::ZooKeeper::DataCallback callback) {
  return readInBackground(getDataOperation, std::move(path), std::move(callback));
}

bool CuratorFramework::getChildrenInBackground(std::string path, zk::ZooKeeper::ChildrenCallback callback) {
  return readInBackground(getChildrenOperation, std::move(path), std::move(callback));
}

sim::Task<zk::DataResult> CuratorFramework::backgroundGetData(std::string path, sim::Instant start, zk::Code failed) {
  return readWithRetry(getDataOperation, std::move(path), {}, Call::inBackground, start, failed);
}

sim::Task<zk::ChildrenResult> CuratorFramework::backgroundGetChildren(std::string path, sim::Instant start, zk::Code failed) {
  return readWithRetry(getChildrenOperation, std::move(path), {}, Call::inBackground, start, failed);
}

sim::Task<zk::Code> CuratorFramework::addWatch(std::string basePath, CuratorWatcher watcher, zk::AddWatchMode mode, Call call) {
  ELECTSIM_ASSERT_MSG(watcher.process && !basePath.empty(), "addWatch needs a watcher and a path");
  RetryLoop loop(*this, "addWatch", call);
  while (true) {
    zk::Code code = co_await loop.beforeAttempt();
    if (code == zk::Code::ok) {
      zk::ZooKeeper& zk = client_.getZooKeeper();
      const std::int64_t instance = client_.getInstanceIndex();
      // ZKWatchManager keeps a path's watchers in a set, and Curator's NamespaceWatcher is equal
      // for the same watcher and path: adding the same watcher again on the same handle only
      // re-adds the server's watch (an empty watcher here), it is not delivered twice.
      const bool held = std::any_of(watchers_.begin(), watchers_.end(), [&](const auto& item) {
        const WatcherEntry& entry = item.second;
        return entry.persistent() && entry.owner == watcher.owner && entry.instanceIndex == instance &&
               entry.persistentPath == basePath && entry.persistentMode == mode;
      });
      std::uint64_t id = 0;
      zk::Watcher wrapped;
      if (!held) {
        wrapped = usingWatcher(watcher, instance, id);
        watchers_.at(id).persistentPath = basePath;
        watchers_.at(id).persistentMode = mode;
      }
      requestCounts_.addWatch++;
      code = co_await zk.addWatch(basePath, std::move(wrapped), mode);
      if (id != 0 && code != zk::Code::ok) dropWatcher(id);  // AddWatchRegistration: only on OK
    }
    if (code == zk::Code::ok) co_return code;
    if (!co_await loop.shouldRetry(code)) co_return code;
  }
}

sim::Task<zk::StatResult> CuratorFramework::setData(std::string path, std::string data, std::int32_t version, Call call) {
  RetryLoop loop(*this, "setData", call);
  while (true) {
    zk::StatResult result;
    result.code = co_await loop.beforeAttempt();
    if (result.code == zk::Code::ok) {
      requestCounts_.setData++;
      result = co_await client_.getZooKeeper().setData(path, data, version);
    }
    if (result.code == zk::Code::ok) co_return result;
    if (!co_await loop.shouldRetry(result.code)) co_return result;
  }
}

sim::Task<zk::Code> CuratorFramework::deleteNode(std::string path, DeleteOptions options) {
  RetryLoop loop(*this, "delete", options.call);
  while (true) {
    zk::Code code = co_await loop.beforeAttempt();
    if (code == zk::Code::ok) {
      zk::ZooKeeper& zk = client_.getZooKeeper();
      requestCounts_.deleteNode++;
      code = co_await zk.deleteNode(path, options.version);
      if (code == zk::Code::not_empty && options.deletingChildrenIfNeeded) code = co_await deleteChildren(zk, path);
    }
    if (code == zk::Code::no_node && options.quietly) code = zk::Code::ok;
    if (code == zk::Code::ok) co_return code;
    if (co_await loop.shouldRetry(code)) continue;
    // A guaranteed delete that failed for a retryable reason goes to the FailedDeleteManager.
    if (options.guaranteed && ExponentialBackoffRetry::isRetryable(code)) deleteGuaranteedInBackground(path);
    co_return code;
  }
}

sim::Task<zk::Code> CuratorFramework::deleteChildren(zk::ZooKeeper& zk, std::string path) {
  // ZKPaths.deleteChildren(zk, path, deleteSelf = true): depth first, NONODE ignored, and again
  // if someone added a child meanwhile.
  for (int round = 0; round < delete_children_rounds_max; round++) {
    requestCounts_.getChildren++;
    zk::ChildrenResult children = co_await zk.getChildren(path);
    if (children.code == zk::Code::no_node) co_return zk::Code::ok;
    if (children.code != zk::Code::ok) co_return children.code;
    for (const std::string& child : children.children) {
      zk::Code code = co_await deleteChildren(zk, ZKPaths::makePath(path, child));
      if (code != zk::Code::ok) co_return code;
    }
    requestCounts_.deleteNode++;
    zk::Code code = co_await zk.deleteNode(path);
    if (code == zk::Code::ok || code == zk::Code::no_node) co_return zk::Code::ok;
    if (code != zk::Code::not_empty) co_return code;
  }
  co_return zk::Code::not_empty;
}

sim::Task<zk::MultiResult> CuratorFramework::transaction(std::vector<zk::Op> ops) {
  RetryLoop loop(*this, "transaction", Call::foreground);
  while (true) {
    zk::MultiResult result;
    result.code = co_await loop.beforeAttempt();
    if (result.code == zk::Code::ok) {
      requestCounts_.multi++;
      result = co_await client_.getZooKeeper().multi(ops);  // a copy per attempt
    }
    if (result.code == zk::Code::ok) co_return result;
    if (!co_await loop.shouldRetry(result.code)) co_return result;
  }
}

}  // namespace curator
