// The exceptions of Elasticsearch's cluster coordination that the model's protocol code raises and
// catches where the Java code does (NotMasterException, FailedToCommitClusterStateException, ...),
// and the same kinds as error codes carried by transport responses (a remote exception).
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace es {

enum class ErrorKind : std::uint8_t {
  none,
  not_master,                          // NotMasterException
  failed_to_commit,                    // FailedToCommitClusterStateException
  process_cluster_event_timeout,       // ProcessClusterEventTimeoutException
  illegal_state,                       // IllegalStateException (rejected state, duplicate task, ...)
  incompatible_cluster_state_version,  // IncompatibleClusterStateVersionException (a diff on the wrong base)
  connect_transport,                   // ConnectTransportException
  node_disconnected,                   // NodeDisconnectedException
  receive_timeout,                     // ReceiveTimeoutTransportException
  this_is_not_the_master,              // MasterFaultDetection.ThisIsNotTheMasterYouAreLookingForException
  node_does_not_exist_on_master,       // MasterFaultDetection.NodeDoesNotExistOnMasterException
  elasticsearch,                       // ElasticsearchException (anything else)
};

std::string_view errorName(ErrorKind kind);

class EsException : public std::runtime_error {
 public:
  EsException(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const { return kind_; }

 private:
  ErrorKind kind_;
};

}  // namespace es
