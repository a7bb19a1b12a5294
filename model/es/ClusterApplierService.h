// ClusterApplierService: applies cluster states on every node, on its own single prioritized thread
// (clusterApplierService#updateTask). applyChanges calls the appliers — high, then normal, then low
// priority — before the new state becomes visible (state()), then the listeners after. An applier
// or listener that throws is logged (trace kind es.applier_failure) and the others still run.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "model/es/ClusterStateTask.h"
#include "model/es/PrioritizedEsThreadPoolExecutor.h"

namespace es {

class ClusterApplierService {
 public:
  // ClusterStateApplier.applyClusterState and ClusterStateListener.clusterChanged.
  using Applier = std::function<void(const ClusterChangedEvent&)>;
  using Listener = std::function<void(const ClusterChangedEvent&)>;
  // ClusterApplier.ClusterApplyListener
  struct ClusterApplyListener {
    std::function<void(const std::string& source)> onSuccess;
    std::function<void(const std::string& source, const EsException& error)> onFailure;
  };

  explicit ClusterApplierService(sim::Node& node);
  ClusterApplierService(const ClusterApplierService&) = delete;
  ClusterApplierService& operator=(const ClusterApplierService&) = delete;

  void setInitialState(ClusterStatePtr initialState);
  void start();

  void addHighPriorityApplier(std::string name, Applier applier);
  void addStateApplier(std::string name, Applier applier);
  void addLowPriorityApplier(std::string name, Applier applier);
  void addListener(std::string name, Listener listener);

  // The state the node has applied (ClusterService#state).
  ClusterStatePtr state() const { return state_; }
  // Queues the application of whatever `supplier` returns when the task runs (HIGH priority).
  void onNewClusterState(std::string source, std::function<ClusterStatePtr()> supplier, ClusterApplyListener listener);
  bool idle() const { return threadExecutor_.idle(); }

 private:
  struct Named {
    std::string name;
    std::function<void(const ClusterChangedEvent&)> call;
  };

  sim::Task<void> runTask(std::string source, std::function<ClusterStatePtr()> supplier, ClusterApplyListener listener);
  void applyChanges(const std::string& source, const ClusterStatePtr& previousClusterState, const ClusterStatePtr& newClusterState);
  void callClusterStateAppliers(const ClusterChangedEvent& event);
  void callClusterStateListeners(const ClusterChangedEvent& event);
  void callEach(const std::vector<Named>& callees, const ClusterChangedEvent& event, std::string_view kind);

  sim::Node& node_;
  PrioritizedEsThreadPoolExecutor threadExecutor_;
  ClusterStatePtr state_;
  std::vector<Named> highPriorityStateAppliers_;
  std::vector<Named> normalPriorityStateAppliers_;
  std::vector<Named> lowPriorityStateAppliers_;
  std::vector<Named> clusterStateListeners_;
};

}  // namespace es
