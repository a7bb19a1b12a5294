#include "model/elasticjob/ElasticJobConsole.h"

#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/InstanceService.h"
#include "model/elasticjob/JobConfiguration.h"
#include "model/elasticjob/JobNodePath.h"

namespace elasticjob {

namespace {
std::string_view operationName(ElasticJobConsole::OperationType type) {
  switch (type) {
    case ElasticJobConsole::OperationType::DISABLE: return "disable";
    case ElasticJobConsole::OperationType::ENABLE: return "enable";
    case ElasticJobConsole::OperationType::SHUTDOWN: return "shutdown";
    case ElasticJobConsole::OperationType::SET_SHARDING_TOTAL_COUNT: return "set_sharding_total_count";
  }
  return "unknown";
}
}  // namespace

ElasticJobConsole::ElasticJobConsole(sim::Simulation& sim, std::string name, ZookeeperConfiguration zookeeper)
    : Node(sim, std::move(name)), zookeeper_(std::move(zookeeper)) {}

void ElasticJobConsole::on_start() {
  std::uint64_t seed = sim::derive_seed(sim().random().seed_for(name() + "/console"), starts());
  regCenter_ = std::make_unique<ZookeeperRegistryCenter>(*this, zookeeper_, seed);
  submitted_ = std::make_unique<sim::Condition>(sim());
  spawn(worker());
}

void ElasticJobConsole::on_stop() {
  submitted_.reset();
  regCenter_.reset();
}

void ElasticJobConsole::disable(std::string serverIp) { submit(Operation(OperationType::DISABLE, "", std::move(serverIp), 0)); }
void ElasticJobConsole::enable(std::string serverIp) { submit(Operation(OperationType::ENABLE, "", std::move(serverIp), 0)); }
void ElasticJobConsole::shutdown(std::string jobName, std::string serverIp) {
  submit(Operation(OperationType::SHUTDOWN, std::move(jobName), std::move(serverIp), 0));
}
void ElasticJobConsole::setShardingTotalCount(std::string jobName, int value) {
  ELECTSIM_ASSERT(value > 0);  // "shardingTotalCount should larger than zero."
  submit(Operation(OperationType::SET_SHARDING_TOTAL_COUNT, std::move(jobName), "", value));
}

void ElasticJobConsole::submit(Operation operation) {
  ELECTSIM_ASSERT(pending_.size() < pending_max);
  pending_.push_back(std::move(operation));
  if (!up() && starts() == 0) start();  // the console starts with its first operation
  if (submitted_ != nullptr) submitted_->notify_all();
}

sim::Task<void> ElasticJobConsole::worker() {
  bool connected = co_await regCenter_->init();
  if (!connected) {
    sim().trace().emit(id(), "job.console_failed", {{"reason", "registry center not connected within 9 s"}});
    co_return;
  }
  while (true) {
    if (pending_.empty()) {
      co_await submitted_->wait();
      continue;
    }
    Operation operation = pending_.front();
    try {
      co_await perform(operation);
    } catch (const ElasticJobException& error) {
      sim().trace().emit(id(), "job.error", {{"job", operation.jobName}, {"where", "console"}, {"message", error.what()}});
    }
    pending_.pop_front();
  }
}

sim::Task<void> ElasticJobConsole::perform(Operation operation) {
  sim().trace().emit(id(), "job.operator",
                     {{"op", operationName(operation.type)}, {"job", operation.jobName}, {"ip", operation.serverIp}, {"value", operation.value}});
  switch (operation.type) {
    case OperationType::DISABLE:
    case OperationType::ENABLE: {
      // disableOrEnableJobs(null, serverIp, disabled): every job that has this server.
      bool disabled = operation.type == OperationType::DISABLE;
      std::vector<std::string> jobNames = co_await regCenter_->getChildrenKeys("/");
      for (const std::string& each : jobNames) {
        bool existed = co_await regCenter_->isExisted(JobNodePath(each).getServerNodePath(operation.serverIp));
        if (existed) {
          co_await persistDisabledOrEnabledJob(each, operation.serverIp, disabled);
        }
      }
      co_return;
    }
    case OperationType::SHUTDOWN: {
      JobNodePath jobNodePath(operation.jobName);
      std::vector<std::string> instances = co_await regCenter_->getChildrenKeys(jobNodePath.getInstancesNodePath());
      for (const std::string& each : instances) {
        std::optional<std::string> data = co_await regCenter_->get(jobNodePath.getInstanceNodePath(each));
        std::optional<JobInstance> jobInstance = data ? InstanceService::unmarshal(*data) : std::nullopt;
        if (jobInstance && jobInstance->getServerIp() == operation.serverIp) co_await regCenter_->remove(jobNodePath.getInstanceNodePath(each));
      }
      co_return;
    }
    case OperationType::SET_SHARDING_TOTAL_COUNT: {
      JobNodePath jobNodePath(operation.jobName);
      std::optional<std::string> yaml = co_await regCenter_->get(jobNodePath.getConfigNodePath());
      if (!yaml) co_return;  // getJobConfiguration returns null
      std::optional<JobConfiguration> config = JobConfiguration::unmarshal(*yaml);
      if (!config) throw JobConfigurationException("unreadable configuration of " + operation.jobName);
      config->shardingTotalCount = operation.value;
      co_await regCenter_->update(jobNodePath.getConfigNodePath(), config->marshal());
      co_return;
    }
  }
}

sim::Task<void> ElasticJobConsole::persistDisabledOrEnabledJob(std::string jobName, std::string serverIp, bool disabled) {
  std::string value = disabled ? "DISABLED" : "ENABLED";
  co_await regCenter_->persist(JobNodePath(jobName).getServerNodePath(serverIp), std::move(value));
}

}  // namespace elasticjob
