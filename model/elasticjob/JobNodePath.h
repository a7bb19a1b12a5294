// The znode layout of one job (source 000's table; ElasticJob 3.0.4 JobNodePath and the *Node
// classes of each package). Every path here is relative to the Curator namespace: "/{job}/...".
//
//   /J/config                          persistent   YAML of the job configuration
//   /J/servers/{ip}                    persistent   ENABLED | DISABLED
//   /J/instances/{ip@-@pid}            ephemeral    YAML of the JobInstance
//   /J/leader/election/latch/...       LeaderLatch  executeInLeader's mutex
//   /J/leader/election/instance        ephemeral    the leader's instance id
//   /J/leader/sharding/necessary       persistent   the resharding flag
//   /J/leader/sharding/processing      ephemeral    the leader is sharding
//   /J/sharding/{item}/instance        persistent   the item's owner
//   /J/sharding/{item}/running         ephemeral    executing (monitorExecution, failover=false)
//   /J/sharding/{item}/misfire         persistent   a misfired fire to re-run
//   /J/sharding/{item}/disabled        persistent   an operator disabled the item
#pragma once

#include <string>
#include <string_view>

namespace elasticjob {

// JobNodePath: "/" + jobName + "/" + node.
class JobNodePath {
 public:
  explicit JobNodePath(std::string jobName);
  const std::string& getJobName() const { return jobName_; }
  std::string getFullPath(std::string_view node) const;
  std::string getRootPath() const { return "/" + jobName_; }
  std::string getServerNodePath() const { return getFullPath("servers"); }
  std::string getServerNodePath(std::string_view serverIp) const;
  std::string getInstancesNodePath() const { return getFullPath("instances"); }
  std::string getInstanceNodePath(std::string_view instanceId) const;
  std::string getShardingNodePath() const { return getFullPath("sharding"); }
  std::string getConfigNodePath() const { return getFullPath("config"); }

 private:
  std::string jobName_;
};

// LeaderNode.
namespace LeaderNode {
inline constexpr std::string_view LATCH = "leader/election/latch";
inline constexpr std::string_view INSTANCE = "leader/election/instance";
}  // namespace LeaderNode

// ShardingNode.
namespace ShardingNode {
inline constexpr std::string_view ROOT = "sharding";
inline constexpr std::string_view NECESSARY = "leader/sharding/necessary";
inline constexpr std::string_view PROCESSING = "leader/sharding/processing";
std::string getInstanceNode(int item);  // "sharding/{item}/instance"
std::string getRunningNode(int item);   // "sharding/{item}/running"
std::string getMisfireNode(int item);   // "sharding/{item}/misfire"
std::string getDisabledNode(int item);  // "sharding/{item}/disabled"
std::string getItemNode(int item);      // "sharding/{item}"
}  // namespace ShardingNode

namespace ServerNode {
inline constexpr std::string_view ROOT = "servers";
std::string getServerNode(std::string_view ip);  // "servers/{ip}"
}  // namespace ServerNode

namespace InstanceNode {
inline constexpr std::string_view ROOT = "instances";
std::string getInstancePath(std::string_view instanceId);  // "instances/{id}"
}  // namespace InstanceNode

namespace ConfigurationNode {
inline constexpr std::string_view ROOT = "config";
}  // namespace ConfigurationNode

// The path predicates the listeners use, for one job and (where it matters) the local instance.
class JobPaths {
 public:
  JobPaths(std::string jobName, std::string localInstanceId, std::string localIp);
  const JobNodePath& jobNodePath() const { return path_; }
  // LeaderNode.isLeaderInstancePath.
  bool isLeaderInstancePath(std::string_view path) const;
  // ServerNode.isServerPath: the whole path matches "/J/servers/" + IpUtils.IP_REGEX.
  bool isServerPath(std::string_view path) const;
  // ServerNode.isLocalServerPath.
  bool isLocalServerPath(std::string_view path) const;
  // InstanceNode.isInstancePath: path.startsWith("/J/instances") (the parent itself matches too).
  bool isInstancePath(std::string_view path) const;
  // InstanceNode.isLocalInstancePath.
  bool isLocalInstancePath(std::string_view path) const;
  // ConfigurationNode.isConfigPath.
  bool isConfigPath(std::string_view path) const;

 private:
  JobNodePath path_;
  std::string leaderInstancePath_;
  std::string serversPrefix_;
  std::string localServerPath_;
  std::string instancesPrefix_;
  std::string localInstancePath_;
  std::string configPath_;
};

// IpUtils.IP_REGEX: four dot-separated decimal numbers 0..255 without leading zeros.
bool isIpv4(std::string_view text);

}  // namespace elasticjob
