#include "model/elasticjob/RegExceptionHandler.h"

#include <string>

#include "model/elasticjob/ElasticJobExceptions.h"

namespace elasticjob::RegExceptionHandler {

bool isIgnoredException(zk::Code code) {
  return code == zk::Code::connection_loss || code == zk::Code::no_node || code == zk::Code::node_exists;
}

void handleException(zk::Code code, std::string_view operation) {
  if (code == zk::Code::ok || isIgnoredException(code)) return;
  throw RegException(code, std::string(operation));
}

}  // namespace elasticjob::RegExceptionHandler
