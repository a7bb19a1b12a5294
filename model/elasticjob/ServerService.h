// ServerService (3.0.4): the persistent servers/{ip} nodes, ENABLED or DISABLED.
//
//   isAvailableServer(ip) = isEnableServer(ip) && hasOnlineInstances(ip)
//   hasOnlineInstances(ip): any child of instances/ that STARTS WITH ip (the prefix bug #2226:
//                           10.0.0.1 counts as online while 10.0.0.12@-@7 exists)
//   isEnableServer(ip): the cached value; while it is null or "" read again every 100 ms, at most
//                       10 times (3.0.2+, #2132), then "ENABLED".equals(value): a missing node
//                       costs 1 s and counts as not enabled
#pragma once

#include <string>

#include "model/elasticjob/JobEnvironment.h"

namespace elasticjob {

class ServerService {
 public:
  explicit ServerService(JobEnvironment& env) : env_(env) {}

  sim::Task<void> persistOnline(bool enabled);
  sim::Task<bool> hasAvailableServers();
  sim::Task<bool> isAvailableServer(std::string ip);
  sim::Task<bool> isEnableServer(std::string ip);
  // 3.0.4 (#2251): removes servers/{ip} nodes that have no instance and a BLANK status only.
  sim::Task<int> removeOfflineServers();

 private:
  sim::Task<bool> hasOnlineInstances(std::string ip);
  JobEnvironment& env_;
};

}  // namespace elasticjob
