#include "model/es/NodeJoinController.h"

namespace es {

// Answers the join requests of one node once its join task is processed or failed.
class NodeJoinController::JoinTaskListener final : public ClusterStateTaskListener {
 public:
  explicit JoinTaskListener(std::vector<JoinCallback> callbacks) : callbacks_(std::move(callbacks)) {}
  void onFailure(const std::string& source, const EsException& error) override {
    (void)source;
    for (const JoinCallback& callback : callbacks_) callback.onFailure(error);
  }
  void clusterStateProcessed(const std::string& source, const ClusterStatePtr& oldState, const ClusterStatePtr& newState) override {
    (void)source, (void)oldState, (void)newState;
    for (const JoinCallback& callback : callbacks_) callback.onSuccess();
  }

 private:
  std::vector<JoinCallback> callbacks_;
};

// ElectionContext.electionFinishedListener: elected if the processed state has us as master.
class NodeJoinController::ElectionFinishedListener final : public ClusterStateTaskListener {
 public:
  ElectionFinishedListener(std::shared_ptr<ElectionContext> context, NodeId localNode) : context_(std::move(context)), localNode_(localNode) {}
  void clusterStateProcessed(const std::string& source, const ClusterStatePtr& oldState, const ClusterStatePtr& newState) override;
  void onFailure(const std::string& source, const EsException& error) override;

 private:
  std::shared_ptr<ElectionContext> context_;
  NodeId localNode_;
};

// The joins of one election, and what to tell whom once it is decided.
class NodeJoinController::ElectionContext : public std::enable_shared_from_this<ElectionContext> {
 public:
  explicit ElectionContext(NodeJoinController& controller) : controller_(controller) {}

  void onAttemptToBeElected(int requiredMasterJoins, ElectionCallback callback) {
    ensureOpen();
    ELECTSIM_ASSERT(requiredMasterJoins_ < 0);
    requiredMasterJoins_ = requiredMasterJoins;
    callback_ = std::move(callback);
  }
  void addIncomingJoin(NodeId node, JoinCallback callback) {
    ensureOpen();
    joinRequestAccumulator_[node].push_back(std::move(callback));
  }
  bool isEnoughPendingJoins(int pendingMasterJoins) const {
    return requiredMasterJoins_ >= 0 && pendingMasterJoins >= requiredMasterJoins_;  // unknown yet: keep waiting
  }
  int getPendingMasterJoinsCount() const { return static_cast<int>(joinRequestAccumulator_.size()); }
  int requiredMasterJoins() const { return requiredMasterJoins_; }

  void closeAndBecomeMaster() {
    ELECTSIM_ASSERT(callback_.has_value());
    ELECTSIM_ASSERT(isEnoughPendingJoins(getPendingMasterJoinsCount()));
    innerClose();
    std::vector<TaskAndListener> tasks = getPendingAsTasks();
    std::string source = "zen-disco-elected-as-master ([" + std::to_string(tasks.size()) + "] nodes joined)";
    tasks.emplace_back(controller_.becomeMasterTask_, std::make_shared<NoopListener>());  // the finish listener decides
    tasks.emplace_back(controller_.finishElectionTask_, std::make_shared<ElectionFinishedListener>(shared_from_this(), controller_.node_.id()));
    controller_.masterService_.submitStateUpdateTasks(source, std::move(tasks), ClusterStateTaskConfig{Priority::URGENT, std::nullopt},
                                                      controller_.joinTaskExecutor_);
  }

  void closeAndProcessPending(const std::string& reason) {
    innerClose();
    std::vector<TaskAndListener> tasks = getPendingAsTasks();
    tasks.emplace_back(controller_.finishElectionTask_, std::make_shared<ElectionFinishedListener>(shared_from_this(), controller_.node_.id()));
    controller_.masterService_.submitStateUpdateTasks("zen-disco-election-stop [" + reason + "]", std::move(tasks),
                                                      ClusterStateTaskConfig{Priority::URGENT, std::nullopt}, controller_.joinTaskExecutor_);
  }

  void onElectedAsMaster(const ClusterStatePtr& state) {
    if (callback_ && callback_->onElectedAsMaster) callback_->onElectedAsMaster(state);
  }
  void onFailure(const std::string& reason) {
    if (callback_ && callback_->onFailure) callback_->onFailure(reason);
  }

 private:
  struct NoopListener final : ClusterStateTaskListener {
    void onFailure(const std::string&, const EsException&) override {}
  };

  void innerClose() {
    if (closed_) throw EsException(ErrorKind::illegal_state, "election context is already closed");
    closed_ = true;
  }
  void ensureOpen() const {
    if (closed_) throw EsException(ErrorKind::illegal_state, "election context is already closed");
  }
  std::vector<TaskAndListener> getPendingAsTasks() const {
    std::vector<TaskAndListener> tasks;
    for (const auto& [node, callbacks] : joinRequestAccumulator_) {
      tasks.emplace_back(std::make_shared<JoinTask>(JoinTask::Kind::join, node), std::make_shared<JoinTaskListener>(callbacks));
    }
    return tasks;
  }

