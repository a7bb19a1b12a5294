// Votes and election notifications (Vote.java, FastLeaderElection.Notification, ToSend).
#pragma once

#include <cstdint>
#include <string_view>

#include "model/zk/types.h"

namespace zk {

// QuorumPeer.ServerState; the ordinal goes on the wire.
enum class ServerState : std::uint8_t { looking = 0, following = 1, leading = 2, observing = 3 };
std::string_view server_state_name(ServerState state);  // "LOOKING", ...

// FastLeaderElection.Notification.CURRENTVERSION: notifications carry a version; votes built from
// FOLLOWING/LEADING notifications with version 0 compare differently (see equals()).
inline constexpr std::int32_t notification_current_version = 0x2;

struct Vote {
  std::int32_t version = 0;
  ServerId id = -1;  // the proposed leader
  Zxid zxid = -1;
  std::int64_t election_epoch = -1;  // the round (logicalclock) it was cast in
  std::int64_t peer_epoch = -1;      // the proposed leader's currentEpoch
  ServerState state = ServerState::looking;

  // Vote.equals in 3.8: with either side LOOKING, compare the whole vote; between settled votes
  // (FOLLOWING/LEADING) ignore zxid and round (ZOOKEEPER-1805/1818): compare only the leader if
  // exactly one side has a version, else leader and peerEpoch.
  bool equals(const Vote& other) const {
    if (state == ServerState::looking || other.state == ServerState::looking) {
      return id == other.id && zxid == other.zxid && election_epoch == other.election_epoch && peer_epoch == other.peer_epoch;
    }
    if ((version > 0) != (other.version > 0)) return id == other.id;
    return id == other.id && peer_epoch == other.peer_epoch;
  }
};

// What one server tells another during an election (the QuorumCnxManager payload).
struct Notification {
  std::int32_t version = notification_current_version;
  ServerId leader = -1;
  Zxid zxid = -1;
  std::int64_t election_epoch = -1;
  ServerState state = ServerState::looking;
  ServerId sid = -1;  // the sender
  std::int64_t peer_epoch = -1;
};

}  // namespace zk
