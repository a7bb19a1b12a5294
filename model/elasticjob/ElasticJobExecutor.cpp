#include "model/elasticjob/ElasticJobExecutor.h"

#include <algorithm>

namespace elasticjob {

namespace {
std::string_view sourceName(ElasticJobExecutor::ExecutionSource source) {
  return source == ElasticJobExecutor::ExecutionSource::MISFIRE ? "MISFIRE" : "NORMAL_TRIGGER";
}
constexpr int misfire_rounds_max = 1'000'000;
}  // namespace

// The CountDownLatch and the queue of the executor service for one multi-item execution.
struct ElasticJobExecutor::ItemBatch {
  explicit ItemBatch(sim::Simulation& sim) : done(sim) {}
  std::vector<std::pair<int, sim::Duration>> pending;  // (item, duration), taken from the front
  std::size_t next = 0;
  std::size_t remaining = 0;
  sim::Signal done;
};

ElasticJobExecutor::ElasticJobExecutor(sim::Node& node, std::string jobName, std::string jobInstanceId, LiteJobFacade& jobFacade,
                                       ExecutionTime executionTime, sim::Rng& random)
    : node_(node),
      jobName_(std::move(jobName)),
      jobInstanceId_(std::move(jobInstanceId)),
      jobFacade_(jobFacade),
      executionTime_(executionTime),
      random_(random) {
  ELECTSIM_ASSERT(executionTime_.min >= sim::Duration::zero());
  ELECTSIM_ASSERT(executionTime_.min <= executionTime_.max);
}

void ElasticJobExecutor::emitSkip(sim::Instant fireTime, std::string_view reason) {
  node_.sim().trace().emit(node_.id(), "job.exec.skip",
                           {{"job", jobName_}, {"id", jobInstanceId_}, {"fire", sim::nanos(fireTime)}, {"reason", reason}});
}

sim::Task<void> ElasticJobExecutor::execute(sim::Instant fireTime) {
  JobConfiguration jobConfig = co_await jobFacade_.loadJobConfiguration(true);
  // checkJobExecutionEnvironment: maxTimeDiffSeconds = -1 by default (JobExecutionEnvironmentException
  // would go to the error handler, LOG by default, and the execution would go on).
  co_await jobFacade_.checkJobExecutionEnvironment();
  ShardingContexts shardingContexts = co_await jobFacade_.getShardingContexts();
  bool running = co_await jobFacade_.misfireIfRunning(shardingContexts.items);
  if (running) {
    // "Previous job ... is still running, misfired job will start after previous job completed."
    emitSkip(fireTime, "running");
    co_return;
  }
  co_await execute(shardingContexts, ExecutionSource::NORMAL_TRIGGER, fireTime);
  for (int round = 0;; round++) {
    bool misfired = co_await jobFacade_.isExecuteMisfired(shardingContexts.items);
    if (!misfired) break;
    ELECTSIM_ASSERT(round < misfire_rounds_max);
    co_await jobFacade_.clearMisfire(shardingContexts.items);
    co_await execute(shardingContexts, ExecutionSource::MISFIRE, fireTime);
  }
  // failoverIfNecessary: failover is off.
  (void)jobConfig;
}

sim::Task<void> ElasticJobExecutor::execute(ShardingContexts shardingContexts, ExecutionSource source, sim::Instant fireTime) {
  if (shardingContexts.items.empty()) {
    emitSkip(fireTime, "empty");  // "Sharding item for job '%s' is empty."
    co_return;
  }
  co_await jobFacade_.registerJobBegin(shardingContexts);
  // try { process } finally { registerJobCompleted }: process itself never throws here.
  co_await process(shardingContexts, source, fireTime);
  co_await jobFacade_.registerJobCompleted(shardingContexts);
}

sim::Task<void> ElasticJobExecutor::process(ShardingContexts shardingContexts, ExecutionSource source, sim::Instant fireTime) {
  std::vector<std::pair<int, sim::Duration>> items;
  for (int item : shardingContexts.items) items.emplace_back(item, random_.uniform(executionTime_.min, executionTime_.max));
  if (items.size() == 1) {
    co_await processItem(items.front().first, items.front().second, source, fireTime);
    co_return;
  }
  if (shutdown_) co_return;  // executorService.isShutdown()
  ItemBatch batch(node_.sim());
  batch.pending = std::move(items);
  batch.remaining = batch.pending.size();
  sim::Scope pool(node_.sim(), node_.id());  // after `batch`: destroyed first
  std::size_t threads = std::min<std::size_t>(executorThreads, batch.pending.size());
  for (std::size_t thread = 0; thread < threads; thread++) pool.spawn(itemWorker(&batch, source, fireTime));
  co_await batch.done.wait();  // latch.await()
}

sim::Task<void> ElasticJobExecutor::itemWorker(ItemBatch* batch, ExecutionSource source, sim::Instant fireTime) {
  while (batch->next < batch->pending.size()) {
    auto [item, duration] = batch->pending[batch->next++];
    co_await processItem(item, duration, source, fireTime);
    ELECTSIM_ASSERT(batch->remaining > 0);
    if (--batch->remaining == 0) batch->done.set();
  }
}

sim::Task<void> ElasticJobExecutor::processItem(int item, sim::Duration duration, ExecutionSource source, sim::Instant fireTime) {
  sim::Trace& trace = node_.sim().trace();
  trace.emit(node_.id(), "job.exec.start",
             {{"job", jobName_}, {"item", item}, {"id", jobInstanceId_}, {"fire", sim::nanos(fireTime)}, {"source", sourceName(source)}});
  co_await node_.sim().sleep(duration);  // the business code of jobItemExecutor.process
  trace.emit(node_.id(), "job.exec.end", {{"job", jobName_}, {"item", item}, {"id", jobInstanceId_}, {"fire", sim::nanos(fireTime)}});
}

}  // namespace elasticjob
