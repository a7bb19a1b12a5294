#include "model/elasticjob/InstanceService.h"

namespace elasticjob {

std::string InstanceService::marshal(const JobInstance& instance) {
  // SnakeYAML dumpAsMap: properties in alphabetical order, null labels dropped.
  return "jobInstanceId: " + instance.jobInstanceId + "\nserverIp: " + std::string(instance.getServerIp()) + "\n";
}

std::optional<JobInstance> InstanceService::unmarshal(std::string_view yaml) {
  constexpr std::string_view key = "jobInstanceId: ";
  std::size_t start = yaml.find(key);
  if (start == std::string_view::npos) return std::nullopt;
  start += key.size();
  std::size_t end = yaml.find('\n', start);
  std::string_view id = yaml.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start);
  if (id.empty()) return std::nullopt;
  return JobInstance(std::string(id));
}

sim::Task<void> InstanceService::persistOnline() {
  // InstanceNode.getLocalInstancePath: getJobInstance(jobName).getJobInstanceId() of a job shut down
  // meanwhile throws. On the start-up thread this fails the application's start.
  const JobInstance& local = env_.requireLocalInstance("InstanceService.persistOnline");
  std::string value = marshal(local);
  co_await env_.storage.fillEphemeralJobNode(InstanceNode::getInstancePath(local.jobInstanceId), std::move(value));
}

sim::Task<void> InstanceService::removeInstance() {
  // instanceNode.getLocalInstancePath(): unchecked in Java.
  std::string id = env_.requireLocalInstanceId("InstanceService.removeInstance");
  co_await env_.storage.removeJobNodeIfExisted(InstanceNode::getInstancePath(id));
}

sim::Task<std::vector<JobInstance>> InstanceService::getAvailableJobInstances() {
  std::vector<JobInstance> result;
  std::vector<std::string> children = co_await env_.storage.getJobNodeChildrenKeys(std::string(InstanceNode::ROOT));
  for (const std::string& each : children) {
    std::optional<std::string> jobNodeData = co_await env_.storage.getJobNodeData(InstanceNode::getInstancePath(each));
    if (!jobNodeData) continue;
    std::optional<JobInstance> jobInstance = unmarshal(*jobNodeData);
    if (!jobInstance) continue;
    bool enabled = co_await serverService_.isEnableServer(std::string(jobInstance->getServerIp()));
    if (enabled) result.push_back(std::move(*jobInstance));
  }
  co_return result;
}

sim::Task<bool> InstanceService::isLocalJobInstanceExisted() {
  std::string id = env_.requireLocalInstanceId("InstanceService.isLocalJobInstanceExisted");
  co_return co_await env_.storage.isJobNodeExisted(InstanceNode::getInstancePath(id));
}

}  // namespace elasticjob
