#include "model/elasticjob/ServerService.h"

#include <set>

namespace elasticjob {

namespace {
constexpr std::string_view ENABLED = "ENABLED";
constexpr std::string_view DISABLED = "DISABLED";
constexpr int enable_server_retries = 10;
}  // namespace

sim::Task<void> ServerService::persistOnline(bool enabled) {
  if (env_.isShutdown()) co_return;
  std::string value(enabled ? ENABLED : DISABLED);
  co_await env_.storage.fillJobNode(ServerNode::getServerNode(env_.localIp()), std::move(value));
}

sim::Task<bool> ServerService::hasAvailableServers() {
  std::vector<std::string> servers = co_await env_.storage.getJobNodeChildrenKeys(std::string(ServerNode::ROOT));
  for (std::string& each : servers) {
    bool available = co_await isAvailableServer(std::move(each));
    if (available) co_return true;
  }
  co_return false;
}

sim::Task<bool> ServerService::isAvailableServer(std::string ip) {
  bool enabled = co_await isEnableServer(ip);
  if (!enabled) co_return false;
  bool online = co_await hasOnlineInstances(std::move(ip));
  co_return online;
}

sim::Task<bool> ServerService::hasOnlineInstances(std::string ip) {
  std::vector<std::string> instances = co_await env_.storage.getJobNodeChildrenKeys(std::string(InstanceNode::ROOT));
  for (const std::string& each : instances) {
    if (each.starts_with(ip)) co_return true;  // startsWith, not the ip part: #2226
  }
  co_return false;
}

sim::Task<bool> ServerService::isEnableServer(std::string ip) {
  std::string node = ServerNode::getServerNode(ip);
  std::optional<std::string> serverStatus = co_await env_.storage.getJobNodeData(node);
  for (int i = 0; (!serverStatus || serverStatus->empty()) && i < enable_server_retries; i++) {
    co_await env_.sim().sleep(waitingShortTime);
    serverStatus = co_await env_.storage.getJobNodeData(node);
  }
  co_return serverStatus && *serverStatus == ENABLED;
}

sim::Task<int> ServerService::removeOfflineServers() {
  int affected = 0;
  std::vector<std::string> instances = co_await env_.storage.getJobNodeChildrenKeys(std::string(InstanceNode::ROOT));
  if (instances.empty()) co_return affected;
  std::set<std::string> instanceIps;
  for (const std::string& instance : instances) instanceIps.insert(std::string(JobInstance(instance).getServerIp()));
  std::vector<std::string> serverIps = co_await env_.storage.getJobNodeChildrenKeys(std::string(ServerNode::ROOT));
  for (const std::string& serverIp : serverIps) {
    if (instanceIps.contains(serverIp)) continue;
    std::optional<std::string> status = co_await env_.storage.getJobNodeData(ServerNode::getServerNode(serverIp));
    bool blank = !status || status->find_first_not_of(" \t\r\n") == std::string::npos;
    if (!blank) continue;  // 3.0.4: StringUtils.isNotBlank(status) -> keep (3.0.5 flips this)
    co_await env_.storage.removeJobNodeIfExisted(ServerNode::getServerNode(serverIp));
    affected++;
  }
  co_return affected;
}

}  // namespace elasticjob
