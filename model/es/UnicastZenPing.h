// UnicastZenPing: one pinging round of Zen1 discovery. A round lasts the ping timeout; pings go to
// every seed host at its start, after a third and after two thirds of it, and the round collects the
// latest PingResponse of each node that answered. A node that receives a ping adds the sender's own
// response to its active rounds and remembers it for 1.5 timeouts (temporalResponses), and answers
// with those responses plus its own: what one node hears of, the nodes it pings hear of too.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <vector>

#include "model/es/TransportService.h"

namespace es {

class UnicastZenPing {
 public:
  // The local node's view: (the master it follows or no_node, its cluster state's ping version).
  using PingContextProvider = std::function<std::pair<NodeId, std::int64_t>()>;

  UnicastZenPing(sim::Node& node, TransportService& transport, std::vector<NodeId> seedNodes, PingContextProvider contextProvider);
  UnicastZenPing(const UnicastZenPing&) = delete;
  UnicastZenPing& operator=(const UnicastZenPing&) = delete;

  // Pings for `timeout` and returns the responses of other nodes, one per node, by node id.
  sim::Task<std::vector<PingResponse>> ping(sim::Duration timeout);
  PingResponse createPingResponse();

 private:
  struct PingingRound {
    std::map<NodeId, PingResponse> pingCollection;
  };
  struct TemporalResponse {
    PingResponse response;
    sim::Instant expires;
  };
  // Removes the round when the pinging coroutine ends, whichever way it ends.
  struct RoundGuard {
    UnicastZenPing* owner;
    std::uint32_t id;
    ~RoundGuard() { owner->activePingingRounds_.erase(id); }
  };

  sim::Task<void> sendPings(std::uint32_t roundId, sim::Duration timeout);
  sim::Task<void> sendPingRequestToNode(std::uint32_t roundId, NodeId node, UnicastPingRequest request);
  sim::Task<void> handlePingRequest(TransportChannel channel, TransportMessage message);
  static void addPingResponseToCollection(PingingRound& round, const PingResponse& response, NodeId localNode);

  sim::Node& node_;
  TransportService& transport_;
  std::vector<NodeId> seedNodes_;
  PingContextProvider contextProvider_;
  std::map<std::uint32_t, PingingRound> activePingingRounds_;
  std::vector<TemporalResponse> temporalResponses_;
  std::uint32_t nextRoundId_ = 1;
  std::uint32_t nextResponseId_ = 1;
};

}  // namespace es
