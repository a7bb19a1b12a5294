#include "model/elasticjob/JobScheduleController.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

namespace {
constexpr std::int64_t fires_max = 100'000'000;  // a run is far shorter
}

JobScheduleController::JobScheduleController(sim::Node& node, std::string jobName, QuartzJob& job)
    : node_(node),
      jobName_(std::move(jobName)),
      job_(job),
      changed_(node.sim()),
      executionDone_(node.sim()) {}

void JobScheduleController::emit(std::string_view kind) { node_.sim().trace().emit(node_.id(), kind, {{"job", jobName_}}); }

sim::Instant JobScheduleController::fireTimeAfter(sim::Instant time) const {
  ELECTSIM_ASSERT(fireInterval_ > sim::Duration::zero());
  // Floor division: the last fire time at or before `time`, counted in intervals.
  std::int64_t count = time.time_since_epoch() / fireInterval_;
  if (time.time_since_epoch() % fireInterval_ < sim::Duration::zero()) count--;
  ELECTSIM_ASSERT(count + 1 < fires_max);
  return sim::epoch + fireInterval_ * (count + 1);
}

void JobScheduleController::scheduleJob(sim::Duration fireInterval) {
  ELECTSIM_ASSERT(fireInterval > sim::Duration::zero());
  if (shutdown_ || scheduled_) return;  // checkExists(jobDetail): scheduled once
  scheduled_ = true;
  fireInterval_ = fireInterval;
  // CronTrigger.computeFirstFireTime: getFireTimeAfter(startTime - 1 s).
  nextFireTime_ = fireTimeAfter(node_.sim().now() - std::chrono::seconds(1));
  node_.spawn(schedulerThread());  // in the process's scope, like every thread of the instance
}

void JobScheduleController::pauseJob() {
  // scheduler.pauseAll(): RAMJobStore.pauseAll pauses the trigger groups that exist, so before
  // scheduleJob there is nothing to pause and the trigger stored later is not paused.
  if (shutdown_ || paused_ || !scheduled_) return;
  paused_ = true;
  emit("job.pause");
  changed_.notify_all();
}

sim::Task<void> JobScheduleController::resumeJob() {
  if (shutdown_ || !paused_) co_return;
  paused_ = false;
  emit("job.resume");
  // RAMJobStore.resumeTrigger -> applyMisfire, on the resuming thread.
  if (scheduled_) co_await applyMisfire();
  changed_.notify_all();
}

sim::Task<void> JobScheduleController::applyMisfire() {
  ELECTSIM_ASSERT(nextFireTime_.has_value());
  if (*nextFireTime_ + misfireThreshold >= node_.sim().now()) co_return;
  sim::Instant missed = *nextFireTime_;
  node_.sim().trace().emit(node_.id(), "job.misfire", {{"job", jobName_}, {"fire", sim::nanos(missed)}});
  // updateAfterMisfire(DO_NOTHING): the next fire time after now. Set before the listener runs (the
  // listener gets a clone of the trigger), so a concurrent look sees the new time.
  nextFireTime_ = fireTimeAfter(node_.sim().now());
  try {
    co_await job_.triggerMisfired(previousFireTime_.has_value());
  } catch (const ElasticJobException& error) {
    node_.sim().trace().emit(node_.id(), "job.error", {{"job", jobName_}, {"where", "JobTriggerListener"}, {"message", error.what()}});
  }
}

sim::Task<void> JobScheduleController::schedulerThread() {
  while (!shutdown_) {
    if (paused_) {
      co_await changed_.wait();  // a paused trigger is not acquired
      continue;
    }
    ELECTSIM_ASSERT(nextFireTime_.has_value());
    if (*nextFireTime_ + misfireThreshold < node_.sim().now()) {
      co_await applyMisfire();
      continue;
    }
    if (node_.sim().now() < *nextFireTime_) {
      co_await changed_.wait_until(*nextFireTime_);  // woken early by pause or shutdown: look again
      continue;
    }
    // triggersFired: the trigger moves on before the job runs on the (only) worker.
    sim::Instant fireTime = *nextFireTime_;
    previousFireTime_ = fireTime;
    nextFireTime_ = fireTimeAfter(fireTime);
    executing_ = true;
    try {
      co_await job_.execute(fireTime);
    } catch (const ElasticJobException& error) {
      // JobRunShell: a job's exception is logged (JobExecutionException) and the trigger goes on.
      node_.sim().trace().emit(node_.id(), "job.error", {{"job", jobName_}, {"where", "ElasticJobExecutor"}, {"message", error.what()}});
    }
    executing_ = false;
    executionDone_.notify_all();
  }
}

sim::Task<void> JobScheduleController::shutdown(bool isCleanShutdown) {
  if (shutdown_) co_return;
  shutdown_ = true;
  changed_.notify_all();  // schedThread.halt()
  if (isCleanShutdown) {
    // threadPool.shutdown(true): wait for the running job.
    while (executing_) co_await executionDone_.wait();
  }
  // shutdownPlugins(): JobShutdownHookPlugin.shutdown().
  co_await job_.pluginShutdown();
}

}  // namespace elasticjob
