// GatewayMetaState: the low-priority applier that writes each applied, recovered cluster state to
// the node's disk (in Elasticsearch: the global and index metadata under the data path). It is the
// node's persistent state: what survives a crash and what gateway recovery reads back. A state still
// under STATE_NOT_RECOVERED_BLOCK is not written (the block disables state persistence).
#pragma once

#include "model/es/ClusterStateTask.h"

namespace es {

class GatewayMetaState {
 public:
  explicit GatewayMetaState(ClusterStatePtr& disk) : disk_(disk) {}
  void applyClusterState(const ClusterChangedEvent& event) {
    if (event.state->stateNotRecovered) return;
    disk_ = event.state;
  }
  const ClusterStatePtr& loadMetaState() const { return disk_; }

 private:
  ClusterStatePtr& disk_;
};

}  // namespace es
