// What every service of one job shares: the process (for time and the trace), the process's
// JobRegistry, the job's JobNodeStorage and the bug switches. Java builds each service from
// (regCenter, jobName) and reaches the rest through the JobRegistry singleton; the model builds one
// of each service per job (JobServices) and hands them this.
#pragma once

#include <string>

#include "model/elasticjob/ElasticJobBugs.h"
#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/JobNodeStorage.h"
#include "model/elasticjob/JobRegistry.h"
#include "sim/node.h"

namespace elasticjob {

// BlockUtils.waitingShortTime(): Thread.sleep(100).
inline constexpr sim::Duration waitingShortTime = std::chrono::milliseconds(100);
// A loop that polls every 100 ms this many times has run for about 115 simulated days: far beyond
// any run, so reaching it means a bug in the model.
inline constexpr std::int64_t polls_max = 100'000'000;

struct JobEnvironment {
  sim::Node& node;
  JobRegistry& registry;
  JobNodeStorage& storage;
  ElasticJobBugs bugs;
  const JobRegistry::Job& registryEntry;  // registry.entry(jobName())

  const std::string& jobName() const { return storage.getJobName(); }
  // JobRegistry.getInstance().isShutdown(jobName), asked of the job's entry.
  bool isShutdown() const { return JobRegistry::isShutdown(registryEntry); }
  // JobRegistry.getInstance().getJobInstance(jobName), asked of the job's entry: null once shut down.
  const JobInstance* getJobInstance() const { return JobRegistry::getJobInstance(registryEntry); }
  sim::Simulation& sim() const { return node.sim(); }
  // The local instance's id, or "" once the job is shut down (the registry entry is gone).
  std::string localInstanceId() const { return std::string(localInstanceIdView()); }
  // The same without a copy: valid until the registry changes (for comparisons made at once).
  std::string_view localInstanceIdView() const {
    const JobInstance* instance = getJobInstance();
    return instance == nullptr ? std::string_view() : std::string_view(instance->jobInstanceId);
  }
  // JobRegistry.getInstance().getJobInstance(jobName).getJobInstanceId() and .getServerIp(): Java
  // dereferences the entry without a check, so a job shut down under the caller throws there (the
  // NullPointerException stand-in, naming `where`). Callers that check isShutdown at the same
  // instant first, as Java's do, never reach the throw.
  std::string requireLocalInstanceId(std::string_view where) const { return std::string(requireLocalInstance(where).jobInstanceId); }
  std::string localIp() const { return std::string(requireLocalInstance("getServerIp").getServerIp()); }
  const JobInstance& requireLocalInstance(std::string_view where) const {
    const JobInstance* instance = getJobInstance();
    if (instance == nullptr) throw NullPointerException("NullPointerException: " + std::string(where) + " of shut-down job " + jobName());
    return *instance;
  }
};

}  // namespace elasticjob
