#include "model/elasticjob/ListenerNotifierManager.h"

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob {

std::string_view dataChangedEventTypeName(DataChangedEvent::Type type) {
  switch (type) {
    case DataChangedEvent::Type::ADDED: return "ADDED";
    case DataChangedEvent::Type::UPDATED: return "UPDATED";
    case DataChangedEvent::Type::DELETED: return "DELETED";
    case DataChangedEvent::Type::IGNORED: return "IGNORED";
  }
  return "UNKNOWN";
}

std::string_view registryCenterStateName(RegistryCenterState state) {
  switch (state) {
    case RegistryCenterState::CONNECTED: return "CONNECTED";
    case RegistryCenterState::UNAVAILABLE: return "UNAVAILABLE";
    case RegistryCenterState::RECONNECTED: return "RECONNECTED";
  }
  return "UNKNOWN";
}

std::string_view pathWithoutNamespace(std::string_view path, std::size_t namespaceLength) {
  ELECTSIM_ASSERT(namespaceLength <= path.size());
  std::string_view rest = path.substr(namespaceLength);
  return rest.empty() ? std::string_view("/") : rest;
}

JobNotifyExecutor::JobNotifyExecutor(sim::Node& node, std::string jobName)
    : node_(node), jobName_(std::move(jobName)), queue_(node.sim(), queue_max) {}

void JobNotifyExecutor::start() {
  ELECTSIM_ASSERT(!started_);
  started_ = true;
  node_.spawn(run());
}

void JobNotifyExecutor::execute(DataChangedEventListener& listener, DataChangedEvent::Type type, curator::SharedChildData node,
                                std::size_t namespaceLength) {
  ELECTSIM_ASSERT(node);
  ELECTSIM_ASSERT(namespaceLength <= node->path.size() && namespaceLength <= UINT16_MAX);
  if (shutdown_) return;  // RejectedExecutionException, logged by Curator's listener container
  ELECTSIM_ASSERT_MSG(queued_ < queue_max, "ListenerNotify-" + jobName_ + " has " + std::to_string(queue_max) + " events queued");
  queued_++;
  const std::uint16_t index = listenerIndex(listener);
  const auto length = static_cast<std::uint16_t>(namespaceLength);
  // The next listener's notification of the change queued last joins its run.
  if (Work* last = queue_.last(); last != nullptr && last->node.get() == node.get() && last->type == type &&
                                  last->namespaceLength == length && last->firstListener + last->listenerCount == index &&
                                  last->listenerCount < UINT16_MAX) {
    last->listenerCount++;
    return;
  }
  bool pushed = queue_.push(Work{std::move(node), index, 1, length, type});
  ELECTSIM_ASSERT(pushed);
}

std::uint16_t JobNotifyExecutor::listenerIndex(DataChangedEventListener& listener) {
  // A job has about ten listeners: a scan is the cheapest lookup.
  for (std::size_t index = 0; index < listeners_.size(); index++) {
    if (listeners_[index] == &listener) return static_cast<std::uint16_t>(index);
  }
  ELECTSIM_ASSERT(listeners_.size() < UINT16_MAX);
  listeners_.push_back(&listener);
  return static_cast<std::uint16_t>(listeners_.size() - 1);
}

void JobNotifyExecutor::shutdown() { shutdown_ = true; }

sim::Task<void> JobNotifyExecutor::run() {
  while (true) {
    if (shutdown_ && queue_.empty()) co_return;  // the pool terminates once drained
    Work work = co_await queue_.pop();
    const DataChangedEvent event{work.type, pathWithoutNamespace(work.node->path, work.namespaceLength), work.node->data};
    // The run's notifications one after another, as its Runnables would be taken off the queue.
    for (std::uint16_t i = 0; i < work.listenerCount; i++) {
      ELECTSIM_ASSERT(queued_ > 0);
      queued_--;
      DataChangedEventListener* listener = listeners_[work.firstListener + i];
      try {
        co_await listener->onChange(event);
      } catch (const ElasticJobException& error) {
        // ThreadPoolExecutor: the task's exception is printed and the worker replaced.
        node_.sim().trace().emit(node_.id(), "job.error", {{"job", jobName_}, {"where", listener->name()}, {"message", error.what()}});
      }
    }
  }
}

void ListenerNotifierManager::registerJobNotifyExecutor(const std::string& jobName) {
  // computeIfAbsent: a job registered again after its shutdown gets a new executor.
  std::vector<Entry>& entries = executors_[jobName];
  if (!entries.empty() && !entries.back().removed) return;
  entries.push_back(Entry{std::make_unique<JobNotifyExecutor>(node_, jobName), false});
  entries.back().executor->start();
}

JobNotifyExecutor* ListenerNotifierManager::getJobNotifyExecutor(const std::string& jobName) {
  auto found = executors_.find(jobName);
  if (found == executors_.end() || found->second.empty() || found->second.back().removed) return nullptr;
  return found->second.back().executor.get();
}

void ListenerNotifierManager::removeJobNotifyExecutor(const std::string& jobName) {
  auto found = executors_.find(jobName);
  if (found == executors_.end() || found->second.empty() || found->second.back().removed) return;
  found->second.back().removed = true;
  found->second.back().executor->shutdown();
}

}  // namespace elasticjob
