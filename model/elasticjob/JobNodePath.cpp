#include "model/elasticjob/JobNodePath.h"

#include "sim/assert.h"
#include "sim/concat.h"

namespace elasticjob {

JobNodePath::JobNodePath(std::string jobName) : jobName_(std::move(jobName)) {
  ELECTSIM_ASSERT(!jobName_.empty());
  ELECTSIM_ASSERT(jobName_.find('/') == std::string::npos);
}

// "/" + jobName + "/" + node (it is on every storage call's path).
std::string JobNodePath::getFullPath(std::string_view node) const { return sim::concat({"/", jobName_, "/", node}); }

std::string JobNodePath::getServerNodePath(std::string_view serverIp) const { return getFullPath(ServerNode::getServerNode(serverIp)); }

std::string JobNodePath::getInstanceNodePath(std::string_view instanceId) const {
  return getFullPath(InstanceNode::getInstancePath(instanceId));
}

namespace ShardingNode {
namespace {
std::string itemChild(int item, std::string_view child) {
  ELECTSIM_ASSERT(item >= 0);
  return sim::concat({ROOT, "/", std::to_string(item), child});
}
}  // namespace
std::string getItemNode(int item) { return itemChild(item, ""); }
std::string getInstanceNode(int item) { return itemChild(item, "/instance"); }
std::string getRunningNode(int item) { return itemChild(item, "/running"); }
std::string getMisfireNode(int item) { return itemChild(item, "/misfire"); }
std::string getDisabledNode(int item) { return itemChild(item, "/disabled"); }
}  // namespace ShardingNode

namespace ServerNode {
std::string getServerNode(std::string_view ip) { return sim::concat({ROOT, "/", ip}); }
}  // namespace ServerNode

namespace InstanceNode {
std::string getInstancePath(std::string_view instanceId) { return sim::concat({ROOT, "/", instanceId}); }
}  // namespace InstanceNode

bool isIpv4(std::string_view text) {
  int parts = 0;
  std::size_t position = 0;
  while (true) {
    std::size_t dot = text.find('.', position);
    std::string_view part = text.substr(position, dot == std::string_view::npos ? std::string_view::npos : dot - position);
    if (part.empty() || part.size() > 3) return false;
    if (part.size() > 1 && part.front() == '0') return false;
    int value = 0;
    for (char digit : part) {
      if (digit < '0' || digit > '9') return false;
      value = value * 10 + (digit - '0');
    }
    if (value > 255) return false;
    parts++;
    if (dot == std::string_view::npos) break;
    position = dot + 1;
  }
  return parts == 4;
}

JobPaths::JobPaths(std::string jobName, std::string localInstanceId, std::string localIp)
    : path_(std::move(jobName)),
      leaderInstancePath_(path_.getFullPath(LeaderNode::INSTANCE)),
      serversPrefix_(path_.getServerNodePath() + "/"),
      localServerPath_(path_.getServerNodePath(localIp)),
      instancesPrefix_(path_.getInstancesNodePath()),
      localInstancePath_(path_.getInstanceNodePath(localInstanceId)),
      configPath_(path_.getConfigNodePath()) {}

bool JobPaths::isLeaderInstancePath(std::string_view path) const { return path == leaderInstancePath_; }

bool JobPaths::isServerPath(std::string_view path) const {
  return path.starts_with(serversPrefix_) && isIpv4(path.substr(serversPrefix_.size()));
}

bool JobPaths::isLocalServerPath(std::string_view path) const { return path == localServerPath_; }

bool JobPaths::isInstancePath(std::string_view path) const { return path.starts_with(instancesPrefix_); }

bool JobPaths::isLocalInstancePath(std::string_view path) const { return path == localInstancePath_; }

bool JobPaths::isConfigPath(std::string_view path) const { return path == configPath_; }

}  // namespace elasticjob
