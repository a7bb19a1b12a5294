#include "model/elasticjob/JobScheduler.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

JobScheduler::JobScheduler(sim::Node& node, ZookeeperRegistryCenter& regCenter, JobRegistry& registry, JobSettings settings,
                           std::string jobInstanceId, ElasticJobBugs bugs, sim::Rng& random)
    : node_(node),
      regCenter_(regCenter),
      registry_(registry),
      settings_(std::move(settings)),
      jobInstanceId_(std::move(jobInstanceId)),
      random_(random),
      jobConfig_(settings_.config),
      storage_(regCenter, settings_.config.jobName),
      env_{node, registry, storage_, bugs, registry.entry(storage_.getJobName())},
      paths_(settings_.config.jobName, jobInstanceId_, std::string(JobInstance(jobInstanceId_).getServerIp())),
      services_(env_, jobInstanceId_),
      jobExecutor_(node, settings_.config.jobName, jobInstanceId_, services_.jobFacade, settings_.executionTime, random),
      listenerManager_(env_, paths_, services_),
      setUpFacade_(env_, services_, listenerManager_),
      controller_(node, settings_.config.jobName, *this) {
  ELECTSIM_ASSERT(isWellFormedJobInstanceId(jobInstanceId_));
  ELECTSIM_ASSERT(settings_.config.shardingTotalCount > 0);
}

JobScheduler::~JobScheduler() {
  // The cache may outlive this object (the registry centre goes later): unhook the belief listener.
  curator::CuratorCache* cache = regCenter_.getRawCache("/" + jobName());
  if (cache != nullptr && beliefListener_) cache->removeListener(*beliefListener_);
}

sim::Task<void> JobScheduler::init() {
  ELECTSIM_ASSERT(!initialized_);
  jobConfig_ = co_await services_.configService.setUpJobConfiguration(settings_.jobClassName, settings_.config);
  // createJobScheduleController: JobRegistry.registerJob, then registerStartUpInfo.
  registry_.registerJob(jobName(), controller_);
  registry_.registerRegistryCenter(jobName(), regCenter_);
  installLeaderBeliefListener();
  registry_.addJobInstance(jobName(), JobInstance(jobInstanceId_));
  registry_.setCurrentShardingTotalCount(jobName(), jobConfig_.shardingTotalCount);
  co_await setUpFacade_.registerStartUpInfo(!jobConfig_.disabled, random_);
  initialized_ = true;
}

void JobScheduler::installLeaderBeliefListener() {
  // The moment the cache changes is the moment isLeader() starts answering differently.
  curator::CuratorCache* cache = regCenter_.getRawCache("/" + jobName());
  ELECTSIM_ASSERT(cache != nullptr);
  std::string leaderPath = regCenter_.toFullPath(storage_.getJobNodePath().getFullPath(LeaderNode::INSTANCE));
  curator::CuratorCacheListener listener;
  listener.event = [this, leaderPath](curator::CuratorCacheListener::Type type, const curator::SharedChildData& oldData,
                                      const curator::SharedChildData& newData) {
    const curator::ChildData* data = (newData ? newData : oldData).get();
    if (data == nullptr) return;
    if (data->path != leaderPath) {
      services_.leaderService.onJobCacheChanged();
      return;
    }
    DataChangedEvent::Type mapped = type == curator::CuratorCacheListener::Type::NODE_DELETED ? DataChangedEvent::Type::DELETED
                                                                                              : DataChangedEvent::Type::UPDATED;
    services_.leaderService.onLeaderNodeCached(mapped, data->data);
  };
  beliefListener_ = cache->addListener(std::move(listener));
}

void JobScheduler::schedule() {
  ELECTSIM_ASSERT(initialized_);
  controller_.scheduleJob(jobConfig_.fireInterval);
  if (!controller_.getNextFireTime()) {
    // The job was shut down while it was starting (InstanceShutdownStatusJobListener, or the
    // operator): Quartz refuses a shut-down scheduler (SchedulerException "The Scheduler has been
    // shutdown."), and JobScheduleController.scheduleJob wraps it in a JobSystemException that
    // ends the application's schedule() call: the application fails to start.
    throw JobSystemException("JobSystemException: The Scheduler has been shutdown. (scheduling " + jobName() + ")");
  }
  node_.sim().trace().emit(node_.id(), "job.scheduled",
                           {{"job", jobName()}, {"id", jobInstanceId_}, {"next_fire", sim::nanos(controller_.getNextFireTime().value())}});
}

sim::Task<void> JobScheduler::shutdown() {
  setUpFacade_.tearDown();
  co_await services_.schedulerFacade.shutdownInstance();
  jobExecutor_.shutdown();
}

sim::Task<void> JobScheduler::shutdownHook() {
  node_.sim().trace().emit(node_.id(), "job.shutdown", {{"job", jobName()}, {"how", "shutdownHook"}});
  JobScheduleController* controller = registry_.getJobScheduleController(jobName());
  if (controller != nullptr) co_await controller->shutdown(true);
}

sim::Task<void> JobScheduler::execute(sim::Instant fireTime) { co_await jobExecutor_.execute(fireTime); }

sim::Task<void> JobScheduler::triggerMisfired(bool hasPreviousFireTime) {
  co_await services_.schedulerFacade.triggerMisfired(hasPreviousFireTime);
}

sim::Task<void> JobScheduler::pluginShutdown() {
  // JobShutdownHookPlugin.shutdown(): nothing without a registry centre; the leader node first.
  if (registry_.getRegCenter(jobName()) == nullptr) co_return;
  bool isLeader = co_await services_.leaderService.isLeader();
  if (isLeader) co_await services_.leaderService.removeLeader();
  co_await services_.instanceService.removeInstance();
}

}  // namespace elasticjob
