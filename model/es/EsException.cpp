#include "model/es/EsException.h"

namespace es {

std::string_view errorName(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::none: return "none";
    case ErrorKind::not_master: return "NotMasterException";
    case ErrorKind::failed_to_commit: return "FailedToCommitClusterStateException";
    case ErrorKind::process_cluster_event_timeout: return "ProcessClusterEventTimeoutException";
    case ErrorKind::illegal_state: return "IllegalStateException";
    case ErrorKind::incompatible_cluster_state_version: return "IncompatibleClusterStateVersionException";
    case ErrorKind::connect_transport: return "ConnectTransportException";
    case ErrorKind::node_disconnected: return "NodeDisconnectedException";
    case ErrorKind::receive_timeout: return "ReceiveTimeoutTransportException";
    case ErrorKind::this_is_not_the_master: return "ThisIsNotTheMasterYouAreLookingForException";
    case ErrorKind::node_does_not_exist_on_master: return "NodeDoesNotExistOnMasterException";
    case ErrorKind::elasticsearch: return "ElasticsearchException";
  }
  return "unknown";
}

}  // namespace es