  NodeJoinController& controller_;
  std::optional<ElectionCallback> callback_;
  int requiredMasterJoins_ = -1;
  std::map<NodeId, std::vector<JoinCallback>> joinRequestAccumulator_;  // by node id: a stable order
  bool closed_ = false;
};

void NodeJoinController::ElectionFinishedListener::clusterStateProcessed(const std::string& source, const ClusterStatePtr& oldState,
                                                                      const ClusterStatePtr& newState) {
  (void)oldState;
  if (newState->isLocalNodeElectedMaster(localNode_)) {
    context_->onElectedAsMaster(newState);
  } else {
    onFailure(source, EsException(ErrorKind::not_master, "election stopped [" + source + "]"));
  }
}

void NodeJoinController::ElectionFinishedListener::onFailure(const std::string& source, const EsException& error) {
  (void)source;
  context_->onFailure(error.what());
}

NodeJoinController::NodeJoinController(sim::Node& node, MasterService& masterService)
    : node_(node),
      masterService_(masterService),
      joinTaskExecutor_(std::make_shared<JoinTaskExecutor>(node.sim(), node.id())),
      becomeMasterTask_(std::make_shared<JoinTask>(JoinTask::Kind::become_master, sim::no_node)),
      finishElectionTask_(std::make_shared<JoinTask>(JoinTask::Kind::finish_election, sim::no_node)) {}

NodeJoinController::~NodeJoinController() = default;

sim::Task<void> NodeJoinController::waitToBeElectedAsMaster(int requiredMasterJoins, sim::Duration timeout, ElectionCallback callback) {
  auto done = std::make_shared<sim::Signal>(node_.sim());
  ElectionCallback wrapperCallback{[done, callback](const ClusterStatePtr& state) {
                                     done->set();
                                     callback.onElectedAsMaster(state);
                                   },
                                   [done, callback](const std::string& reason) {
                                     done->set();
                                     callback.onFailure(reason);
                                   }};
  std::shared_ptr<ElectionContext> myElectionContext = electionContext_;
  ELECTSIM_ASSERT_MSG(myElectionContext != nullptr, "waitToBeElectedAsMaster is called when we are not accumulating joins");
  bool failed = false;
  try {
    myElectionContext->onAttemptToBeElected(requiredMasterJoins, wrapperCallback);
    checkPendingJoinsAndElectIfNeeded();
  } catch (const EsException&) {
    failed = true;  // "unexpected failure while waiting for incoming joins"
  }
  if (failed) {
    failContextIfNeeded(myElectionContext, "unexpected failure while waiting for pending joins");
    co_return;
  }
  bool decided = co_await done->wait_for(timeout);
  if (decided) co_return;  // the callback handles everything
  failContextIfNeeded(myElectionContext, "timed out waiting to be elected");
}

void NodeJoinController::failContextIfNeeded(const std::shared_ptr<ElectionContext>& context, const std::string& reason) {
  if (electionContext_ == context) stopElectionContext(reason);
}

void NodeJoinController::startElectionContext() {
  ELECTSIM_ASSERT_MSG(electionContext_ == nullptr, "double startElectionContext() calls");
  electionContext_ = std::make_shared<ElectionContext>(*this);
}

void NodeJoinController::stopElectionContext(const std::string& reason) {
  ELECTSIM_ASSERT_MSG(electionContext_ != nullptr, "stopElectionContext() called but not accumulating");
  std::shared_ptr<ElectionContext> context = std::move(electionContext_);
  electionContext_ = nullptr;
  context->closeAndProcessPending(reason);
}

void NodeJoinController::handleJoinRequest(NodeId node, JoinCallback callback) {
  if (electionContext_ != nullptr) {
    electionContext_->addIncomingJoin(node, std::move(callback));
    checkPendingJoinsAndElectIfNeeded();
    return;
  }
  std::vector<TaskAndListener> tasks;
  tasks.emplace_back(std::make_shared<JoinTask>(JoinTask::Kind::join, node), std::make_shared<JoinTaskListener>(std::vector<JoinCallback>{callback}));
  masterService_.submitStateUpdateTasks("zen-disco-node-join", std::move(tasks), ClusterStateTaskConfig{Priority::URGENT, std::nullopt},
                                        joinTaskExecutor_);
}

void NodeJoinController::checkPendingJoinsAndElectIfNeeded() {
  ELECTSIM_ASSERT_MSG(electionContext_ != nullptr, "election check requested but no active context");
  if (!electionContext_->isEnoughPendingJoins(electionContext_->getPendingMasterJoinsCount())) return;
  std::shared_ptr<ElectionContext> context = std::move(electionContext_);
  electionContext_ = nullptr;  // future joins are not accumulated
  context->closeAndBecomeMaster();
}

}  // namespace es
