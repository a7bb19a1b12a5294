#include "model/elasticjob/ShutdownListenerManager.h"

#include "model/elasticjob/JobScheduleController.h"

namespace elasticjob {

sim::Task<void> InstanceShutdownStatusJobListener::onChange(DataChangedEvent event) {
  if (env_.registry.isShutdown(env_.jobName())) co_return;
  JobScheduleController* controller = env_.registry.getJobScheduleController(env_.jobName());
  ELECTSIM_ASSERT(controller != nullptr);
  if (controller->isPaused()) co_return;
  if (!paths_.isLocalInstancePath(event.key) || event.type != DataChangedEvent::Type::DELETED) co_return;
  bool reconnected = co_await instanceService_.isLocalJobInstanceExisted();  // isReconnectedRegistryCenter()
  if (reconnected) co_return;
  co_await schedulerFacade_.shutdownInstance();
}

}  // namespace elasticjob
