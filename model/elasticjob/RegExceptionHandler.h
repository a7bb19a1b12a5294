// org.apache.shardingsphere.elasticjob.reg.exception.RegExceptionHandler with the ZooKeeper
// provider's ignored exceptions (ZookeeperCuratorIgnoredExceptionProvider, 3.0.4):
// ConnectionLossException, NoNodeException and NodeExistsException are logged at debug level and
// swallowed, so the caller returns its fallback (null, false, an empty list, nothing written);
// anything else is rethrown as RegException. Curator has already retried CONNECTIONLOSS and
// SESSIONEXPIRED (ExponentialBackoffRetry) before the code reaches this point.
#pragma once

#include <string_view>

#include "model/zk/types.h"

namespace elasticjob::RegExceptionHandler {

// True for the three ignored codes.
bool isIgnoredException(zk::Code code);

// handleException(cause): nothing for OK and the ignored codes, RegException otherwise.
void handleException(zk::Code code, std::string_view operation);

}  // namespace elasticjob::RegExceptionHandler
