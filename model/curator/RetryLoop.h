// RetryLoop.callWithRetry for foreground operations and OperationAndData's retry handling for
// background ones, as one object an operation keeps in its own frame:
//
//   RetryLoop loop(client, "getData", call);
//   while (true) {
//     zk::Code code = co_await loop.beforeAttempt();
//     if (code == zk::Code::ok) code = ...one ZooKeeper call...;
//     if (code == zk::Code::ok || !co_await loop.shouldRetry(code)) co_return ...;
//   }
//
// A foreground protected create's find is a nested callWithRetry: it shares the create's loop, as
// ThreadLocalRetryLoop shares one loop among nested callWithRetry calls on a thread (CURATOR-559);
// see CuratorFramework::create. mkdirs is plain ZooKeeper calls within the create's attempt.
#pragma once

#include <string_view>

#include "model/curator/CuratorFramework.h"
#include "sim/eager.h"

namespace curator {

class RetryLoop {
 public:
  // `operation` names the operation in the trace; it must be a string literal. `start`: when the
  // operation began (its first attempt), if before now.
  RetryLoop(CuratorFramework& client, std::string_view operation, Call call);
  RetryLoop(CuratorFramework& client, std::string_view operation, Call call, sim::Instant start);

  // Whether beforeAttempt of a background operation answers OK at once: started and connected.
  static bool backgroundAttemptReady(CuratorFramework& client);

  // Before each attempt. Foreground: the first time only, wait up to connectionTimeout for the
  // connection (internalBlockUntilConnectedOrTimedOut). Background: while disconnected and younger
  // than connectionTimeout, wait in 1 s steps (cut short by SyncConnected); once older, the answer
  // is CONNECTIONLOSS without calling ZooKeeper (CURATOR-52). SESSIONEXPIRED if the framework is
  // closed.
  // Ready at once (no coroutine) when there is nothing to wait for.
  sim::Eager<zk::Code> beforeAttempt();
  // Foreground only: CuratorZookeeperClient.internalBlockUntilConnectedOrTimedOut, which every
  // callWithRetry runs before its first attempt, a nested one included: wait at most
  // connectionTimeout for the connection. OK, or SESSIONEXPIRED if the framework is closed.
  sim::Eager<zk::Code> blockUntilConnectedOrTimedOut();
  // After a failed attempt: sleeps and answers true when the code is retryable and the policy
  // allows another attempt. A background operation that runs out of retries calls
  // validateConnection(codeToState(code)).
  sim::Task<bool> shouldRetry(zk::Code code);

  int retryCount() const { return retryCount_; }

 private:
  sim::Task<zk::Code> waitForForegroundConnection();  // blockUntilConnectedOrTimedOut when it has to wait
  sim::Task<zk::Code> waitForBackgroundConnection();  // beforeAttempt of a background loop when it has to wait

  CuratorFramework& client_;
  std::string_view operation_;
  Call call_;
  sim::Instant start_;
  int retryCount_ = 0;
  bool waitedForConnection_ = false;
};

}  // namespace curator
