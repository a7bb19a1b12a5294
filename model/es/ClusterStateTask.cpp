#include "model/es/ClusterStateTask.h"

#include "sim/assert.h"

namespace es {

void ClusterStateTaskListener::onNoLongerMaster(const std::string& source) {
  onFailure(source, EsException(ErrorKind::not_master, "no longer master. source: [" + source + "]"));
}

const EsException* ClusterTasksResult::failureOf(const ClusterStateTask* task) const {
  for (const auto& [failed, error] : failures) {
    if (failed == task) return &error;
  }
  return nullptr;
}

std::string ClusterStateTaskExecutor::describeTasks(const std::vector<ClusterStateTask*>& tasks) const {
  std::string text;
  for (const ClusterStateTask* task : tasks) {
    std::string one = task->describeTask();
    if (one.empty()) continue;
    if (!text.empty()) text += ", ";
    text += one;
  }
  return text;
}

ClusterTasksResult ClusterStateUpdateTask::execute(const ClusterStatePtr& currentState, const std::vector<ClusterStateTask*>& tasks) {
  // The task is its own batching key, and the batcher rejects a task submitted twice.
  ELECTSIM_ASSERT(tasks.size() == 1);
  ELECTSIM_ASSERT(tasks.front() == this);
  ClusterTasksResult result;
  result.resultingState = executeTask(currentState);
  ELECTSIM_ASSERT(result.resultingState != nullptr);
  return result;
}

}  // namespace es
