// LeaderSelector (curator-recipes leader): leadership is held while the listener's takeLeadership
// runs, over an InterProcessMutex on the leader path (lock nodes _c_<uuid>-lock-NNNNNNNNNN, data
// = the id).
//
//   start     -> the WrappedListener becomes a connection-state listener; requeue().
//   requeue   -> internalRequeue: if no task is queued or running (ourTask == null) and STARTED,
//                submit doWorkLoop to the single-thread executor.
//   doWork    -> taskStarted; mutex.acquire(); hasLeadership = true; takeLeadership(client); then,
//                finally, taskDone() (ourTask = ourThread = null; requeue if autoRequeue; returns
//                whether we led) and, if we led, mutex.release() (a guaranteed foreground delete).
//   states    -> the listener's stateChanged decides; true is Java's CancelLeadershipException and
//                cancelElection() interrupts the running task, leader or still acquiring.
//                LeaderSelectorListenerAdapter cancels on the error states (SUSPENDED and LOST by
//                default).
//
// Threads and interrupts: the executor is a coroutine that runs one task at a time. An interrupt
// destroys the running task's coroutines (the InterruptedException unwinding them: a
// takeLeadership coroutine must be safe to destroy at any co_await, as a Java one must honour
// interrupts) and runs what its catch and finally blocks do: a lock node being acquired is deleted
// in the background, taskDone() requeues, and a leader releases the mutex. interrupt sources are
// the state listener, close() and interruptLeadership(); none may be called from inside
// takeLeadership (a coroutine cannot destroy itself), which Java would allow.
#pragma once

#include <optional>
#include <string>

#include "model/curator/InterProcessMutex.h"

namespace curator {

class LeaderSelectorListener {
 public:
  virtual ~LeaderSelectorListener() = default;
  // We lead until this returns. Destroyed at a co_await when leadership is interrupted.
  virtual sim::Task<void> takeLeadership(CuratorFramework& client) = 0;
  // True cancels the election (Java: throws CancelLeadershipException).
  virtual bool stateChanged(CuratorFramework& client, ConnectionState newState) = 0;
};

// LeaderSelectorListenerAdapter: cancel on the error policy's error states.
class LeaderSelectorListenerAdapter : public LeaderSelectorListener {
 public:
  bool stateChanged(CuratorFramework& client, ConnectionState newState) override {
    return isErrorState(client.getConnectionStateErrorPolicy(), newState);
  }
};

class LeaderSelector {
 public:
  LeaderSelector(CuratorFramework& client, std::string leaderPath, LeaderSelectorListener& listener, std::string id = "",
                 CuratorBugs bugs = {});
  ~LeaderSelector();
  LeaderSelector(const LeaderSelector&) = delete;
  LeaderSelector& operator=(const LeaderSelector&) = delete;

  void autoRequeue() { autoRequeue_ = true; }
  void start();
  bool requeue();
  void close();
  bool hasLeadership() const { return hasLeadership_; }
  // Interrupts the task only if it leads.
  void interruptLeadership();

  const std::string& getId() const { return id_; }
  const std::string& getPath() const { return leaderPath_; }
  std::uint64_t leadershipCount() const { return leaderships_; }
  std::uint64_t interruptions() const { return interruptions_; }
  InterProcessMutex& mutex() { return mutex_; }

 private:
  enum class State : std::uint8_t { latent, started, closed };

  bool internalRequeue();
  sim::Task<void> executorLoop();
  sim::Task<void> doWorkLoop();
  sim::Task<void> doWork();
  sim::Task<void> afterInterrupt();
  void taskStarted() { ourThread_ = true; }
  bool taskDone();
  void finishTask();
  void cancelElection() { interrupt(); }
  void interrupt();
  void wrappedStateChanged(ConnectionState newState);
  void trace(std::string_view kind);

  CuratorFramework& client_;
  std::string leaderPath_;
  LeaderSelectorListener& listener_;
  std::string id_;
  InterProcessMutex mutex_;
  State state_ = State::latent;
  bool autoRequeue_ = false;
  bool hasLeadership_ = false;
  bool ourTask_ = false;    // a task is queued or running
  bool ourThread_ = false;  // a task runs and has not reached taskDone
  int pendingTasks_ = 0;    // submitted, not started (at most one)
  bool taskRunning_ = false;
  std::optional<std::uint64_t> stateListener_;
  std::uint64_t leaderships_ = 0;
  std::uint64_t interruptions_ = 0;
  sim::Condition executorWake_;
  sim::Condition taskFinished_;
  sim::Scope executorScope_;
  sim::Scope taskScope_;  // declared last: destroyed first
};

}  // namespace curator
