// MasterService, TaskBatcher and PrioritizedEsThreadPoolExecutor on one node, with a stand-in
// publisher: priority order, FIFO within a priority, batching by executor identity, duplicate
// rejection, queue timeouts, no publication of an unchanged state, and the pending-tasks view.
// es-task-order watches every test's trace and must hold, except under the FIFO bug switch; it is
// also tested on hand-made events for what the real code cannot produce.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "model/es/ClusterTaskWorkload.h"
#include "model/es/MasterService.h"
#include "properties/es_task_order.h"
#include "sim/network.h"
#include "sim/sync.h"
#include "tests/support/idle_node.h"

namespace {

using namespace std::chrono_literals;
using es::ClusterStatePtr;
using es::Priority;

// A node that hosts only a MasterService. The publisher records what it is given and can be held
// (to keep the master-service thread busy) or made to fail the commit.
class ServiceNode final : public sim::Node {
 public:
  explicit ServiceNode(sim::Simulation& sim) : Node(sim, "es1"), gate(sim) { gate.set(); }

  std::unique_ptr<es::MasterService> masterService;
  ClusterStatePtr state;
  std::vector<es::ClusterChangedEvent> published;
  sim::Signal gate;  // publications wait for it
  bool failCommit = false;
  std::uint64_t uuids = 100;
  es::MasterService::QueueOrder queueOrder = es::MasterService::QueueOrder::by_priority;

  sim::Task<void> publish(es::ClusterChangedEvent event) {
    published.push_back(event);
    co_await gate.wait();
    if (failCommit) throw es::EsException(es::ErrorKind::failed_to_commit, "no acks");
    state = event.state;
  }

 protected:
  void on_start() override {
    auto initial = std::make_shared<es::ClusterState>();
    initial->nodes = {id()};
    initial->masterNodeId = id();
    initial->stateNotRecovered = false;
    initial->noMasterBlock = false;
    initial->stateUUID = 1;
    state = initial;
    masterService = std::make_unique<es::MasterService>(*this, queueOrder);
    masterService->setClusterStateSupplier([this] { return state; });
    masterService->setClusterStatePublisher([this](es::ClusterChangedEvent event) { return publish(std::move(event)); });
    masterService->setStateUuidSupplier([this] { return uuids++; });
    masterService->start();
  }
  void on_stop() override { masterService.reset(); }
};

struct Outcome {
  std::vector<std::string> executed;   // task names, in execution order
  std::vector<std::string> processed;  // clusterStateProcessed
  std::vector<std::string> failed;     // onFailure: name + error
  std::vector<std::string> noLongerMaster;
  std::vector<ClusterStatePtr> newStates;
};

// A task that sets metadata[name] = name (or changes nothing when noop).
class RecordingTask final : public es::ClusterStateUpdateTask {
 public:
  RecordingTask(std::string name, Outcome& outcome, Priority priority = Priority::NORMAL, std::optional<sim::Duration> timeout = std::nullopt,
                bool noop = false)
      : ClusterStateUpdateTask(priority, timeout), name_(std::move(name)), outcome_(outcome), noop_(noop) {}
  ClusterStatePtr executeTask(const ClusterStatePtr& currentState) override {
    outcome_.executed.push_back(name_);
    if (noop_) return currentState;
    auto next = es::builder(*currentState);
    next->metadata[name_] = name_;
    return next;
  }
  void onFailure(const std::string&, const es::EsException& error) override {
    outcome_.failed.push_back(name_ + ":" + std::string(es::errorName(error.kind())));
  }
  void onNoLongerMaster(const std::string&) override { outcome_.noLongerMaster.push_back(name_); }
  void clusterStateProcessed(const std::string&, const ClusterStatePtr&, const ClusterStatePtr& newState) override {
    outcome_.processed.push_back(name_);
    outcome_.newStates.push_back(newState);
  }

