// Zab's packets between the leader and its learners (Leader.java constants, QuorumPacket).
#pragma once

#include <cstdint>
#include <memory>
#include <string_view>
#include <utility>
#include <vector>

#include "model/zk/server/Request.h"
#include "model/zk/server/ZKDatabase.h"
#include "model/zk/types.h"

namespace zk {

enum class PacketType : std::int32_t {
  request = 1,
  proposal = 2,
  ack = 3,
  commit = 4,
  ping = 5,
  revalidate = 6,
  newleader = 10,
  followerinfo = 11,
  uptodate = 12,
  diff = 13,
  trunc = 14,
  snap = 15,
  leaderinfo = 17,
  ackepoch = 18,
};
std::string_view packet_type_name(PacketType type);

// Leader.java's packet constants carried with their payloads. The large payloads (a txn sent to
// every follower, a snapshot) are shared, not copied: messages are values, these are immutable.
struct QuorumPacket {
  PacketType type = PacketType::ping;
  Zxid zxid = 0;
  std::shared_ptr<const Txn> txn;                             // PROPOSAL
  ServerId sid = -1;                                          // FOLLOWERINFO: the learner
  std::int64_t epoch = 0;                                     // ACKEPOCH: currentEpoch, or -1
  std::vector<std::pair<SessionId, std::int32_t>> touches;    // PING reply: the touch table
  std::shared_ptr<const Snapshot> snapshot;                   // SNAP
  std::shared_ptr<const Request> request;                     // REQUEST
  SessionId session_id = 0;                                   // REVALIDATE
  std::int32_t timeout_ms = 0;                                // REVALIDATE
  bool valid = false;                                         // REVALIDATE reply
};

// The systematic search's view of a packet in flight (sim/connection.h): its type and zxid, and the
// txn a PROPOSAL carries.
inline std::uint64_t state_digest(const QuorumPacket& packet) {
  std::uint64_t digest = (static_cast<std::uint64_t>(packet.type) << 56) ^ static_cast<std::uint64_t>(packet.zxid);
  if (packet.txn) digest ^= txn_digest(*packet.txn) * 0x9e3779b97f4a7c15ULL;
  if (packet.type == PacketType::ackepoch) digest ^= static_cast<std::uint64_t>(packet.epoch) << 40;
  return digest;
}

}  // namespace zk
