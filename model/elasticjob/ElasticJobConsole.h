// The operator's console (elasticjob-lite-lifecycle, 3.0.4: JobOperateAPIImpl and
// JobConfigurationAPIImpl) as its own process with its own registry centre (no caches), started on
// the first operation. Operations run one at a time, in the order they were asked for.
//
//   disable(ip) / enable(ip)   JobOperateAPI.disable/enable(null, ip): for every job under the
//                              namespace that has servers/{ip}, persist DISABLED / ENABLED
//   shutdown(job, ip)          JobOperateAPI.shutdown(job, ip): remove instances/{id} of every
//                              instance on ip (the instance then shuts the job down itself)
//   setShardingTotalCount(job, n)  JobConfigurationAPI: read the configuration, update it with the
//                              new count (every instance's ShardingTotalCountChangedJobListener)
//
// 3.0.x writes ENABLED to enable a server; "" was 2.x's spelling of enabled and reads as "not
// enabled" in 3.x (ServerService.isEnableServer).
#pragma once

#include <deque>
#include <memory>
#include <string>

#include "model/elasticjob/ZookeeperRegistryCenter.h"
#include "sim/sync.h"

namespace elasticjob {

class ElasticJobConsole final : public sim::Node {
 public:
  enum class OperationType : std::uint8_t { DISABLE, ENABLE, SHUTDOWN, SET_SHARDING_TOTAL_COUNT };
  struct Operation {
    Operation(OperationType type, std::string jobName, std::string serverIp, int value)
        : type(type), jobName(std::move(jobName)), serverIp(std::move(serverIp)), value(value) {}
    OperationType type;
    std::string jobName;   // empty: every job (disable, enable)
    std::string serverIp;
    int value = 0;
  };
  static constexpr std::size_t pending_max = 10'000;

  ElasticJobConsole(sim::Simulation& sim, std::string name, ZookeeperConfiguration zookeeper);

  void disable(std::string serverIp);
  void enable(std::string serverIp);
  void shutdown(std::string jobName, std::string serverIp);
  void setShardingTotalCount(std::string jobName, int value);
  std::size_t pending() const { return pending_.size(); }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  void submit(Operation operation);
  sim::Task<void> worker();
  sim::Task<void> perform(Operation operation);
  sim::Task<void> persistDisabledOrEnabledJob(std::string jobName, std::string serverIp, bool disabled);

  ZookeeperConfiguration zookeeper_;
  std::deque<Operation> pending_;  // survives a restart of the console: the operator retries
  std::unique_ptr<ZookeeperRegistryCenter> regCenter_;
  std::unique_ptr<sim::Condition> submitted_;
};

}  // namespace elasticjob
