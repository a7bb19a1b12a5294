// JobScheduleController (3.0.4) and the part of Quartz 2.3 it drives: one StdScheduler per job with
// threadCount=1, misfireThreshold=1 ms, a cron trigger with MISFIRE_INSTRUCTION_DO_NOTHING, the
// JobTriggerListener and the JobShutdownHookPlugin (JobScheduler.getQuartzProps).
//
// The scheduler thread (QuartzSchedulerThread with its single worker) is one coroutine:
//   - it acquires the trigger only when the worker is free (blockForAvailableThreads), so a fire
//     time that passes while the previous execution still runs is not queued: when the worker is
//     free again the trigger's next fire time is more than 1 ms in the past, RAMJobStore.applyMisfire
//     tells the trigger listener (triggerMisfired) and DO_NOTHING moves the trigger to the next fire
//     time after now;
//   - pauseAll (ElasticJob's pauseJob on SUSPENDED/LOST) stops future fires only; an execution in
//     progress carries on. resumeAll applies the same misfire rule at once, from the caller;
//   - shutdown(false) halts the thread without waiting for the running execution and runs the
//     plugin's shutdown right away; shutdown(true) (the JVM shutdown hook's cleanShutdown) waits for
//     the running execution first.
// Fire times are the multiples of the fire interval (the cron "0/5 * * * * ?"), the same on every
// instance: the first is the first one after (schedule time - 1 s), as CronTrigger.computeFirstFireTime.
#pragma once

#include <optional>
#include <string>

#include "sim/node.h"
#include "sim/sync.h"

namespace elasticjob {

// What Quartz calls back: LiteJob.execute, JobTriggerListener.triggerMisfired and
// JobShutdownHookPlugin.shutdown.
class QuartzJob {
 public:
  virtual ~QuartzJob() = default;
  virtual sim::Task<void> execute(sim::Instant fireTime) = 0;
  virtual sim::Task<void> triggerMisfired(bool hasPreviousFireTime) = 0;
  virtual sim::Task<void> pluginShutdown() = 0;
};

class JobScheduleController {
 public:
  static constexpr sim::Duration misfireThreshold = std::chrono::milliseconds(1);

  JobScheduleController(sim::Node& node, std::string jobName, QuartzJob& job);
  JobScheduleController(const JobScheduleController&) = delete;
  JobScheduleController& operator=(const JobScheduleController&) = delete;

  // scheduleJob(cron, timeZone): the trigger, then scheduler.start().
  void scheduleJob(sim::Duration fireInterval);
  // Trigger state PAUSED (and not shut down); NONE, so not paused, before scheduleJob.
  bool isPaused() const { return !shutdown_ && paused_; }
  // scheduler.pauseAll(): only a trigger already stored is paused.
  void pauseJob();
  sim::Task<void> resumeJob();
  sim::Task<void> shutdown(bool isCleanShutdown = false);
  bool isShutdown() const { return shutdown_; }
  bool isExecuting() const { return executing_; }
  std::optional<sim::Instant> getNextFireTime() const { return nextFireTime_; }

 private:
  sim::Task<void> schedulerThread();
  sim::Task<void> applyMisfire();
  sim::Instant fireTimeAfter(sim::Instant time) const;
  void emit(std::string_view kind);

  sim::Node& node_;
  std::string jobName_;
  QuartzJob& job_;
  sim::Duration fireInterval_{0};
  bool scheduled_ = false;
  bool paused_ = false;
  bool shutdown_ = false;
  bool executing_ = false;
  std::optional<sim::Instant> nextFireTime_;
  std::optional<sim::Instant> previousFireTime_;
  sim::Condition changed_;         // schedulerChanged / pause / resume / shutdown
  sim::Condition executionDone_;   // the worker became free
};

}  // namespace elasticjob
