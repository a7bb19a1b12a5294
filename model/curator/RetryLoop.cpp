#include "model/curator/RetryLoop.h"

namespace curator {

namespace {
constexpr sim::Duration forced_sleep = 1000ms;  // performBackgroundOperation's requeue while disconnected
}

RetryLoop::RetryLoop(CuratorFramework& client, std::string_view operation, Call call) : RetryLoop(client, operation, call, client.sim().now()) {}

RetryLoop::RetryLoop(CuratorFramework& client, std::string_view operation, Call call, sim::Instant start)
    : client_(client), operation_(operation), call_(call), start_(start) {
  ELECTSIM_ASSERT(!operation.empty());
  ELECTSIM_ASSERT(start <= client.sim().now());
}

bool RetryLoop::backgroundAttemptReady(CuratorFramework& client) {
  return client.isStarted() && client.getZookeeperClient().isConnected();
}

sim::Eager<zk::Code> RetryLoop::beforeAttempt() {
  // Nearly always the connection is up (or a foreground loop already waited once): answered without
  // a coroutine frame, with what the wait would answer at once.
  if (!client_.isStarted()) return zk::Code::session_expired;
  if (call_ == Call::foreground) {
    if (waitedForConnection_) return zk::Code::ok;
    return blockUntilConnectedOrTimedOut();
  }
  if (backgroundAttemptReady(client_)) return zk::Code::ok;
  return waitForBackgroundConnection();
}

sim::Eager<zk::Code> RetryLoop::blockUntilConnectedOrTimedOut() {
  ELECTSIM_ASSERT(call_ == Call::foreground);
  if (!client_.isStarted()) return zk::Code::session_expired;
  waitedForConnection_ = true;
  if (client_.getZookeeperClient().isConnected()) return zk::Code::ok;
  return waitForForegroundConnection();
}

sim::Task<zk::Code> RetryLoop::waitForForegroundConnection() {
  // Started at once by blockUntilConnectedOrTimedOut: started and not connected.
  ELECTSIM_ASSERT(client_.isStarted() && call_ == Call::foreground);
  CuratorZookeeperClient& zookeeper = client_.getZookeeperClient();
  sim::Instant deadline = client_.sim().now() + client_.config().connectionTimeout;
  while (!zookeeper.isConnected() && client_.sim().now() < deadline && client_.isStarted()) {
    co_await client_.backgroundWake_.wait_until(deadline);
  }
  co_return client_.isStarted() ? zk::Code::ok : zk::Code::session_expired;
}

sim::Task<zk::Code> RetryLoop::waitForBackgroundConnection() {
  // Started at once by beforeAttempt: started and not connected.
  ELECTSIM_ASSERT(client_.isStarted() && call_ == Call::inBackground);
  CuratorZookeeperClient& zookeeper = client_.getZookeeperClient();
  while (!zookeeper.isConnected()) {
    if (client_.sim().now() - start_ >= client_.config().connectionTimeout) co_return zk::Code::connection_loss;
    co_await sim::first_of(client_.sim(), client_.backgroundWake_, sim::Timeout{forced_sleep});
    if (!client_.isStarted()) co_return zk::Code::session_expired;
  }
  co_return zk::Code::ok;
}

sim::Task<bool> RetryLoop::shouldRetry(zk::Code code) {
  ELECTSIM_ASSERT(code != zk::Code::ok);
  if (!ExponentialBackoffRetry::isRetryable(code) || !client_.isStarted()) co_return false;
  std::optional<sim::Duration> sleep = client_.getRetryPolicy().allowRetry(retryCount_);
  if (!sleep) {
    if (call_ == Call::inBackground) {
      // "Background operation retry gave up"
      std::optional<zk::KeeperState> state = CuratorFramework::codeToState(code);
      if (state) client_.validateConnection(*state);
    }
    co_return false;
  }
  retryCount_++;
  client_.sim().trace().emit(client_.node().id(), "curator.retry",
                             {{"operation", operation_}, {"attempt", retryCount_}, {"sleep_ms", sim::millis(*sleep)}});
  co_await client_.sim().sleep(*sleep);
  co_return client_.isStarted();
}

}  // namespace curator
