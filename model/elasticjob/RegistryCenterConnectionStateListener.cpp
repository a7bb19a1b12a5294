#include "model/elasticjob/RegistryCenterConnectionStateListener.h"

#include "model/elasticjob/JobScheduleController.h"

namespace elasticjob {

sim::Task<void> RegistryCenterConnectionStateListener::onStateChanged(RegistryCenterState newState) {
  if (env_.isShutdown()) co_return;
  JobScheduleController* controller = env_.registryEntry.scheduler;  // getJobScheduleController(jobName)
  ELECTSIM_ASSERT(controller != nullptr);
  if (newState == RegistryCenterState::UNAVAILABLE) {
    controller->pauseJob();
  } else if (newState == RegistryCenterState::RECONNECTED) {
    bool enabled = co_await serverService_.isEnableServer(env_.localIp());
    co_await serverService_.persistOnline(enabled);
    co_await instanceService_.persistOnline();
    std::vector<int> items = co_await shardingService_.getLocalShardingItems();
    co_await executionService_.clearRunningInfo(std::move(items));
    // The job may have been shut down while this ran; the controller lives as long as its job.
    co_await controller->resumeJob();
  }
}

}  // namespace elasticjob
