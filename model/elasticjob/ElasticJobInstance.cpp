#include "model/elasticjob/ElasticJobInstance.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

ElasticJobInstance::ElasticJobInstance(sim::Simulation& sim, std::string name, ElasticJobInstanceConfig config)
    : Node(sim, std::move(name)), config_(std::move(config)) {
  ELECTSIM_ASSERT(isWellFormedJobInstanceId(config_.jobInstanceId));
  ELECTSIM_ASSERT(!config_.zookeeper.serverLists.empty());
  for (const JobSettings& job : config_.jobs) ELECTSIM_ASSERT(!job.config.jobName.empty());
}

void ElasticJobInstance::on_start() {
  // A fresh seed per incarnation: a restarted process draws new UUIDs, retry sleeps and durations.
  std::uint64_t seed = sim::derive_seed(sim().random().seed_for(name() + "/elasticjob"), starts());
  random_ = std::make_unique<sim::Rng>(sim::derive_seed(seed, "application"));
  regCenter_ = std::make_unique<ZookeeperRegistryCenter>(*this, config_.zookeeper, sim::derive_seed(seed, "curator"));
  notifiers_ = std::make_unique<ListenerNotifierManager>(*this);
  registry_ = std::make_unique<JobRegistry>(*notifiers_);
  shuttingDown_ = false;
  spawn(startUp());
}

void ElasticJobInstance::on_stop() {
  // Every coroutine of the process is already gone (they all run in its scope); the objects go from
  // the jobs down to the Curator client.
  jobs_.clear();
  registry_.reset();
  notifiers_.reset();
  regCenter_.reset();
  random_.reset();
}

sim::Task<void> ElasticJobInstance::startUp() {
  bool connected = co_await regCenter_->init();
  if (!connected) {
    sim().trace().emit(id(), "job.startup_failed", {{"id", config_.jobInstanceId}, {"reason", "registry center not connected within 9 s"}});
    exitProcess();
    co_return;
  }
  try {
    for (const JobSettings& settings : config_.jobs) {
      if (shuttingDown_) co_return;
      jobs_.push_back(std::make_unique<JobScheduler>(*this, *regCenter_, *registry_, settings, config_.jobInstanceId, config_.bugs, *random_));
      JobScheduler& scheduler = *jobs_.back();
      co_await scheduler.init();
      scheduler.schedule();
    }
  } catch (const ElasticJobException& error) {
    sim().trace().emit(id(), "job.startup_failed", {{"id", config_.jobInstanceId}, {"reason", error.what()}});
    exitProcess();
  }
}

void ElasticJobInstance::shutdown() {
  if (!up() || shuttingDown_) return;
  shuttingDown_ = true;
  sim().trace().emit(id(), "instance.shutdown", {{"id", config_.jobInstanceId}});
  spawn(shutdownSequence());
}

sim::Task<void> ElasticJobInstance::shutdownSequence() {
  // The JVM runs the shutdown hooks concurrently, one per job's scheduler: each waits only for its
  // own running execution.
  struct Hooks {
    explicit Hooks(sim::Simulation& sim) : done(sim) {}
    std::size_t remaining = 0;
    sim::Signal done;
  };
  Hooks hooks(sim());
  sim::Scope threads(sim(), id());  // after `hooks`: destroyed first
  for (std::unique_ptr<JobScheduler>& job : jobs_) {
    if (!job->initialized()) continue;
    hooks.remaining++;
    threads.spawn(shutdownHookThread(job.get(), &hooks.remaining, &hooks.done));
  }
  if (hooks.remaining > 0) co_await hooks.done.wait();
  co_await regCenter_->close();
  exitProcess();
}

sim::Task<void> ElasticJobInstance::shutdownHookThread(JobScheduler* job, std::size_t* remaining, sim::Signal* done) {
  try {
    co_await job->shutdownHook();
  } catch (const ElasticJobException& error) {
    sim().trace().emit(id(), "job.error", {{"job", job->jobName()}, {"where", "JobShutdownHookPlugin"}, {"message", error.what()}});
  }
  ELECTSIM_ASSERT(*remaining > 0);
  if (--*remaining == 0) done->set();
}

void ElasticJobInstance::exitProcess() {
  // The exit happens outside the coroutine that asks for it, which the exit destroys.
  sim().schedule_callback(sim().now(), sim::no_node, [this] {
    if (up()) crash();
  });
}

JobScheduler* ElasticJobInstance::job(std::string_view jobName) {
  for (std::unique_ptr<JobScheduler>& job : jobs_) {
    if (job->jobName() == jobName) return job.get();
  }
  return nullptr;
}

bool ElasticJobInstance::believesLeader(std::string_view jobName) const {
  if (!up()) return false;
  for (const std::unique_ptr<JobScheduler>& job : jobs_) {
    if (job->jobName() == jobName) return job->believesLeader();
  }
  return false;
}

bool ElasticJobInstance::jobActive(std::string_view jobName) const {
  if (!up() || registry_ == nullptr) return false;
  return !registry_->isShutdown(std::string(jobName));
}

}  // namespace elasticjob
