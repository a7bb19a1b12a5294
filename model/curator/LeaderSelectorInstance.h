// A machine running one LeaderSelector contender with autoRequeue: each turn it holds leadership
// for hold_time (default 5 s), then returns from takeLeadership, which releases the mutex and
// queues it again. Its listener is a LeaderSelectorListenerAdapter (leadership is cancelled on
// SUSPENDED and LOST), unless latch_ignores_connection_loss is set: then it never cancels.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/curator/LeaderSelector.h"

namespace curator {

class LeaderSelectorInstance final : public sim::Node {
 public:
  LeaderSelectorInstance(sim::Simulation& sim, std::string name, std::string participant_id, std::vector<sim::NodeId> servers,
                         sim::Duration session_timeout, CuratorBugs bugs, std::string latch_path = "/electsim/latch",
                         sim::Duration hold_time = std::chrono::seconds(5));

  LeaderSelector* selector() { return selector_.get(); }
  CuratorFramework* framework() { return framework_.get(); }
  bool hasLeadership() const { return selector_ != nullptr && selector_->hasLeadership(); }
  const std::string& participantId() const { return participant_id_; }
  sim::Duration holdTime() const { return hold_time_; }
  void setHoldTime(sim::Duration hold_time) { hold_time_ = hold_time; }
  CuratorFrameworkConfig& config() { return config_; }
  // A graceful stop, as the application's shutdown hook does it: close the recipe, close the
  // client (closeSession: the server deletes our ephemerals at once), then the process exits.
  // The JVM runs its shutdown hooks once: a second request (another SIGTERM while the first
  // shutdown is still closing, or one queued while the process was paused) changes nothing.
  // LeaderSelector.close() is not idempotent ("Already closed or has not been started").
  void shutdown();
  bool shuttingDown() const { return shutting_down_; }
  // Turns completed (takeLeadership returned after hold_time).
  std::uint64_t turnsCompleted() const { return turns_completed_; }
  // When this process last completed a turn (takeLeadership returned by itself), if it has.
  std::optional<sim::Instant> lastTurnCompleted() const { return last_turn_completed_; }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  sim::Task<void> shutdownSequence();
  class Listener final : public LeaderSelectorListenerAdapter {
   public:
    explicit Listener(LeaderSelectorInstance& owner) : owner_(owner) {}
    sim::Task<void> takeLeadership(CuratorFramework& client) override;
    bool stateChanged(CuratorFramework& client, ConnectionState newState) override;

   private:
    LeaderSelectorInstance& owner_;
  };

  std::string participant_id_;
  std::vector<sim::NodeId> servers_;
  CuratorFrameworkConfig config_;
  CuratorBugs bugs_;
  std::string latch_path_;
  sim::Duration hold_time_;
  std::uint64_t turns_completed_ = 0;
  std::optional<sim::Instant> last_turn_completed_;  // this incarnation's
  bool shutting_down_ = false;  // this incarnation's shutdown hook has started
  Listener listener_{*this};
  std::unique_ptr<CuratorFramework> framework_;
  std::unique_ptr<LeaderSelector> selector_;  // destroyed before the framework
};

}  // namespace curator
