#include "model/zk/client/ScriptedClient.h"

namespace zk {

using namespace std::chrono_literals;

ScriptedClient::ScriptedClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, sim::Duration timeout, Script script)
    : Node(sim, std::move(name)), servers_(std::move(servers)), timeout_(timeout), script_(std::move(script)) {}

std::optional<sim::Instant> ScriptedClient::when(const std::string& what, sim::Instant since) const {
  for (const auto& [time, entry] : log) {
    if (entry == what && time >= since) return time;
  }
  return std::nullopt;
}

sim::Task<void> ScriptedClient::waitConnected() {
  while (!zk_->connected()) co_await sim().sleep(10ms);
}

void ScriptedClient::on_start() {
  zk_ = std::make_unique<SimulatedZooKeeper>(
      *this, servers_, timeout_,
      [this](const WatchedEvent& event) {
        if (event.type == EventType::none) record("state " + std::string(keeper_state_name(event.state)));
      },
      sim().random().seed_for(name()));
  if (script_) spawn(script_(*this));
}

}  // namespace zk
