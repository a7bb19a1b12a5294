// A machine running one ElasticJob-Lite application: one ZookeeperRegistryCenter (one Curator
// client, a cache per job) and a JobScheduler per job, made in on_start and dropped in on_stop (a
// crash destroys them; ZooKeeper deletes the ephemerals when the session expires).
//
// Startup, as an application's main does it: regCenter.init() (blockUntilConnected for 9 s, else the
// application fails to start and exits), then each job in turn: new ScheduleJobBootstrap(...) (the
// JobScheduler constructor: configuration, listeners, election, server and instance nodes), then
// schedule(). An exception out of startup ends the process, as an uncaught one in main would.
//
// shutdown() is a graceful stop: the JVM shutdown hooks (each job's Quartz clean shutdown, which
// waits for the running execution, then the plugin: removeLeader if leader, removeInstance), then
// the registry centre's close (caches, 500 ms, closeSession: the other ephemerals go at once), then
// the process exits.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/elasticjob/JobScheduler.h"

namespace elasticjob {

struct ElasticJobInstanceConfig {
  ElasticJobInstanceConfig() = default;
  std::string jobInstanceId;         // ip@-@pid; the same at every start (a container's pid 1)
  ZookeeperConfiguration zookeeper;  // serverLists, namespace, session timeout
  std::vector<JobSettings> jobs;
  ElasticJobBugs bugs;
};

class ElasticJobInstance final : public sim::Node {
 public:
  ElasticJobInstance(sim::Simulation& sim, std::string name, ElasticJobInstanceConfig config);

  void shutdown();
  bool shuttingDown() const { return shuttingDown_; }
  const std::string& jobInstanceId() const { return config_.jobInstanceId; }
  const ElasticJobInstanceConfig& config() const { return config_; }

  // Null while down (or before the job's startup reached it).
  JobScheduler* job(std::string_view jobName);
  ZookeeperRegistryCenter* registryCenter() { return regCenter_.get(); }
  JobRegistry* jobRegistry() { return registry_.get(); }
  // What isLeader() would answer for the job now (the trace's belief); false while down.
  bool believesLeader(std::string_view jobName) const;
  // The job is registered and not shut down on this instance.
  bool jobActive(std::string_view jobName) const;

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  sim::Task<void> startUp();
  sim::Task<void> shutdownSequence();
  sim::Task<void> shutdownHookThread(JobScheduler* job, std::size_t* remaining, sim::Signal* done);
  void exitProcess();

  ElasticJobInstanceConfig config_;
  std::unique_ptr<sim::Rng> random_;
  std::unique_ptr<ZookeeperRegistryCenter> regCenter_;
  std::unique_ptr<ListenerNotifierManager> notifiers_;
  std::unique_ptr<JobRegistry> registry_;
  std::vector<std::unique_ptr<JobScheduler>> jobs_;
  bool shuttingDown_ = false;
};

}  // namespace elasticjob