 private:
  std::string name_;
  Outcome& outcome_;
  bool noop_;
};

// A plain task object for a shared executor.
struct KeyTask final : es::ClusterStateTask {
  explicit KeyTask(std::string key) : key(std::move(key)) {}
  std::string describeTask() const override { return key; }
  std::string key;
};

class SharedExecutor final : public es::ClusterStateTaskExecutor {
 public:
  explicit SharedExecutor(Outcome& outcome, bool runOnlyOnMaster = true, bool throwing = false)
      : outcome_(outcome), runOnlyOnMaster_(runOnlyOnMaster), throwing_(throwing) {}
  es::ClusterTasksResult execute(const ClusterStatePtr& currentState, const std::vector<es::ClusterStateTask*>& tasks) override {
    batches.push_back(tasks.size());
    if (throwing_) throw es::EsException(es::ErrorKind::illegal_state, "executor failed");
    auto next = es::builder(*currentState);
    for (es::ClusterStateTask* task : tasks) {
      const std::string& key = static_cast<KeyTask*>(task)->key;
      outcome_.executed.push_back(key);
      next->metadata[key] = key;
    }
    return es::ClusterTasksResult{next, {}};
  }
  bool runOnlyOnMaster() const override { return runOnlyOnMaster_; }
  std::vector<std::size_t> batches;

 private:
  Outcome& outcome_;
  bool runOnlyOnMaster_;
  bool throwing_;
};

class KeyListener final : public es::ClusterStateTaskListener {
 public:
  KeyListener(std::string name, Outcome& outcome) : name_(std::move(name)), outcome_(outcome) {}
  void onFailure(const std::string&, const es::EsException& error) override {
    outcome_.failed.push_back(name_ + ":" + std::string(es::errorName(error.kind())));
  }
  void onNoLongerMaster(const std::string&) override { outcome_.noLongerMaster.push_back(name_); }
  void clusterStateProcessed(const std::string&, const ClusterStatePtr&, const ClusterStatePtr& newState) override {
    outcome_.processed.push_back(name_);
    outcome_.newStates.push_back(newState);
  }

