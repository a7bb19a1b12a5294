#include "model/elasticjob/JobRegistry.h"

#include "model/elasticjob/JobScheduleController.h"
#include "model/elasticjob/ZookeeperRegistryCenter.h"

namespace elasticjob {

void JobRegistry::registerRegistryCenter(const std::string& jobName, ZookeeperRegistryCenter& regCenter) {
  regCenterMap_[jobName] = &regCenter;
  regCenter.addCacheData("/" + jobName);
}

void JobRegistry::registerJob(const std::string& jobName, JobScheduleController& controller) { schedulerMap_[jobName] = &controller; }

JobScheduleController* JobRegistry::getJobScheduleController(const std::string& jobName) const {
  auto found = schedulerMap_.find(jobName);
  return found == schedulerMap_.end() ? nullptr : found->second;
}

ZookeeperRegistryCenter* JobRegistry::getRegCenter(const std::string& jobName) const {
  auto found = regCenterMap_.find(jobName);
  return found == regCenterMap_.end() ? nullptr : found->second;
}

void JobRegistry::addJobInstance(const std::string& jobName, JobInstance jobInstance) {
  jobInstanceMap_.insert_or_assign(jobName, std::move(jobInstance));
}

const JobInstance* JobRegistry::getJobInstance(const std::string& jobName) const {
  auto found = jobInstanceMap_.find(jobName);
  return found == jobInstanceMap_.end() ? nullptr : &found->second;
}

bool JobRegistry::isJobRunning(const std::string& jobName) const {
  auto found = jobRunningMap_.find(jobName);
  return found != jobRunningMap_.end() && found->second;
}

void JobRegistry::setJobRunning(const std::string& jobName, bool isRunning) { jobRunningMap_[jobName] = isRunning; }

int JobRegistry::getCurrentShardingTotalCount(const std::string& jobName) const {
  auto found = currentShardingTotalCountMap_.find(jobName);
  return found == currentShardingTotalCountMap_.end() ? 0 : found->second;
}

void JobRegistry::setCurrentShardingTotalCount(const std::string& jobName, int currentShardingTotalCount) {
  ELECTSIM_ASSERT(currentShardingTotalCount >= 0);
  currentShardingTotalCountMap_[jobName] = currentShardingTotalCount;
}

sim::Task<void> JobRegistry::shutdown(std::string jobName) {
  // Optional.ofNullable(schedulerMap.remove(jobName)).ifPresent(JobScheduleController::shutdown):
  // Quartz's shutdown(false) runs the plugin now, while the registry centre is still registered.
  auto controller = schedulerMap_.find(jobName);
  if (controller != schedulerMap_.end()) {
    JobScheduleController* removed = controller->second;
    schedulerMap_.erase(controller);
    co_await removed->shutdown(false);
  }
  auto regCenter = regCenterMap_.find(jobName);
  if (regCenter != regCenterMap_.end()) {
    ZookeeperRegistryCenter* removed = regCenter->second;
    regCenterMap_.erase(regCenter);
    removed->evictCacheData("/" + jobName);
  }
  notifiers_.removeJobNotifyExecutor(jobName);
  jobInstanceMap_.erase(jobName);
  jobRunningMap_.erase(jobName);
  currentShardingTotalCountMap_.erase(jobName);
}

bool JobRegistry::isShutdown(const std::string& jobName) const {
  return !schedulerMap_.contains(jobName) || !jobInstanceMap_.contains(jobName);
}

}  // namespace elasticjob
