#include "model/es/ClusterApplierService.h"

#include <exception>

#include "sim/trace.h"

namespace es {

ClusterApplierService::ClusterApplierService(sim::Node& node) : node_(node), threadExecutor_(node, "clusterApplierService#updateTask") {}

void ClusterApplierService::setInitialState(ClusterStatePtr initialState) {
  ELECTSIM_ASSERT(state_ == nullptr);
  ELECTSIM_ASSERT(initialState != nullptr);
  state_ = std::move(initialState);
}

void ClusterApplierService::start() {
  ELECTSIM_ASSERT_MSG(state_ != nullptr, "the initial state is set before the applier starts");
  threadExecutor_.start();
}

void ClusterApplierService::addHighPriorityApplier(std::string name, Applier applier) {
  highPriorityStateAppliers_.push_back(Named{std::move(name), std::move(applier)});
}
void ClusterApplierService::addStateApplier(std::string name, Applier applier) {
  normalPriorityStateAppliers_.push_back(Named{std::move(name), std::move(applier)});
}
void ClusterApplierService::addLowPriorityApplier(std::string name, Applier applier) {
  lowPriorityStateAppliers_.push_back(Named{std::move(name), std::move(applier)});
}
void ClusterApplierService::addListener(std::string name, Listener listener) {
  clusterStateListeners_.push_back(Named{std::move(name), std::move(listener)});
}

void ClusterApplierService::onNewClusterState(std::string source, std::function<ClusterStatePtr()> supplier, ClusterApplyListener listener) {
  ELECTSIM_ASSERT(supplier);
  std::string queued = source;
  threadExecutor_.execute(Priority::HIGH, std::move(queued),
                          [this, source = std::move(source), supplier = std::move(supplier), listener = std::move(listener)] {
                            return runTask(source, supplier, listener);
                          });
}

sim::Task<void> ClusterApplierService::runTask(std::string source, std::function<ClusterStatePtr()> supplier, ClusterApplyListener listener) {
  ClusterStatePtr previousClusterState = state_;
  ClusterStatePtr newClusterState = supplier();
  ELECTSIM_ASSERT(newClusterState != nullptr);
  if (previousClusterState != newClusterState) applyChanges(source, previousClusterState, newClusterState);
  // (no change: "cluster state updated, source [...] ... no change")
  if (listener.onSuccess) listener.onSuccess(source);
  co_return;
}

void ClusterApplierService::applyChanges(const std::string& source, const ClusterStatePtr& previousClusterState,
                                         const ClusterStatePtr& newClusterState) {
  ClusterChangedEvent event{source, newClusterState, previousClusterState};
  callClusterStateAppliers(event);
  state_ = newClusterState;
  const ClusterState& state = *newClusterState;
  const std::string& master = state.masterNodeId == sim::no_node ? std::string() : node_.sim().node(state.masterNodeId).name();
  node_.sim().trace().emit(node_.id(), "es.apply",
                           {{"version", state.version},
                            {"hash", state.contentHash()},
                            {"master", master},
                            {"local", state.origin != ClusterState::Origin::master_service},
                            {"recovered", !state.stateNotRecovered}});
  callClusterStateListeners(event);
}

void ClusterApplierService::callClusterStateAppliers(const ClusterChangedEvent& event) {
  callEach(highPriorityStateAppliers_, event, "applier");
  callEach(normalPriorityStateAppliers_, event, "applier");
  callEach(lowPriorityStateAppliers_, event, "applier");
}

void ClusterApplierService::callClusterStateListeners(const ClusterChangedEvent& event) { callEach(clusterStateListeners_, event, "listener"); }

void ClusterApplierService::callEach(const std::vector<Named>& callees, const ClusterChangedEvent& event, std::string_view kind) {
  for (const Named& callee : callees) {
    try {
      callee.call(event);
    } catch (const sim::AssertionFailure&) {
      throw;  // a broken model invariant is a finding, not a failing module
    } catch (const std::exception& error) {
      // "failed to notify ClusterStateApplier": logged, and the others still run.
      node_.sim().trace().emit(node_.id(), "es.applier_failure",
                               {{"kind", kind}, {"name", callee.name}, {"version", event.state->version}, {"error", error.what()}});
    }
  }
}

}  // namespace es
