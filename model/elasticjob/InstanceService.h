// InstanceService (3.0.4): the ephemeral instances/{ip@-@pid} node whose data is the YAML of the
// JobInstance ("jobInstanceId: 10.0.0.1@-@1\nserverIp: 10.0.0.1\n").
//
// getAvailableJobInstances() is the list a sharding strategy receives: the children of instances/
// (direct, DESCENDING string order), each one's data through the cache (a null is skipped, #2164),
// kept only when isEnableServer(its serverIp): ENABLED servers only, with no hasOnlineInstances
// check.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/elasticjob/JobEnvironment.h"
#include "model/elasticjob/ServerService.h"

namespace elasticjob {

class InstanceService {
 public:
  InstanceService(JobEnvironment& env, ServerService& serverService) : env_(env), serverService_(serverService) {}

  sim::Task<void> persistOnline();
  sim::Task<void> removeInstance();
  sim::Task<std::vector<JobInstance>> getAvailableJobInstances();
  sim::Task<bool> isLocalJobInstanceExisted();

  // YamlEngine.marshal(jobInstance) / unmarshal.
  static std::string marshal(const JobInstance& instance);
  static std::optional<JobInstance> unmarshal(std::string_view yaml);

 private:
  JobEnvironment& env_;
  ServerService& serverService_;
};

}  // namespace elasticjob
