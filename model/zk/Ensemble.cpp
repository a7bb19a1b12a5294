#include "model/zk/Ensemble.h"

#include "model/zk/quorum/Leader.h"

namespace zk {

Ensemble::Ensemble(sim::Simulation& sim, std::size_t servers, QuorumPeerConfig config)
    : config_(std::make_shared<QuorumPeerConfig>(std::move(config))) {
  ELECTSIM_ASSERT(servers >= 1);
  // Node ids are known before the servers exist: they are the next ids the simulation hands out.
  config_->servers.clear();
  for (std::size_t i = 0; i < servers; i++) config_->servers.push_back(sim.node_count() + static_cast<sim::NodeId>(i));
  for (std::size_t i = 0; i < servers; i++) {
    auto sid = static_cast<ServerId>(i + 1);
    servers_.push_back(&sim.add_node<QuorumPeer>("zk" + std::to_string(sid), sid, config_));
    ELECTSIM_ASSERT(servers_.back()->id() == config_->servers[i]);
  }
}

QuorumPeer& Ensemble::server(ServerId sid) const {
  ELECTSIM_ASSERT(sid >= 1 && static_cast<std::size_t>(sid) <= servers_.size());
  return *servers_[static_cast<std::size_t>(sid - 1)];
}

std::optional<ServerId> Ensemble::leader() const {
  std::optional<ServerId> found;
  for (QuorumPeer* server : servers_) {
    if (!server->up() || server->paused() || server->getPeerState() != ServerState::leading) continue;
    Leader* leader = server->leader();
    if (leader == nullptr || !leader->established()) continue;
    // Its own word is not enough: a leader that was paused or cut off still says LEADING, with the
    // epoch it established, until its next tick finds it has lost its followers (Leader.lead's
    // "Not sufficient followers synced"). It serves only while a quorum, itself included, is up,
    // unpaused and FOLLOWING it in that epoch (a follower's currentEpoch is the leader's once it
    // acknowledged NEWLEADER).
    std::size_t following = 1;
    for (QuorumPeer* other : servers_) {
      if (other == server || !other->up() || other->paused() || other->getPeerState() != ServerState::following) continue;
      if (other->getCurrentVote().id == server->myid() && other->getCurrentEpoch() == leader->epoch()) following++;
    }
    if (!config_->is_quorum(following)) continue;
    if (found) return std::nullopt;
    found = server->myid();
  }
  return found;
}

}  // namespace zk
