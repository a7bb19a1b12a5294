// CreateBuilderImpl: a create with its retries, parent creation and protection (ProtectedMode).
//
// Curator 5.x CreateBuilderImpl.pathInForeground and pathInBackground. A protected create names
// its node `_c_<uuid>-<name>`; every attempt after the first looks for that name first
// (findProtectedNodeInForeground), since an earlier attempt's create may have succeeded with its
// reply lost.
//
// The find is a nested RetryLoop.callWithRetry, and that is where the two ways differ:
//
//   foreground: on the create's own thread, so ThreadLocalRetryLoop hands it the create's loop
//     (CURATOR-559). The find's success marks that shared loop complete; if the create after it
//     then fails retryably, the loop sleeps and ends with no result, and the create returns null.
//     No exception, so no FindAndDeleteProtectedNodeInBackground either: a node that create made
//     stays until its session ends. A find that fails for good fails the create.
//   background: on the background thread, where no loop is open, so the find has a loop of its own:
//     it blocks until connected (at most connectionTimeout) and retries with its own count. Only
//     its final CONNECTIONLOSS goes back to the create's OperationAndData as the attempt's result.
#include <algorithm>

#include "model/curator/CuratorFramework.h"
#include "model/curator/ProtectedUtils.h"
#include "model/curator/RetryLoop.h"
#include "model/curator/ZKPaths.h"

namespace curator {

sim::Task<zk::CreateResult> CuratorFramework::create(std::string path, std::string data, CreateOptions options) {
  ELECTSIM_ASSERT(!path.empty() && path.front() == '/');
  const bool protect = options.withProtection;
  const bool ephemeral = zk::is_ephemeral(options.mode);
  const bool parents = options.creatingParentsIfNeeded || options.creatingParentContainersIfNeeded;
  // ProtectedMode: one UUID for every attempt of this create.
  std::string protectedId = protect ? (options.protectedId.empty() ? newProtectedId() : options.protectedId) : std::string();
  std::string adjustedPath = protect ? ProtectedUtils::toProtectedZNodePath(path, protectedId) : path;
  ProtectedFind find{ZKPaths::getParent(adjustedPath), protect ? ProtectedUtils::getProtectedPrefix(protectedId) : std::string(),
                     protect && ephemeral};
  bool firstTime = true;
  // Foreground: a find has marked the shared loop complete (RetryLoop.markComplete).
  bool loopComplete = false;
  RetryLoop loop(*this, "create", options.call);
  while (true) {
    zk::CreateResult result;
    result.code = co_await loop.beforeAttempt();
    bool findFailed = false;  // foreground: the find's failure is the create's (ThreadLocalRetryLoop's takenException)
    if (result.code == zk::Code::ok) {
      bool localFirstTime = std::exchange(firstTime, false);
      if (find.ephemeral && find.sessionId == 0) find.sessionId = client_.getZooKeeper().getSessionId();  // checkSetSessionId
      if (protect && !localFirstTime) {
        if (options.call == Call::foreground) {
          result = co_await findProtectedNodeInForeground(loop, find);
          findFailed = result.code != zk::Code::ok;
          loopComplete = !findFailed;
        } else {
          RetryLoop findLoop(*this, "findProtectedNode", Call::foreground);
          result = co_await findProtectedNodeInForeground(findLoop, find);
        }
        if (result.code == zk::Code::ok && !result.path.empty()) co_return result;  // an earlier attempt made it
      }
      if (result.code == zk::Code::ok) {
        zk::ZooKeeper& zk = client_.getZooKeeper();  // handles live as long as the framework
        requestCounts_.create++;
        result = co_await zk.create(adjustedPath, data, options.mode);
        if (result.code == zk::Code::no_node && parents) {
          zk::Code made = co_await mkdirs(zk, find.parentPath);
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
    if (!findFailed) {
      if (!loopComplete) {
        if (co_await loop.shouldRetry(result.code)) continue;
      } else if (co_await loop.shouldRetry(result.code)) {
        // takeException allowed a retry (and slept), but the loop is complete: callWithRetry
        // returns its null result.
        sim().trace().emit(node_.id(), "curator.create_null", {{"path", adjustedPath}, {"code", zk::code_name(result.code)}});
        co_return zk::CreateResult{zk::Code::ok, std::string()};
      }
    }
    // Giving up. A protected create may have left its node on the server: find it and delete it
    // (CURATOR-45); foreground only after a connection loss, background after any retryable code.
    bool orphanPossible = options.call == Call::foreground ? result.code == zk::Code::connection_loss
                                                            : ExponentialBackoffRetry::isRetryable(result.code);
    if (protect && orphanPossible) findAndDeleteProtectedNodeInBackground(find.parentPath, protectedId);
    co_return result;
  }
}

sim::Task<zk::CreateResult> CuratorFramework::findProtectedNodeInForeground(RetryLoop& loop, ProtectedFind& find) {
  // callWithRetry: internalBlockUntilConnectedOrTimedOut, then the attempts.
  zk::Code code = co_await loop.blockUntilConnectedOrTimedOut();
  while (code == zk::Code::ok) {
    requestCounts_.getChildren++;
    zk::ChildrenResult children = co_await client_.getZooKeeper().getChildren(find.parentPath);
    if (children.code == zk::Code::no_node) co_return zk::CreateResult{zk::Code::ok, std::string()};  // "ignore"
    if (children.code == zk::Code::ok) {
      std::string found;
      auto match = std::find_if(children.children.begin(), children.children.end(),
                                [&find](const std::string& child) { return child.starts_with(find.prefix); });
      if (match != children.children.end()) found = ZKPaths::makePath(find.parentPath, *match);
      // ProtectedMode.validateFoundNode (CURATOR-498): a node of an older session is not ours any
      // more. Only after a successful read, as in Java, where it follows getChildren in one try.
      zk::SessionId currentSession = client_.getZooKeeper().getSessionId();
      if (find.ephemeral && currentSession != find.sessionId) {
        if (!found.empty()) deleteGuaranteedInBackground(found);
        found.clear();
        find.sessionId = currentSession;
      }
      co_return zk::CreateResult{zk::Code::ok, std::move(found)};
    }
    code = children.code;
    if (co_await loop.shouldRetry(code)) code = zk::Code::ok;
  }
  co_return zk::CreateResult{code, std::string()};
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

}  // namespace curator
