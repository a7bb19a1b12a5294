// JobRegistry (3.0.4): the per-process registry of jobs (a JVM singleton in Java, one per
// ElasticJobInstance here): schedule controllers, registry centres, the local JobInstance, the
// running flag and the current sharding total count, by job name.
//
// isShutdown(job) is true once the controller or the instance entry is gone, which is what every
// listener and service checks before acting. Java's five ConcurrentHashMaps are one hash map of
// entries here (nothing walks it): isShutdown runs for nearly every cache event, and its two
// ordered-map lookups were 2% of an exploration.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "model/elasticjob/ListenerNotifierManager.h"
#include "model/elasticjob/strategies/JobInstance.h"
#include "sim/string_hash.h"
#include "sim/task.h"

namespace elasticjob {

class JobScheduleController;
class ZookeeperRegistryCenter;

class JobRegistry {
 public:
  explicit JobRegistry(ListenerNotifierManager& notifiers) : notifiers_(notifiers) {}

  // regCenterMap.put and addCacheData("/" + jobName): the job's CuratorCache starts loading.
  void registerRegistryCenter(const std::string& jobName, ZookeeperRegistryCenter& regCenter);
  void registerJob(const std::string& jobName, JobScheduleController& controller);
  JobScheduleController* getJobScheduleController(const std::string& jobName) const;
  ZookeeperRegistryCenter* getRegCenter(const std::string& jobName) const;
  void addJobInstance(const std::string& jobName, JobInstance jobInstance);
  const JobInstance* getJobInstance(const std::string& jobName) const;
  bool isJobRunning(const std::string& jobName) const;
  void setJobRunning(const std::string& jobName, bool isRunning);
  int getCurrentShardingTotalCount(const std::string& jobName) const;
  void setCurrentShardingTotalCount(const std::string& jobName, int currentShardingTotalCount);
  // shutdown(job): the controller out of the map, then Quartz shut down (no wait: its plugin runs
  // now), the registry centre out of the map and the cache evicted, the notify executor shut down,
  // the instance, running flag and count dropped.
  sim::Task<void> shutdown(std::string jobName);
  bool isShutdown(const std::string& jobName) const;
  ListenerNotifierManager& getListenerNotifierManager() { return notifiers_; }

  // Java's five maps by job name, kept as one: a job's entry in each map is a field here (null or
  // empty when absent). isShutdown, two lookups in Java, is one. An absent running flag or count
  // reads as false or 0 in Java too, so those two are plain values, reset by shutdown.
  struct Job {
    JobScheduleController* scheduler = nullptr;    // schedulerMap
    ZookeeperRegistryCenter* regCenter = nullptr;  // regCenterMap
    std::optional<JobInstance> jobInstance;        // jobInstanceMap
    bool running = false;                          // jobRunningMap
    int currentShardingTotalCount = 0;             // currentShardingTotalCountMap
  };
  // The job's entry, made empty if there is none (an empty entry reads as an absent one). Entries
  // are never erased and keep their address, so a job's services keep the reference and ask
  // isShutdown of it, with no lookup by name at every event (JobEnvironment::isShutdown).
  const Job& entry(const std::string& jobName) { return jobs_[jobName]; }
  static bool isShutdown(const Job& job) { return job.scheduler == nullptr || !job.jobInstance; }
  // getJobInstance(jobName), asked of the job's entry.
  static const JobInstance* getJobInstance(const Job& job) { return job.jobInstance ? &*job.jobInstance : nullptr; }

 private:
  const Job* find(std::string_view jobName) const;

  ListenerNotifierManager& notifiers_;
  std::unordered_map<std::string, Job, sim::StringHash, std::equal_to<>> jobs_;
};

}  // namespace elasticjob
