// InterProcessMutex: a re-entrant lock over LockInternals with lock name "lock-".
//
// Java ties the lock to the acquiring Thread (a map Thread -> LockData); coroutines have no thread
// identity, so here the mutex object itself is the owner and re-entry is counted per object.
// The mutex does not listen to connection states: a holder whose session expired still believes
// it holds the lock until its user reacts to SUSPENDED or LOST (LeaderSelector does).
#pragma once

#include <optional>
#include <string>

#include "model/curator/LockInternals.h"

namespace curator {

class InterProcessMutex {
 public:
  static constexpr std::string_view LOCK_NAME = "lock-";
  struct LockResult {
    zk::Code code = zk::Code::ok;  // not ok: what acquire would throw
    bool acquired = false;
    bool nullPath = false;  // acquire threw NullPointerException (LockInternals::AttemptResult::nullPath)
  };

  // lockNodeBytes: the lock node's data (LeaderSelector passes its id).
  InterProcessMutex(CuratorFramework& client, std::string path, std::string lockNodeBytes = "", CuratorBugs bugs = {});

  // acquire(): waits as long as it takes. Java throws IOException("Lost connection while trying to
  // acquire lock") when attemptLock gives nothing back (the client stopped): CONNECTIONLOSS here.
  // So is the NullPointerException of a null lock path: LeaderSelector.doWork, its caller, ends
  // its task the same way whatever acquire throws.
  sim::Task<zk::Code> acquire();
  // acquire(time, unit): acquired = false when the time ran out.
  sim::Task<LockResult> acquire(sim::Duration time);
  // The last release deletes the lock node (guaranteed, foreground).
  sim::Task<void> release();
  bool isAcquiredInThisProcess() const { return lockData_.has_value(); }
  std::optional<std::string> getLockPath() const { return lockData_ ? std::optional<std::string>(lockData_->lockPath) : std::nullopt; }
  // After the coroutine blocked in acquire() was destroyed (an interrupt): clean up as its catch
  // block would.
  void abandonAcquire() { internals_.abandonAttempt(); }
  LockInternals& internals() { return internals_; }

 private:
  struct LockData {
    std::string lockPath;
    int lockCount = 1;
  };
  sim::Task<LockResult> internalLock(std::optional<sim::Duration> time);

  std::string lockNodeBytes_;
  LockInternals internals_;
  std::optional<LockData> lockData_;
};

}  // namespace curator
