// JobNodeStorage (3.0.4): the registry centre seen from one job; `node` is relative to the job
// root ("leader/election/instance"). A thin wrapper: which calls are cached and which are direct is
// decided by ZookeeperRegistryCenter (getJobNodeData goes through the cache; existence checks and
// children lists are direct).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "model/elasticjob/JobNodePath.h"
#include "model/elasticjob/ZookeeperRegistryCenter.h"

namespace elasticjob {

class JobNodeStorage {
 public:
  JobNodeStorage(ZookeeperRegistryCenter& regCenter, std::string jobName);

  // The reads of a node take a view: they build what they send before returning.
  sim::Task<bool> isJobNodeExisted(std::string_view node);
  sim::Task<bool> isJobRootNodeExisted();
  sim::Eager<std::optional<std::string>> getJobNodeData(std::string_view node);
  sim::Task<std::optional<std::string>> getJobNodeDataDirectly(std::string node);
  sim::Task<std::vector<std::string>> getJobNodeChildrenKeys(std::string node);
  sim::Eager<std::optional<std::string>> getJobRootNodeData();
  // if (isJobRootNodeExisted() && !isJobNodeExisted(node)) persist(node, ""). True when this call
  // created the node (the model's addition, for the trace).
  sim::Task<bool> createJobNodeIfNeeded(std::string node);
  // if (isJobNodeExisted(node)) remove(node). NONODE when there was nothing to remove.
  sim::Task<zk::Code> removeJobNodeIfExisted(std::string node);
  sim::Task<zk::Code> fillJobNode(std::string node, std::string value);
  sim::Task<zk::Code> fillEphemeralJobNode(std::string node, std::string value);
  sim::Task<zk::Code> updateJobNode(std::string node, std::string value);
  sim::Task<zk::Code> replaceJobNode(std::string node, std::string value);
  sim::Task<zk::Code> replaceJobRootNode(std::string value);
  // [opCheckExists("/")] + operations, one multi; its failure goes through RegExceptionHandler (so
  // NODEEXISTS and NONODE abort the whole transaction silently). The result is returned for the trace.
  sim::Task<zk::MultiResult> executeInTransaction(std::vector<TransactionOperation> operations);
  sim::Task<void> executeInLeader(std::string latchNode, LeaderExecutionCallback& callback);
  void addConnectionStateListener(ConnectionStateChangedEventListener& listener);
  void addDataListener(DataChangedEventListener& listener, JobNotifyExecutor& executor);

  // A node's registry key and ZooKeeper path, made once by a reader on a hot path.
  struct CachedNodePath {
    std::string key;       // "/J/leader/election/instance"
    std::string fullPath;  // the same under the namespace
  };
  CachedNodePath cachedNodePath(std::string_view node) const;
  // The cache's value for the node without reading ZooKeeper, or null; valid until the cache
  // changes. isLeader's answer when the cache holds the leader node, and the belief checks at every
  // event of the job's cache: no allocation, no path built.
  const std::string* getCachedOnly(const CachedNodePath& node) const { return regCenter_.getCachedOnly(node.key, node.fullPath); }
  ZookeeperRegistryCenter& getRegCenter() { return regCenter_; }
  const JobNodePath& getJobNodePath() const { return jobNodePath_; }
  const std::string& getJobName() const { return jobNodePath_.getJobName(); }

 private:
  ZookeeperRegistryCenter& regCenter_;
  JobNodePath jobNodePath_;
  std::string keyScratch_;  // getJobNodeData's key, valid during the call
};

}  // namespace elasticjob
