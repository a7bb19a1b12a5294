// NodeJoinController: the joins a node receives. While the node runs an election (an election
// context is open) joins accumulate; once it knows it won the pinging round it waits for
// minimum_master_nodes - 1 joins from master-eligible nodes (waitToBeElectedAsMaster), then becomes
// master through one URGENT batch of join tasks (BECOME_MASTER_TASK, FINISH_ELECTION_TASK and the
// pending joins). Outside an election, each join becomes a join task at once.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "model/es/JoinTaskExecutor.h"
#include "model/es/MasterService.h"

namespace es {

class NodeJoinController {
 public:
  // MembershipAction.JoinCallback: how a join request is answered.
  struct JoinCallback {
    std::function<void()> onSuccess;
    std::function<void(const EsException&)> onFailure;
  };
  struct ElectionCallback {
    std::function<void(const ClusterStatePtr&)> onElectedAsMaster;
    std::function<void(const std::string& reason)> onFailure;
  };

  NodeJoinController(sim::Node& node, MasterService& masterService);
  ~NodeJoinController();
  NodeJoinController(const NodeJoinController&) = delete;
  NodeJoinController& operator=(const NodeJoinController&) = delete;

  // Waits up to `timeout`; the callback is told the outcome, possibly after this returns.
  sim::Task<void> waitToBeElectedAsMaster(int requiredMasterJoins, sim::Duration timeout, ElectionCallback callback);
  void startElectionContext();
  // Stops accumulating: pending joins are processed (and fail unless the node is master).
  void stopElectionContext(const std::string& reason);
  void handleJoinRequest(NodeId node, JoinCallback callback);
  bool accumulatingJoins() const { return electionContext_ != nullptr; }
  const std::shared_ptr<JoinTaskExecutor>& joinTaskExecutor() const { return joinTaskExecutor_; }

 private:
  class ElectionContext;
  class JoinTaskListener;
  class ElectionFinishedListener;

  void checkPendingJoinsAndElectIfNeeded();
  void failContextIfNeeded(const std::shared_ptr<ElectionContext>& context, const std::string& reason);

  sim::Node& node_;
  MasterService& masterService_;
  std::shared_ptr<JoinTaskExecutor> joinTaskExecutor_;
  // Elasticsearch's BECOME_MASTER_TASK and FINISH_ELECTION_TASK: one object each, so that a second
  // election batch queued behind the first is rejected as a duplicate, as in Java.
  std::shared_ptr<JoinTask> becomeMasterTask_;
  std::shared_ptr<JoinTask> finishElectionTask_;
  std::shared_ptr<ElectionContext> electionContext_;
};

}  // namespace es
