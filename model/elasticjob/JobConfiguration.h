// The job configuration (org.apache.shardingsphere.elasticjob.api.JobConfiguration) and its YAML
// form in /J/config (JobConfigurationPOJO, SnakeYAML dumpAsMap: keys in alphabetical order).
// Only the settings the model reads are kept; their defaults are 3.0.4's.
//
// The cron expression: the model has no cron parser. A fire interval of whole seconds that divide a
// minute is written as Quartz would read it ("0/5 * * * * ?"); any other interval as "@every 1500ms",
// an electsim spelling. Fire times are multiples of the interval on every instance's clock (the
// instances share the simulated clock, so there is no skew).
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "sim/time.h"

namespace elasticjob {

struct JobConfiguration {
  std::string jobName;
  sim::Duration fireInterval = std::chrono::seconds(5);  // from `cron`
  int shardingTotalCount = 1;
  bool monitorExecution = true;
  bool failover = false;  // failover is not modelled (docs/elasticjob-model.md)
  bool misfire = true;
  int maxTimeDiffSeconds = -1;
  int reconcileIntervalMinutes = 10;
  std::string jobShardingStrategyType;  // "" means AVG_ALLOCATION
  bool disabled = false;
  bool overwrite = false;
  bool staticSharding = false;

  // YamlEngine.marshal(JobConfigurationPOJO.fromJobConfiguration(this)).
  std::string marshal() const;
  // YamlEngine.unmarshal(text, JobConfigurationPOJO.class).toJobConfiguration(); nothing for text
  // that is not a job configuration (Java: an exception or a null object).
  static std::optional<JobConfiguration> unmarshal(std::string_view yaml);

  static std::string cronFor(sim::Duration interval);
  static std::optional<sim::Duration> intervalFromCron(std::string_view cron);
};

}  // namespace elasticjob
