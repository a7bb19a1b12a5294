#include "model/curator/InterProcessMutex.h"

namespace curator {

InterProcessMutex::InterProcessMutex(CuratorFramework& client, std::string path, std::string lockNodeBytes, CuratorBugs bugs)
    : lockNodeBytes_(std::move(lockNodeBytes)), internals_(client, std::move(path), std::string(LOCK_NAME), 1, bugs) {}

sim::Task<zk::Code> InterProcessMutex::acquire() {
  LockResult result = co_await internalLock(std::nullopt);
  if (result.code != zk::Code::ok) co_return result.code;
  co_return result.acquired ? zk::Code::ok : zk::Code::connection_loss;
}

sim::Task<InterProcessMutex::LockResult> InterProcessMutex::acquire(sim::Duration time) { return internalLock(time); }

sim::Task<InterProcessMutex::LockResult> InterProcessMutex::internalLock(std::optional<sim::Duration> time) {
  if (lockData_) {
    lockData_->lockCount++;  // re-entering
    co_return LockResult{zk::Code::ok, true};
  }
  LockInternals::AttemptResult attempt = co_await internals_.attemptLock(time, lockNodeBytes_);
  if (attempt.code != zk::Code::ok) co_return LockResult{attempt.code, false};
  if (attempt.nullPath) co_return LockResult{zk::Code::ok, false, true};
  if (attempt.ourPath.empty()) co_return LockResult{zk::Code::ok, false};
  ELECTSIM_ASSERT(!lockData_.has_value());
  lockData_ = LockData{attempt.ourPath, 1};
  co_return LockResult{zk::Code::ok, true};
}

sim::Task<void> InterProcessMutex::release() {
  ELECTSIM_ASSERT_MSG(lockData_.has_value(), "You do not own the lock");  // IllegalMonitorStateException
  if (--lockData_->lockCount > 0) co_return;
  ELECTSIM_ASSERT(lockData_->lockCount == 0);
  std::string lockPath = lockData_->lockPath;
  co_await internals_.releaseLock(std::move(lockPath));
  lockData_.reset();  // removed in a finally block in Java, whatever the delete did
}

}  // namespace curator
