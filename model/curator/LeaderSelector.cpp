#include "model/curator/LeaderSelector.h"

namespace curator {

LeaderSelector::LeaderSelector(CuratorFramework& client, std::string leaderPath, LeaderSelectorListener& listener, std::string id,
                               CuratorBugs bugs)
    : client_(client),
      leaderPath_(leaderPath),
      listener_(listener),
      id_(id),
      mutex_(client, std::move(leaderPath), std::move(id), bugs),  // getLockNodeBytes: the id
      executorWake_(client.sim()),
      taskFinished_(client.sim()),
      executorScope_(client.sim(), client.node().id()),
      taskScope_(client.sim(), client.node().id()) {}

LeaderSelector::~LeaderSelector() {
  if (state_ == State::started) close();
  taskScope_.clear();
  executorScope_.clear();
  // Whatever the destroyed task left on the server goes in the background: a lock being acquired,
  // or the lock we hold (or were releasing).
  if (ourThread_ && !hasLeadership_) mutex_.abandonAcquire();
  std::optional<std::string> lockPath = mutex_.getLockPath();
  if (lockPath) client_.deleteGuaranteedInBackground(*lockPath);
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
}

void LeaderSelector::start() {
  ELECTSIM_ASSERT_MSG(state_ == State::latent, "Cannot be started more than once");
  state_ = State::started;
  stateListener_ = client_.getConnectionStateListenable().addListener([this](ConnectionState newState) { wrappedStateChanged(newState); });
  executorScope_.spawn(executorLoop());
  requeue();
}

bool LeaderSelector::requeue() {
  ELECTSIM_ASSERT_MSG(state_ == State::started, "close() has already been called");
  return internalRequeue();
}

bool LeaderSelector::internalRequeue() {
  if (ourTask_ || state_ != State::started) return false;
  ourTask_ = true;
  pendingTasks_++;
  ELECTSIM_ASSERT(pendingTasks_ == 1);
  executorWake_.notify_all();
  return true;
}

void LeaderSelector::close() {
  ELECTSIM_ASSERT_MSG(state_ == State::started, "Already closed or has not been started");
  state_ = State::closed;
  if (stateListener_) client_.getConnectionStateListenable().removeListener(*stateListener_);
  stateListener_.reset();
  // executorService.close(): queued tasks are dropped, the running one is interrupted.
  pendingTasks_ = 0;
  interrupt();
  ourTask_ = false;
}

void LeaderSelector::interruptLeadership() {
  if (hasLeadership_) interrupt();
}

sim::Task<void> LeaderSelector::executorLoop() {
  // A single-thread executor: one task at a time, in submission order.
  while (true) {
    while (pendingTasks_ == 0) co_await executorWake_.wait();
    pendingTasks_--;
    taskRunning_ = true;
    taskScope_.spawn(doWorkLoop());
    while (taskRunning_) co_await taskFinished_.wait();
  }
}

sim::Task<void> LeaderSelector::doWorkLoop() {
  // ConnectionLoss and SessionExpired from acquire are rethrown only without autoRequeue, and the
  // executor's Future swallows them either way.
  co_await doWork();
  finishTask();
}

sim::Task<void> LeaderSelector::doWork() {
  taskStarted();
  hasLeadership_ = false;
  zk::Code acquired = co_await mutex_.acquire();
  if (acquired == zk::Code::ok) {
    hasLeadership_ = true;
    leaderships_++;
    trace("selector.leader");
    co_await listener_.takeLeadership(client_);
  }
  if (taskDone()) {
    trace("selector.released");
    co_await mutex_.release();
  }
}

void LeaderSelector::interrupt() {
  if (!ourThread_) return;  // nothing runs, or it is already past taskDone (releasing)
  interruptions_++;
  bool acquiring = !hasLeadership_;
  taskScope_.clear();  // Thread.interrupt(): the task unwinds at its current wait
  if (acquiring) mutex_.abandonAcquire();
  taskScope_.spawn(afterInterrupt());
}

sim::Task<void> LeaderSelector::afterInterrupt() {
  // doWork's finally block; the interrupt flag is cleared around release (CURATOR-468).
  if (taskDone()) {
    trace("selector.released");
    co_await mutex_.release();
  }
  finishTask();
}

bool LeaderSelector::taskDone() {
  ourTask_ = false;
  ourThread_ = false;
  bool leadership = std::exchange(hasLeadership_, false);
  if (autoRequeue_) internalRequeue();
  return leadership;
}

void LeaderSelector::finishTask() {
  taskRunning_ = false;
  taskFinished_.notify_all();
}

void LeaderSelector::wrappedStateChanged(ConnectionState newState) {
  if (listener_.stateChanged(client_, newState)) cancelElection();  // CancelLeadershipException
}

void LeaderSelector::trace(std::string_view kind) {
  client_.sim().trace().emit(client_.node().id(), kind, {{"path", leaderPath_}, {"id", id_}});
}

}  // namespace curator
