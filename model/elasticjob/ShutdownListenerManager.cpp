#include "model/elasticjob/ShutdownListenerManager.h"

#include "model/elasticjob/JobScheduleController.h"

namespace elasticjob {

sim::Eager<void> InstanceShutdownStatusJobListener::onChange(const DataChangedEvent& event) {
  if (env_.isShutdown()) return sim::Eager<void>::done();
  JobScheduleController* controller = env_.registryEntry.scheduler;  // getJobScheduleController(jobName)
  ELECTSIM_ASSERT(controller != nullptr);
  if (controller->isPaused()) return sim::Eager<void>::done();
  if (!paths_.isLocalInstancePath(event.key) || event.type != DataChangedEvent::Type::DELETED) return sim::Eager<void>::done();
  return shutdownUnlessReconnected();
}

sim::Task<void> InstanceShutdownStatusJobListener::shutdownUnlessReconnected() {
  bool reconnected = co_await instanceService_.isLocalJobInstanceExisted();  // isReconnectedRegistryCenter()
  if (reconnected) co_return;
  co_await schedulerFacade_.shutdownInstance();
}

}  // namespace elasticjob
