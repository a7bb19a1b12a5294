// ShutdownListenerManager (3.0.4; source 001's fourth way: a remote shutdown).
//
// InstanceShutdownStatusJobListener: when the job is not shut down, its trigger is not paused (a
// paused trigger means we are disconnected), the event is our own instances/{id} DELETED, and the
// node does not exist again (direct; re-created means we reconnected): shutdownInstance(). The
// race with a session expiry and reconnect can shut a healthy instance down (#1857, #2383).
#pragma once

#include "model/elasticjob/DataChangedEvent.h"
#include "model/elasticjob/InstanceService.h"
#include "model/elasticjob/SchedulerFacade.h"

namespace elasticjob {

class InstanceShutdownStatusJobListener final : public DataChangedEventListener {
 public:
  InstanceShutdownStatusJobListener(JobEnvironment& env, const JobPaths& paths, InstanceService& instanceService, SchedulerFacade& schedulerFacade)
      : env_(env), paths_(paths), instanceService_(instanceService), schedulerFacade_(schedulerFacade) {}
  sim::Eager<void> onChange(const DataChangedEvent& event) override;
  std::string_view name() const override { return "InstanceShutdownStatusJobListener"; }

 private:
  sim::Task<void> shutdownUnlessReconnected();  // onChange once our own instance node is gone
  JobEnvironment& env_;
  const JobPaths& paths_;
  InstanceService& instanceService_;
  SchedulerFacade& schedulerFacade_;
};

}  // namespace elasticjob
