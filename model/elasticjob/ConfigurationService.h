// ConfigurationService (3.0.4): the job configuration in /J/config.
//
//   load(true)   the cache, then a direct read if the cache holds nothing
//   load(false)  a direct read
// Sharding (shardingIfNecessary) and ExecutionContextService read it directly; getShardingItems,
// hasRunningItems and registerJobBegin/Completed read the cache, so right after a change of
// shardingTotalCount an instance can use the old count in one place and the new in another.
#pragma once

#include <optional>
#include <string>

#include "model/elasticjob/JobConfiguration.h"
#include "model/elasticjob/JobEnvironment.h"

namespace elasticjob {

class ConfigurationService {
 public:
  explicit ConfigurationService(JobEnvironment& env) : env_(env) {}

  // Throws JobConfigurationException when there is no configuration ("JobConfiguration was not found").
  sim::Task<JobConfiguration> load(bool fromCache);
  // setUpJobConfiguration(jobClassName, jobConfig): checkConflictJob, then write config and the root
  // node when absent (or overwrite), else return what is there (load(false)).
  sim::Task<JobConfiguration> setUpJobConfiguration(std::string jobClassName, JobConfiguration jobConfig);
  // maxTimeDiffSeconds < 0 (the default) skips the check; the model has no clock skew to check.
  sim::Task<void> checkMaxTimeDiffSecondsTolerable();

 private:
  JobEnvironment& env_;
  // The last text unmarshalled and its result: YamlEngine.unmarshal is a pure function of the text,
  // which changes only when the configuration does, and the model parses it at every execution as
  // ElasticJob does (a profile hot spot, so the parse is kept, not repeated).
  std::string lastYaml_;
  std::optional<JobConfiguration> lastConfig_;
};

}  // namespace elasticjob
