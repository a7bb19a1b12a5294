// An ensemble of ZooKeeper servers named zk1..zkN (sid N), sharing one configuration: the
// deployment half of a scenario (which servers exist, and how they are wired).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "model/zk/quorum/QuorumPeer.h"

namespace zk {

class Ensemble {
 public:
  Ensemble(sim::Simulation& sim, std::size_t servers, QuorumPeerConfig config);

  std::size_t size() const { return servers_.size(); }
  QuorumPeer& server(ServerId sid) const;
  const std::vector<sim::NodeId>& nodes() const { return config_->servers; }
  const QuorumPeerConfig& config() const { return *config_; }

  // The server that leads an established epoch now, if exactly one does: up, unpaused, LEADING,
  // and followed in that epoch by a quorum of up, unpaused servers (itself included).
  std::optional<ServerId> leader() const;

 private:
  std::shared_ptr<QuorumPeerConfig> config_;
  std::vector<QuorumPeer*> servers_;
};

}  // namespace zk