 private:
  std::string name_;
  Outcome& outcome_;
};

struct Fixture {
  sim::Simulation sim{7};
  ServiceNode& node = sim.add_node<ServiceNode>();
  Outcome outcome;
  properties::EsTaskOrder taskOrder{sim};
  bool expectOrderViolated = false;
  explicit Fixture(es::MasterService::QueueOrder order = es::MasterService::QueueOrder::by_priority) {
    sim.trace().add_sink(&taskOrder);
    node.queueOrder = order;
    node.start();
    sim.run_for(1ms);
  }
  ~Fixture() {
    sim.trace().remove_sink(&taskOrder);
    EXPECT_EQ(taskOrder.verdict(), expectOrderViolated ? properties::Verdict::violated : properties::Verdict::held)
        << (taskOrder.violations().empty() ? std::string() : taskOrder.violations().front().message);
  }
  es::MasterService& service() { return *node.masterService; }
  // Keeps the master-service thread busy in a publication until release().
  void hold() {
    node.gate.reset();
    service().submitStateUpdateTask("blocker", std::make_shared<RecordingTask>("blocker", outcome, Priority::IMMEDIATE));
    sim.run_for(1ms);
    ASSERT_EQ(outcome.executed, std::vector<std::string>{"blocker"});
    outcome.executed.clear();
  }
  void release() {
    node.gate.set();
    sim.run_for(1ms);
  }
};

TEST(MasterService, RunsTasksByPriority) {
  Fixture f;
  f.hold();
  for (Priority priority : {Priority::LANGUID, Priority::LOW, Priority::NORMAL, Priority::HIGH, Priority::URGENT, Priority::IMMEDIATE}) {
    std::string name(es::priorityName(priority));
    f.service().submitStateUpdateTask(name, std::make_shared<RecordingTask>(name, f.outcome, priority));
  }
  f.release();
  EXPECT_EQ(f.outcome.executed, (std::vector<std::string>{"IMMEDIATE", "URGENT", "HIGH", "NORMAL", "LOW", "LANGUID"}));
  EXPECT_EQ(f.taskOrder.overtakes(), 5U);  // each but LANGUID overtook the tasks queued before it
}

// The es-master-service-fifo bug switch: insertion order only, and es-task-order says so.
TEST(MasterService, TheFifoBugSwitchIgnoresPrioritiesAndEsTaskOrderCatchesIt) {
  Fixture f(es::MasterService::QueueOrder::fifo);
  f.expectOrderViolated = true;
  f.hold();
  for (Priority priority : {Priority::LANGUID, Priority::URGENT}) {
    std::string name(es::priorityName(priority));
    f.service().submitStateUpdateTask(name, std::make_shared<RecordingTask>(name, f.outcome, priority));
  }
  f.release();
  EXPECT_EQ(f.outcome.executed, (std::vector<std::string>{"LANGUID", "URGENT"}));
  ASSERT_EQ(f.taskOrder.violations().size(), 1U);
  EXPECT_NE(f.taskOrder.violations()[0].message.find("es1 ran #1 (LANGUID) [LANGUID] while #2 (URGENT) waited since"), std::string::npos)
      << f.taskOrder.violations()[0].message;
}

TEST(MasterService, CountsTasksBatchesPublicationsAndTheLongestWaitPerPriority) {
  Fixture f;
  f.hold();
  auto executor = std::make_shared<SharedExecutor>(f.outcome);
  for (const char* key : {"k1", "k2", "k3"}) {
    f.service().submitStateUpdateTask(key, std::make_shared<KeyTask>(key), es::ClusterStateTaskConfig{Priority::LOW, std::nullopt}, executor,
                                      std::make_shared<KeyListener>(key, f.outcome));
  }
  f.sim.run_for(2s);
  f.release();
  const es::MasterServiceStats& stats = f.service().stats();
  EXPECT_EQ(stats.tasksSubmitted(), 4U);  // the blocker and three
  EXPECT_EQ(stats.batches, 2U);
  EXPECT_EQ(stats.tasksRun(), 4U);
  EXPECT_EQ(stats.largestBatch, 3U);
  EXPECT_EQ(stats.publications, 2U);
  EXPECT_EQ(stats.tasksSubmittedByPriority[static_cast<std::size_t>(Priority::LOW)], 3U);
  EXPECT_EQ(stats.tasksRunByPriority[static_cast<std::size_t>(Priority::LOW)], 3U);
  EXPECT_EQ(stats.longestWait[static_cast<std::size_t>(Priority::LOW)], sim::Duration(2s));
  EXPECT_EQ(stats.longestWait[static_cast<std::size_t>(Priority::IMMEDIATE)], sim::Duration(0));
}

// The shared workload executor: one new state for a batch, the later write to a key winning, and
// the same state object back when nothing changes (so nothing is published).
TEST(PutKeysExecutor, AppliesABatchInOrderAndReturnsTheSameStateWhenNothingChanges) {
  auto initial = std::make_shared<es::ClusterState>();
  initial->metadata["a"] = "es1#0";
  es::PutKeysExecutor executor;
  es::PutKeyRequest first("b", "es1#1"), second("b", "es1#2"), third("a", "es1#3");
  es::ClusterTasksResult result = executor.execute(initial, {&first, &second, &third});
  ASSERT_NE(result.resultingState, initial);
  EXPECT_EQ(result.resultingState->metadata.at("a"), "es1#3");
  EXPECT_EQ(result.resultingState->metadata.at("b"), "es1#2");
  EXPECT_TRUE(result.failures.empty());
  es::PutKeyRequest same("a", "es1#0");
  EXPECT_EQ(executor.execute(initial, {&same}).resultingState, initial);
  EXPECT_EQ(executor.describeTasks({&first, &third}), "b=es1#1, a=es1#3");
}

// What the real executor cannot do, on hand-made events: a batch that leaves a waiting task of its
// executor behind, a batch led by an entry that is not waiting, and a crash that empties the queue.
TEST(EsTaskOrder, JudgesBatchesThatAreNotWholeAndForgetsTheQueueOfACrashedNode) {
  sim::Simulation sim{1};
  test_support::IdleNode& node = sim.add_node<test_support::IdleNode>("es1");
  properties::EsTaskOrder property(sim);
  sim.trace().add_sink(&property);
  auto submit = [&](std::uint64_t order, const char* priority, std::uint64_t key) {
    sim.trace().emit(node.id(), "es.task.submit", {{"insert_order", order}, {"priority", priority}, {"batching_key", key}, {"tasks", std::uint64_t{1}}, {"source", "s"}});
  };
  auto batch = [&](std::uint64_t order, const char* priority, std::uint64_t key, std::uint64_t size) {
    sim.trace().emit(node.id(), "es.task", {{"source", "s"}, {"priority", priority}, {"insert_order", order}, {"batching_key", key}, {"batch", size}});
  };
  submit(0, "NORMAL", 1);
  submit(1, "NORMAL", 1);
  submit(2, "NORMAL", 2);
  batch(0, "NORMAL", 1, 2);  // 0 and 1 together: whole
  EXPECT_EQ(property.verdict(), properties::Verdict::held);
  batch(2, "NORMAL", 2, 1);
  EXPECT_EQ(property.verdict(), properties::Verdict::held);
  submit(3, "NORMAL", 3);
  submit(4, "NORMAL", 3);
  batch(3, "NORMAL", 3, 1);  // leaves #4 behind
  ASSERT_EQ(property.violations().size(), 1U);
  EXPECT_NE(property.violations()[0].message.find("ran a batch of 1 tasks led by #3 (NORMAL) while 2 tasks of its executor waited"), std::string::npos)
      << property.violations()[0].message;
  batch(3, "NORMAL", 3, 1);  // #3 ran already
  ASSERT_EQ(property.violations().size(), 2U);
  EXPECT_NE(property.violations()[1].message.find("led by entry #3, which has no waiting task"), std::string::npos);

  submit(5, "LOW", 4);
  sim.trace().emit(node.id(), "node.crash", {});
  submit(6, "LANGUID", 5);
  batch(6, "LANGUID", 5, 1);  // #5 died with the process: no overtake, no violation
  EXPECT_EQ(property.violations().size(), 2U);
  sim.trace().remove_sink(&property);
}

TEST(MasterService, RunsTasksOfOnePriorityInInsertionOrder) {
  Fixture f;
  f.hold();
  for (const char* name : {"a", "b", "c", "d"}) f.service().submitStateUpdateTask(name, std::make_shared<RecordingTask>(name, f.outcome, Priority::HIGH));
  f.service().submitStateUpdateTask("urgent", std::make_shared<RecordingTask>("urgent", f.outcome, Priority::URGENT));
  f.release();
  EXPECT_EQ(f.outcome.executed, (std::vector<std::string>{"urgent", "a", "b", "c", "d"}));
}

TEST(MasterService, BatchesTasksThatShareAnExecutorIntoOneExecutionAndOnePublication) {
  Fixture f;
  f.hold();
  auto executor = std::make_shared<SharedExecutor>(f.outcome);
  for (const char* key : {"k1", "k2", "k3"}) {
    f.service().submitStateUpdateTask(std::string("shard-started ") + key, std::make_shared<KeyTask>(key), es::ClusterStateTaskConfig{},
                                      executor, std::make_shared<KeyListener>(key, f.outcome));
  }
  std::size_t publishedBefore = f.node.published.size();
  f.release();
  EXPECT_EQ(executor->batches, std::vector<std::size_t>{3});  // one execution for the three
  EXPECT_EQ(f.node.published.size(), publishedBefore + 1);   // one publication
  ASSERT_EQ(f.outcome.processed, (std::vector<std::string>{"blocker", "k1", "k2", "k3"}));
  EXPECT_EQ(f.outcome.newStates[1], f.outcome.newStates[2]);  // every task gets the same result
  EXPECT_EQ(f.outcome.newStates[2], f.outcome.newStates[3]);
  EXPECT_EQ(f.outcome.newStates[1], f.node.published.back().state);
}

TEST(MasterService, DoesNotBatchTasksOfDifferentExecutors) {
  Fixture f;
  f.hold();
  auto first = std::make_shared<SharedExecutor>(f.outcome);
  auto second = std::make_shared<SharedExecutor>(f.outcome);
  f.service().submitStateUpdateTask("a", std::make_shared<KeyTask>("a"), {}, first, std::make_shared<KeyListener>("a", f.outcome));
  f.service().submitStateUpdateTask("b", std::make_shared<KeyTask>("b"), {}, second, std::make_shared<KeyListener>("b", f.outcome));
  f.service().submitStateUpdateTask("c", std::make_shared<KeyTask>("c"), {}, first, std::make_shared<KeyListener>("c", f.outcome));
  f.release();
  EXPECT_EQ(first->batches, std::vector<std::size_t>{2});  // a and c, when a's turn comes
  EXPECT_EQ(second->batches, std::vector<std::size_t>{1});
  EXPECT_EQ(f.outcome.executed, (std::vector<std::string>{"a", "c", "b"}));
}

TEST(MasterService, RejectsATaskObjectSubmittedTwice) {
  Fixture f;
  f.hold();
  auto executor = std::make_shared<SharedExecutor>(f.outcome);
  auto task = std::make_shared<KeyTask>("k");
  auto listener = std::make_shared<KeyListener>("k", f.outcome);
  f.service().submitStateUpdateTask("first", task, {}, executor, listener);
  try {
    f.service().submitStateUpdateTask("again", task, {}, executor, listener);
    FAIL() << "a duplicate task was accepted";
  } catch (const es::EsException& error) {
    EXPECT_EQ(error.kind(), es::ErrorKind::illegal_state);
  }
  // Twice in one submission, too.
  auto other = std::make_shared<KeyTask>("o");
  EXPECT_THROW(f.service().submitStateUpdateTasks("pair", {{other, listener}, {other, listener}}, {}, executor), es::EsException);
  f.release();
  EXPECT_EQ(executor->batches, std::vector<std::size_t>{1});
  EXPECT_EQ(f.outcome.executed, std::vector<std::string>{"k"});
}

TEST(MasterService, ATaskStillQueuedWhenItsTimeoutExpiresFails) {
  Fixture f;
  f.hold();
  f.service().submitStateUpdateTask("late", std::make_shared<RecordingTask>("late", f.outcome, Priority::NORMAL, sim::Duration(2s)));
  f.service().submitStateUpdateTask("patient", std::make_shared<RecordingTask>("patient", f.outcome, Priority::NORMAL, sim::Duration(10s)));
  f.sim.run_for(3s);
  EXPECT_EQ(f.outcome.failed, std::vector<std::string>{"late:ProcessClusterEventTimeoutException"});
  f.release();
  EXPECT_EQ(f.outcome.executed, std::vector<std::string>{"patient"});  // the timed-out task never runs
  EXPECT_EQ(f.outcome.processed, (std::vector<std::string>{"blocker", "patient"}));
}

TEST(MasterService, AnUnchangedStateIsNotPublished) {
  Fixture f;
  std::size_t before = f.node.published.size();
  ClusterStatePtr state = f.node.state;
  f.service().submitStateUpdateTask("noop", std::make_shared<RecordingTask>("noop", f.outcome, Priority::NORMAL, std::nullopt, true));
  f.sim.run_for(1s);
  EXPECT_EQ(f.outcome.executed, std::vector<std::string>{"noop"});
  EXPECT_EQ(f.node.published.size(), before);
  ASSERT_EQ(f.outcome.newStates.size(), 1U);
  EXPECT_EQ(f.outcome.newStates.front(), state);  // processed with the old state as the new one
}

TEST(MasterService, AChangedStateIsPublishedWithTheNextVersionAndANewUuid) {
  Fixture f;
  ClusterStatePtr before = f.node.state;
  f.service().submitStateUpdateTask("put", std::make_shared<RecordingTask>("put", f.outcome));
  f.sim.run_for(1s);
  ASSERT_EQ(f.node.published.size(), 1U);
  const es::ClusterChangedEvent& event = f.node.published.front();
  EXPECT_EQ(event.previousState, before);
  EXPECT_EQ(event.state->version, before->version + 1);
  EXPECT_NE(event.state->stateUUID, before->stateUUID);
  EXPECT_EQ(event.state->metadata.at("put"), "put");
  EXPECT_EQ(f.outcome.processed, std::vector<std::string>{"put"});
}

TEST(MasterService, ATaskForTheMasterOnANodeThatIsNotMasterGetsOnNoLongerMaster) {
  Fixture f;
  auto notMaster = es::builder(*f.node.state);
  notMaster->masterNodeId = sim::no_node;
  f.node.state = notMaster;
  f.service().submitStateUpdateTask("put", std::make_shared<RecordingTask>("put", f.outcome));
  auto anywhere = std::make_shared<SharedExecutor>(f.outcome, false);
  f.service().submitStateUpdateTask("join", std::make_shared<KeyTask>("join"), {}, anywhere, std::make_shared<KeyListener>("join", f.outcome));
  f.sim.run_for(1s);
  EXPECT_EQ(f.outcome.noLongerMaster, std::vector<std::string>{"put"});
  EXPECT_EQ(anywhere->batches, std::vector<std::size_t>{1});  // runOnlyOnMaster() == false still runs
}

TEST(MasterService, AFailingExecutorOrAFailedCommitFailsTheWholeBatch) {
  Fixture f;
  f.hold();
  auto throwing = std::make_shared<SharedExecutor>(f.outcome, true, true);
  f.service().submitStateUpdateTask("x", std::make_shared<KeyTask>("x"), {}, throwing, std::make_shared<KeyListener>("x", f.outcome));
  f.service().submitStateUpdateTask("y", std::make_shared<KeyTask>("y"), {}, throwing, std::make_shared<KeyListener>("y", f.outcome));
  f.release();
  EXPECT_EQ(f.outcome.failed, (std::vector<std::string>{"x:IllegalStateException", "y:IllegalStateException"}));

  f.node.failCommit = true;
  f.service().submitStateUpdateTask("uncommitted", std::make_shared<RecordingTask>("uncommitted", f.outcome));
  f.sim.run_for(1s);
  EXPECT_EQ(f.outcome.failed.back(), "uncommitted:FailedToCommitClusterStateException");
}

TEST(MasterService, PendingTasksShowInsertOrderPrioritySourceExecutingAndTimeInQueue) {
  Fixture f;
  f.hold();
  f.sim.run_for(500ms);
  f.service().submitStateUpdateTask("create-index [foo_9], cause [api]", std::make_shared<RecordingTask>("create", f.outcome, Priority::URGENT));
  f.sim.run_for(86ms);
  f.service().submitStateUpdateTask("put-mapping", std::make_shared<RecordingTask>("mapping", f.outcome, Priority::LOW));
  std::vector<es::PendingClusterTask> pending = f.service().pendingTasks();
  ASSERT_EQ(pending.size(), 3U);
  EXPECT_TRUE(pending[0].executing);
  EXPECT_EQ(pending[0].source, "blocker");
  EXPECT_EQ(pending[0].priority, Priority::IMMEDIATE);
  EXPECT_FALSE(pending[1].executing);
  EXPECT_EQ(pending[1].source, "create-index [foo_9], cause [api]");
  EXPECT_EQ(pending[1].priority, Priority::URGENT);
  EXPECT_EQ(pending[1].timeInQueue, sim::Duration(86ms));
  EXPECT_EQ(pending[2].source, "put-mapping");
  EXPECT_EQ(pending[2].timeInQueue, sim::Duration(0));
  EXPECT_LT(pending[0].insertOrder, pending[1].insertOrder);
  EXPECT_LT(pending[1].insertOrder, pending[2].insertOrder);
  EXPECT_EQ(f.service().numberOfPendingTasks(), 3U);
  f.release();
  EXPECT_TRUE(f.service().pendingTasks().empty());
}

TEST(MasterService, PriorityNamesRoundTrip) {
  for (std::uint8_t i = 0; i < es::priority_count; i++) {
    auto priority = static_cast<Priority>(i);
    EXPECT_EQ(es::parsePriority(es::priorityName(priority)), priority);
  }
  EXPECT_EQ(es::parsePriority("urgent"), Priority::URGENT);
  EXPECT_FALSE(es::parsePriority("SOON").has_value());
}

}  // namespace
