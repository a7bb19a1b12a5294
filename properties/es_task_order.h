// es-task-order (electsim addition): every node's MasterService runs its cluster-state update tasks
// in priority order, then insertion order, and a batch takes every waiting task of its executor.
//
// Judged from the trace of TaskBatcher: es.task.submit queues an entry (insertion order, priority,
// batching key, number of tasks); es.task starts a batch led by one entry; es.task.timeout removes
// an entry whose tasks waited too long. A batch is in order when no entry with waiting tasks has a
// higher priority than its leader, or the same priority and an earlier insertion order; it is whole
// when its size is the number of tasks waiting under its batching key. Entries whose tasks already
// ran in another entry's batch no longer count (the executor skips them). A node's queue dies with
// its process.
//
// Elasticsearch 6.8 PrioritizedEsThreadPoolExecutor (a PriorityBlockingQueue of
// PrioritizedRunnables, ties broken by insertion order) and TaskBatcher.runIfNotProcessed. The
// es-master-service-fifo switch violates it.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "properties/Property.h"

namespace properties {

class EsTaskOrder final : public Property {
 public:
  explicit EsTaskOrder(sim::Simulation& sim) : Property(sim) {}
  std::string_view name() const override { return "es-task-order"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  // Batches judged so far, and how many of them overtook an earlier entry of lower priority.
  std::uint64_t batches() const { return batches_; }
  std::uint64_t overtakes() const { return overtakes_; }

 private:
  using Rank = std::pair<std::uint8_t, std::uint64_t>;  // (priority, insertion order)
  struct Entry {
    std::uint8_t priority;
    std::uint64_t batchingKey;
    std::uint64_t waiting;  // tasks of this entry not yet run or timed out
    sim::Instant submitted;
  };
  struct Queue {
    std::map<std::uint64_t, Entry> entries;  // by insertion order, only entries with waiting tasks
    std::set<Rank> ranks;                    // the same entries in the executor's order
    std::map<std::uint64_t, std::vector<std::uint64_t>> byBatchingKey;  // key -> insertion orders
  };

  void onSubmit(const sim::TraceEvent& event);
  void onBatch(const sim::TraceEvent& event);
  void onTimeout(const sim::TraceEvent& event);
  void remove(Queue& queue, std::uint64_t insertOrder);
  std::uint8_t priorityOf(const sim::TraceEvent& event);

  std::map<sim::NodeId, Queue> queues_;
  std::uint64_t batches_ = 0;
  std::uint64_t overtakes_ = 0;
};

}  // namespace properties
