// The operation builders of CuratorFrameworkImpl but CreateBuilderImpl (CreateBuilderImpl.cpp):
// ExistsBuilderImpl, GetDataBuilderImpl, GetChildrenBuilderImpl, SetDataBuilderImpl,
// DeleteBuilderImpl and CuratorMultiTransactionImpl, each a loop over RetryLoop.
#include <algorithm>

#include "model/curator/CuratorFramework.h"
#include "model/curator/RetryLoop.h"
#include "model/curator/ZKPaths.h"

namespace curator {

namespace {
constexpr int delete_children_rounds_max = 16;  // NOTEMPTY again after deleting the children: others keep adding
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
