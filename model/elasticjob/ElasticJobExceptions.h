// The exceptions of ElasticJob that cross the model's coroutines, each named after the Java class.
//
// Java throws them out of the registry centre and the services; a thread at the top catches and logs
// them (a Quartz worker, the ListenerNotify executor, Curator's state-listener loop). In the model a
// coroutine at the top of each such "thread" catches ElasticJobException, records it in the trace
// (`job.error`) and carries on the way that thread does. An ELECTSIM_ASSERT failure is a
// std::logic_error and is never caught here.
#pragma once

#include <stdexcept>
#include <string>

#include "model/zk/types.h"

namespace elasticjob {

class ElasticJobException : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// org.apache.shardingsphere.elasticjob.reg.exception.RegException: a registry-centre failure that
// RegExceptionHandler does not ignore (SESSIONEXPIRED after Curator's retries, a closed client...).
class RegException : public ElasticJobException {
 public:
  RegException(zk::Code code, const std::string& operation)
      : ElasticJobException("RegException: " + std::string(zk::code_name(code)) + " in " + operation), code_(code) {}
  // RegExceptionHandler.handleException(cause) for a cause that is not ZooKeeper's: `new
  // RegException(cause)` (executeInLeader's catch of whatever its callback threw).
  explicit RegException(const std::exception& cause) : ElasticJobException(std::string("RegException: ") + cause.what()), code_(zk::Code::ok) {}
  zk::Code code() const { return code_; }  // ok for a wrapped cause

 private:
  zk::Code code_;
};

// JobConfigurationException: /J/config missing or unreadable ("JobConfiguration was not found").
class JobConfigurationException : public ElasticJobException {
 public:
  using ElasticJobException::ElasticJobException;
};

// JobSystemException: what escapes a job execution otherwise (a sharding strategy that throws,
// IndexOutOfBoundsException of ROUND_ROBIN with a MIN_VALUE hash).
class JobSystemException : public ElasticJobException {
 public:
  using ElasticJobException::ElasticJobException;
};

// A stand-in for java.lang.NullPointerException where ElasticJob dereferences what is not there:
// JobRegistry.getJobInstance(jobName) after the job was shut down (JobEnvironment's
// requireLocalInstance and localIp, for every such unchecked read), or a missing instance node
// (ShardingService.getShardingItems). Java's NPE is no ElasticJobException, but every thread
// top that catches ElasticJobException here logs and survives an NPE the same way in Java (a
// ThreadPoolExecutor worker, Curator's listener loop), and on the start-up thread both reach the
// application, which fails to start.
class NullPointerException : public ElasticJobException {
 public:
  using ElasticJobException::ElasticJobException;
};

}  // namespace elasticjob
