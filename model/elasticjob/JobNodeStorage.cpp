#include "model/elasticjob/JobNodeStorage.h"

#include "model/elasticjob/RegExceptionHandler.h"

namespace elasticjob {

JobNodeStorage::JobNodeStorage(ZookeeperRegistryCenter& regCenter, std::string jobName)
    : regCenter_(regCenter), jobNodePath_(std::move(jobName)) {}

// The reads hand over the registry center's own Task (or Eager answer): a wrapper of one call needs
// no coroutine frame of its own. Each takes its key by value into the callee, so nothing refers back
// into this call.

sim::Task<bool> JobNodeStorage::isJobNodeExisted(std::string_view node) { return regCenter_.isExisted(jobNodePath_.getFullPath(node)); }

sim::Task<bool> JobNodeStorage::isJobRootNodeExisted() { return regCenter_.isExisted(jobNodePath_.getRootPath()); }

sim::Eager<std::optional<std::string>> JobNodeStorage::getJobNodeData(std::string_view node) {
  // ZookeeperRegistryCenter.get: the cache's value, else a direct read. The key is built in a
  // reused buffer, so a cached answer (nearly every read) makes no key string.
  keyScratch_.assign("/").append(jobNodePath_.getJobName()).append("/").append(node);
  if (const std::string* cached = regCenter_.getCachedOnly(keyScratch_)) return std::optional<std::string>(*cached);
  return regCenter_.getDirectly(keyScratch_);
}

sim::Task<std::optional<std::string>> JobNodeStorage::getJobNodeDataDirectly(std::string node) {
  return regCenter_.getDirectly(jobNodePath_.getFullPath(node));
}

sim::Task<std::vector<std::string>> JobNodeStorage::getJobNodeChildrenKeys(std::string node) {
  return regCenter_.getChildrenKeys(jobNodePath_.getFullPath(node));
}

sim::Eager<std::optional<std::string>> JobNodeStorage::getJobRootNodeData() {
  // "/J" never matches the cache key "/J/": always a direct read.
  return regCenter_.get(jobNodePath_.getRootPath());
}

sim::Task<bool> JobNodeStorage::createJobNodeIfNeeded(std::string node) {
  bool rootExisted = co_await isJobRootNodeExisted();
  if (!rootExisted) co_return false;
  bool existed = co_await isJobNodeExisted(node);
  if (existed) co_return false;
  zk::Code code = co_await regCenter_.persist(jobNodePath_.getFullPath(node), "");
  co_return code == zk::Code::ok;
}

sim::Task<zk::Code> JobNodeStorage::removeJobNodeIfExisted(std::string node) {
  bool existed = co_await isJobNodeExisted(node);
  if (!existed) co_return zk::Code::no_node;
  co_return co_await regCenter_.remove(jobNodePath_.getFullPath(node));
}

sim::Task<zk::Code> JobNodeStorage::fillJobNode(std::string node, std::string value) {
  co_return co_await regCenter_.persist(jobNodePath_.getFullPath(node), std::move(value));
}

sim::Task<zk::Code> JobNodeStorage::fillEphemeralJobNode(std::string node, std::string value) {
  co_return co_await regCenter_.persistEphemeral(jobNodePath_.getFullPath(node), std::move(value));
}

sim::Task<zk::Code> JobNodeStorage::updateJobNode(std::string node, std::string value) {
  co_return co_await regCenter_.update(jobNodePath_.getFullPath(node), std::move(value));
}

sim::Task<zk::Code> JobNodeStorage::replaceJobNode(std::string node, std::string value) {
  co_return co_await regCenter_.persist(jobNodePath_.getFullPath(node), std::move(value));
}

sim::Task<zk::Code> JobNodeStorage::replaceJobRootNode(std::string value) {
  co_return co_await regCenter_.persist(jobNodePath_.getRootPath(), std::move(value));
}

sim::Task<zk::MultiResult> JobNodeStorage::executeInTransaction(std::vector<TransactionOperation> operations) {
  std::vector<TransactionOperation> result;
  result.reserve(operations.size() + 1);
  result.push_back(TransactionOperation::opCheckExists("/"));
  for (TransactionOperation& operation : operations) result.push_back(std::move(operation));
  zk::MultiResult outcome = co_await regCenter_.executeInTransaction(std::move(result));
  RegExceptionHandler::handleException(outcome.code, "executeInTransaction /" + getJobName());
  co_return outcome;
}

sim::Task<void> JobNodeStorage::executeInLeader(std::string latchNode, LeaderExecutionCallback& callback) {
  co_await regCenter_.executeInLeader(jobNodePath_.getFullPath(latchNode), callback);
}

void JobNodeStorage::addConnectionStateListener(ConnectionStateChangedEventListener& listener) {
  regCenter_.addConnectionStateChangedEventListener(jobNodePath_.getRootPath(), listener);
}

void JobNodeStorage::addDataListener(DataChangedEventListener& listener, JobNotifyExecutor& executor) {
  regCenter_.watch(jobNodePath_.getRootPath(), listener, executor);
}

JobNodeStorage::CachedNodePath JobNodeStorage::cachedNodePath(std::string_view node) const {
  std::string key = jobNodePath_.getFullPath(node);
  std::string fullPath = regCenter_.toFullPath(key);
  return CachedNodePath{std::move(key), std::move(fullPath)};
}

}  // namespace elasticjob
