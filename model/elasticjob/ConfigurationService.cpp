#include "model/elasticjob/ConfigurationService.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

sim::Task<JobConfiguration> ConfigurationService::load(bool fromCache) {
  std::optional<std::string> result;
  if (fromCache) {
    result = co_await env_.storage.getJobNodeData(ConfigurationNode::ROOT);
    if (!result) result = co_await env_.storage.getJobNodeDataDirectly(std::string(ConfigurationNode::ROOT));
  } else {
    result = co_await env_.storage.getJobNodeDataDirectly(std::string(ConfigurationNode::ROOT));
  }
  if (!result) {
    throw JobConfigurationException("JobConfiguration was not found. It maybe has been removed or has not been configured correctly.");
  }
  if (!lastConfig_ || *result != lastYaml_) {
    lastConfig_ = JobConfiguration::unmarshal(*result);
    lastYaml_ = std::move(*result);
  }
  if (!lastConfig_) throw JobConfigurationException("JobConfiguration of '" + env_.jobName() + "' cannot be read");
  co_return *lastConfig_;
}

sim::Task<JobConfiguration> ConfigurationService::setUpJobConfiguration(std::string jobClassName, JobConfiguration jobConfig) {
  // checkConflictJob
  bool rootExisted = co_await env_.storage.isJobRootNodeExisted();
  if (rootExisted) {
    std::optional<std::string> original = co_await env_.storage.getJobRootNodeData();
    if (original && !original->empty() && *original != jobClassName) {
      throw JobConfigurationException("Job conflict with register center. The job '" + env_.jobName() + "' in register center's class is '" +
                                      *original + "', your job class is '" + jobClassName + "'");
    }
  }
  bool configExisted = co_await env_.storage.isJobNodeExisted(ConfigurationNode::ROOT);
  if (!configExisted || jobConfig.overwrite) {
    co_await env_.storage.replaceJobNode(std::string(ConfigurationNode::ROOT), jobConfig.marshal());
    co_await env_.storage.replaceJobRootNode(std::move(jobClassName));
    co_return jobConfig;
  }
  co_return co_await load(false);
}

sim::Task<void> ConfigurationService::checkMaxTimeDiffSecondsTolerable() {
  JobConfiguration config = co_await load(true);
  if (config.maxTimeDiffSeconds < 0) co_return;
  // getRegistryCenterTime compares the local clock with a znode's mtime; every simulated clock
  // agrees with the ensemble's to within its fixed phase, far below a second.
}

}  // namespace elasticjob
