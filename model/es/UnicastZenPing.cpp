#include "model/es/UnicastZenPing.h"

#include <algorithm>

namespace es {

UnicastZenPing::UnicastZenPing(sim::Node& node, TransportService& transport, std::vector<NodeId> seedNodes,
                               PingContextProvider contextProvider)
    : node_(node), transport_(transport), seedNodes_(std::move(seedNodes)), contextProvider_(std::move(contextProvider)) {
  transport_.registerRequestHandler(Action::zen_ping, [this](TransportChannel channel, TransportMessage message) {
    return handlePingRequest(channel, std::move(message));
  });
}

PingResponse UnicastZenPing::createPingResponse() {
  auto [master, version] = contextProvider_();
  // Ids grow within an incarnation, and a restarted node's ids are above its earlier ones.
  std::uint64_t id = (static_cast<std::uint64_t>(node_.starts()) << 32) | nextResponseId_++;
  return PingResponse{id, node_.id(), master, version};
}

void UnicastZenPing::addPingResponseToCollection(PingingRound& round, const PingResponse& response, NodeId localNode) {
  if (response.node == localNode) return;
  auto [it, inserted] = round.pingCollection.emplace(response.node, response);
  if (!inserted && it->second.id < response.id) it->second = response;  // PingCollection.addPing keeps the newer
}

sim::Task<std::vector<PingResponse>> UnicastZenPing::ping(sim::Duration timeout) {
  std::uint32_t roundId = nextRoundId_++;
  activePingingRounds_.emplace(roundId, PingingRound{});
  RoundGuard guard{this, roundId};
  sim::Duration third = timeout / 3;
  node_.spawn(sendPings(roundId, timeout));
  co_await node_.sim().sleep(third);
  node_.spawn(sendPings(roundId, timeout));
  co_await node_.sim().sleep(third);
  node_.spawn(sendPings(roundId, timeout));
  co_await node_.sim().sleep(timeout - third * 2);
  std::vector<PingResponse> responses;
  for (const auto& [node, response] : activePingingRounds_.at(roundId).pingCollection) responses.push_back(response);
  co_return responses;  // the guard closes the round
}

sim::Task<void> UnicastZenPing::sendPings(std::uint32_t roundId, sim::Duration timeout) {
  if (!activePingingRounds_.contains(roundId)) co_return;
  UnicastPingRequest request{roundId, timeout, createPingResponse()};
  for (NodeId seed : seedNodes_) {
    if (seed == node_.id()) continue;
    node_.spawn(sendPingRequestToNode(roundId, seed, request));
  }
}

sim::Task<void> UnicastZenPing::sendPingRequestToNode(std::uint32_t roundId, NodeId node, UnicastPingRequest request) {
  // A ping waits 1.25 timeouts for its answer; connecting is bounded by the round's timeout.
  sim::Duration timeout = request.timeout;
  TransportResponse response = co_await transport_.sendRequest(node, Action::zen_ping, request, timeout + timeout / 4, timeout);
  if (!response.ok()) co_return;
  auto round = activePingingRounds_.find(roundId);
  if (round == activePingingRounds_.end()) co_return;  // the round finished meanwhile
  const auto* answer = std::get_if<UnicastPingResponse>(&response.payload);
  if (answer == nullptr) co_return;
  for (const PingResponse& pingResponse : answer->pingResponses) addPingResponseToCollection(round->second, pingResponse, node_.id());
}

sim::Task<void> UnicastZenPing::handlePingRequest(TransportChannel channel, TransportMessage message) {
  const auto& request = std::get<UnicastPingRequest>(message.payload);
  sim::Instant now = node_.sim().now();
  std::erase_if(temporalResponses_, [now](const TemporalResponse& temporal) { return temporal.expires <= now; });
  temporalResponses_.push_back(TemporalResponse{request.pingResponse, now + request.timeout + request.timeout / 2});
  for (auto& [id, round] : activePingingRounds_) addPingResponseToCollection(round, request.pingResponse, node_.id());
  UnicastPingResponse answer{request.id, {}};
  for (const TemporalResponse& temporal : temporalResponses_) answer.pingResponses.push_back(temporal.response);
  answer.pingResponses.push_back(createPingResponse());
  transport_.sendResponse(channel, std::move(answer));
  co_return;
}

}  // namespace es
