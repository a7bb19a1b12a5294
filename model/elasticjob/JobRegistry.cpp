#include "model/elasticjob/JobRegistry.h"

#include <utility>

#include "model/elasticjob/JobScheduleController.h"
#include "model/elasticjob/ZookeeperRegistryCenter.h"

namespace elasticjob {

const JobRegistry::Job* JobRegistry::find(std::string_view jobName) const {
  auto found = jobs_.find(jobName);
  return found == jobs_.end() ? nullptr : &found->second;
}

void JobRegistry::registerRegistryCenter(const std::string& jobName, ZookeeperRegistryCenter& regCenter) {
  jobs_[jobName].regCenter = &regCenter;
  regCenter.addCacheData("/" + jobName);
}

void JobRegistry::registerJob(const std::string& jobName, JobScheduleController& controller) { jobs_[jobName].scheduler = &controller; }

JobScheduleController* JobRegistry::getJobScheduleController(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job == nullptr ? nullptr : job->scheduler;
}

ZookeeperRegistryCenter* JobRegistry::getRegCenter(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job == nullptr ? nullptr : job->regCenter;
}

void JobRegistry::addJobInstance(const std::string& jobName, JobInstance jobInstance) { jobs_[jobName].jobInstance = std::move(jobInstance); }

const JobInstance* JobRegistry::getJobInstance(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job == nullptr || !job->jobInstance ? nullptr : &*job->jobInstance;
}

bool JobRegistry::isJobRunning(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job != nullptr && job->running;
}

void JobRegistry::setJobRunning(const std::string& jobName, bool isRunning) { jobs_[jobName].running = isRunning; }

int JobRegistry::getCurrentShardingTotalCount(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job == nullptr ? 0 : job->currentShardingTotalCount;
}

void JobRegistry::setCurrentShardingTotalCount(const std::string& jobName, int currentShardingTotalCount) {
  ELECTSIM_ASSERT(currentShardingTotalCount >= 0);
  jobs_[jobName].currentShardingTotalCount = currentShardingTotalCount;
}

sim::Task<void> JobRegistry::shutdown(std::string jobName) {
  // Optional.ofNullable(schedulerMap.remove(jobName)).ifPresent(JobScheduleController::shutdown):
  // Quartz's shutdown(false) runs the plugin now, while the registry centre is still registered.
  if (auto job = jobs_.find(jobName); job != jobs_.end() && job->second.scheduler != nullptr) {
    JobScheduleController* removed = std::exchange(job->second.scheduler, nullptr);
    co_await removed->shutdown(false);
  }
  // Entries are never erased, and a map's nodes stay put when it grows: a pointer to the entry
  // holds across the calls below.
  auto found = jobs_.find(jobName);
  Job* job = found == jobs_.end() ? nullptr : &found->second;
  if (job != nullptr) {
    if (ZookeeperRegistryCenter* removed = std::exchange(job->regCenter, nullptr)) removed->evictCacheData("/" + jobName);
  }
  notifiers_.removeJobNotifyExecutor(jobName);
  if (job != nullptr) {
    job->jobInstance.reset();
    job->running = false;
    job->currentShardingTotalCount = 0;
  }
}

bool JobRegistry::isShutdown(const std::string& jobName) const {
  const Job* job = find(jobName);
  return job == nullptr || isShutdown(*job);
}

}  // namespace elasticjob
