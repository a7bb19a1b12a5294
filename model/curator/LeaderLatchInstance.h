// A machine running one LeaderLatch contender: a CuratorFramework (Curator's defaults but the
// session timeout) and a LeaderLatch on the latch path, both made in on_start and dropped in
// on_stop (a crash destroys them; the server deletes the latch node when the session expires).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "model/curator/LeaderLatch.h"

namespace curator {

class LeaderLatchInstance final : public sim::Node {
 public:
  LeaderLatchInstance(sim::Simulation& sim, std::string name, std::string participant_id, std::vector<sim::NodeId> servers,
                      sim::Duration session_timeout, CuratorBugs bugs, std::string latch_path = "/electsim/latch");

  // Null while the node is down.
  LeaderLatch* latch() { return latch_.get(); }
  CuratorFramework* framework() { return framework_.get(); }
  bool hasLeadership() const { return latch_ != nullptr && latch_->hasLeadership(); }
  // LeaderLatch.close(): leave the election (our node is deleted at once).
  void closeLatch();
  const std::string& participantId() const { return participant_id_; }
  // Watch notifications this machine's latches received, over every incarnation.
  std::uint64_t watchNotificationsTotal() const {
    return earlier_notifications_ + (latch_ != nullptr ? latch_->watchNotifications() : 0);
  }
  const std::string& latchPath() const { return latch_path_; }
  // Framework settings for the next start (session timeout from the constructor).
  CuratorFrameworkConfig& config() { return config_; }
  // A graceful stop, as the application's shutdown hook does it: close the recipe, close the
  // client (closeSession: the server deletes our ephemerals at once), then the process exits.
  // The JVM runs its shutdown hooks once: a second request changes nothing.
  void shutdown();
  bool shuttingDown() const { return shutting_down_; }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  sim::Task<void> shutdownSequence();
  std::string participant_id_;
  std::vector<sim::NodeId> servers_;
  CuratorFrameworkConfig config_;
  CuratorBugs bugs_;
  std::string latch_path_;
  std::unique_ptr<CuratorFramework> framework_;
  std::unique_ptr<LeaderLatch> latch_;  // destroyed before the framework
  std::uint64_t earlier_notifications_ = 0;
  bool shutting_down_ = false;  // this incarnation's shutdown hook has started
};

}  // namespace curator
