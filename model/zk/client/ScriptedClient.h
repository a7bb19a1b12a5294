// ScriptedClient: a client process that runs a script against its own zk::ZooKeeper handle. Not a
// ZooKeeper class: the driver the ZooKeeper tests and the model side of live conformance use
// (tests/zk, live/model_cluster), so both read the same log. Its log holds the script's records
// and every session event of the default watcher as "state Disconnected", "state SyncConnected",
// "state Expired" (keeper_state_name).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "model/zk/client/ZooKeeper.h"

namespace zk {

class ScriptedClient final : public sim::Node {
 public:
  using Script = std::function<sim::Task<void>(ScriptedClient&)>;
  ScriptedClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, sim::Duration timeout, Script script);

  ZooKeeper& zk() { return *zk_; }
  std::vector<std::pair<sim::Instant, std::string>> log;
  void record(std::string what) { log.emplace_back(sim().now(), std::move(what)); }
  bool has(const std::string& what) const { return when(what).has_value(); }
  // The first record `what` (at or after `since`).
  std::optional<sim::Instant> when(const std::string& what, sim::Instant since = sim::Instant{}) const;
  // Polls every 10 ms until the handle is connected.
  sim::Task<void> waitConnected();

 protected:
  void on_start() override;
  void on_stop() override { zk_.reset(); }

 private:
  std::vector<sim::NodeId> servers_;
  sim::Duration timeout_;
  Script script_;
  std::unique_ptr<ZooKeeper> zk_;
};

}  // namespace zk
