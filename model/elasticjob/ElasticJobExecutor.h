// ElasticJobExecutor (elasticjob-executor-kernel, 3.0.4): one execution of a job on one instance,
// run on the Quartz worker.
//
//   execute(): configuration (cache), getShardingContexts, misfireIfRunning -> return;
//              execute(NORMAL_TRIGGER); while isExecuteMisfired: clearMisfire, execute(MISFIRE)
//   execute(ctx, source): no items -> "Sharding item for job is empty"; registerJobBegin (running
//              nodes); process; finally registerJobCompleted
//   process:   one item on the calling thread; several items on the job's executor service (the
//              "CPU" handler: availableProcessors * 2 threads), waiting for all of them
//
// An item's business logic is a sleep of the execution time, drawn per item from the job's range
// with the instance's random stream. The trace has one job.exec.start and one job.exec.end per item
// (fields job, item, id, fire: the fire time in ns, source NORMAL_TRIGGER or MISFIRE); and
// job.exec.skip when an execution runs nothing (reason "empty" or "running").
#pragma once

#include <string>

#include "model/elasticjob/LiteJobFacade.h"
#include "sim/node.h"
#include "sim/random.h"

namespace elasticjob {

struct ExecutionTime {
  ExecutionTime() = default;
  ExecutionTime(sim::Duration min, sim::Duration max) : min(min), max(max) {}
  sim::Duration min = std::chrono::milliseconds(100);
  sim::Duration max = std::chrono::milliseconds(100);
};

class ElasticJobExecutor {
 public:
  // availableProcessors of the simulated machines (4), doubled by the CPU executor-service handler.
  static constexpr int executorThreads = 4 * 2;
  enum class ExecutionSource : std::uint8_t { NORMAL_TRIGGER, MISFIRE };

  ElasticJobExecutor(sim::Node& node, std::string jobName, std::string jobInstanceId, LiteJobFacade& jobFacade, ExecutionTime executionTime,
                     sim::Rng& random);

  sim::Task<void> execute(sim::Instant fireTime);
  // executorContext.shutdown(): later multi-item executions return early (isShutdown).
  void shutdown() { shutdown_ = true; }

 private:
  struct ItemBatch;
  sim::Task<void> execute(ShardingContexts shardingContexts, ExecutionSource source, sim::Instant fireTime);
  sim::Task<void> process(ShardingContexts shardingContexts, ExecutionSource source, sim::Instant fireTime);
  sim::Task<void> processItem(int item, sim::Duration duration, ExecutionSource source, sim::Instant fireTime);
  sim::Task<void> itemWorker(ItemBatch* batch, ExecutionSource source, sim::Instant fireTime);
  void emitSkip(sim::Instant fireTime, std::string_view reason);

  sim::Node& node_;
  std::string jobName_;
  std::string jobInstanceId_;
  LiteJobFacade& jobFacade_;
  ExecutionTime executionTime_;
  sim::Rng& random_;
  bool shutdown_ = false;
};

}  // namespace elasticjob
