// LeaderLatch (curator-recipes leader), as in Curator 5.8+ (the newest 5.x):
//
//   start        -> AfterConnectionEstablished: blockUntilConnected, then internalStart: add the
//                   connection-state listener and reset().
//   reset        -> setLeadership(false); setNode(null); background create of
//                   latchPath/_c_<uuid>-latch-NNNNNNNNNN (protected EPHEMERAL_SEQUENTIAL, parents
//                   as needed, data = id). Callback: setNode(name); if CLOSED setNode(null),
//                   else getChildren().
//   getChildren  -> background getChildren(latchPath): OK -> checkLeadership(children);
//                   NONODE -> reset() (CURATOR-724, 5.8).
//   checkLeadership: sort by the part after "latch-" (the protection prefix does not count);
//                   our index < 0 -> reset(); 0 -> read our node's stat and lead only if its
//                   ephemeralOwner is the current session, else reset() (CURATOR-696, 5.7);
//                   > 0 -> setLeadership(false) and getData(predecessor) with a watcher that calls
//                   getChildren() on NodeDeleted (NONODE at once -> getChildren()).
//   states       -> SUSPENDED: setLeadership(false) if the error policy says so; LOST:
//                   setLeadership(false); RECONNECTED: getChildren() (always, 5.8).
//   close        -> CLOSED; setNode(null) (guaranteed background delete of our node);
//                   removeWatchers; listener removed; setLeadership(false) (SILENT: without
//                   calling the listeners).
//
// Background operations and their callbacks run as coroutines in the latch's scope; watchers and
// the state listener run synchronously on the client's event and state coroutines and only start
// background operations, as in Java. The latch must be destroyed before its framework. Destroying
// it closes it first; a create still in flight is then cleaned up by find-and-delete of its
// protection prefix (what the create callback's CLOSED check does in Java).
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "model/curator/CuratorBugs.h"
#include "model/curator/CuratorFramework.h"

namespace curator {

struct LeaderLatchListener {
  std::function<void()> isLeader;
  std::function<void()> notLeader;
};

class LeaderLatch {
 public:
  static constexpr std::string_view LOCK_NAME = "latch-";
  enum class State : std::uint8_t { latent, started, closed };
  enum class CloseMode : std::uint8_t { SILENT, NOTIFY_LEADER };

  LeaderLatch(CuratorFramework& client, std::string latchPath, std::string id = "", CloseMode closeMode = CloseMode::SILENT,
              CuratorBugs bugs = {});
  ~LeaderLatch();
  LeaderLatch(const LeaderLatch&) = delete;
  LeaderLatch& operator=(const LeaderLatch&) = delete;

  void start();
  void close() { close(closeMode_); }
  void close(CloseMode closeMode);
  void addListener(LeaderLatchListener listener) { listeners_.push_back(std::move(listener)); }

  // state == STARTED && hasLeadership.
  bool hasLeadership() const { return state_ == State::started && hasLeadership_; }
  // Waits until we lead; false if the latch is (or becomes) not STARTED (Java: EOFException).
  sim::Task<bool> await();
  // Waits at most `timeout`; false on timeout or close.
  sim::Task<bool> await(sim::Duration timeout);

  State getState() const { return state_; }
  const std::string& getId() const { return id_; }
  const std::string& getPath() const { return latchPath_; }
  const std::optional<std::string>& getOurPath() const { return ourPath_; }
  const std::optional<std::string>& getLastPathIsLeader() const { return lastPathIsLeader_; }
  // Node events our watchers received while STARTED (for measuring the herd effect).
  std::uint64_t watchNotifications() const { return watchNotifications_; }
  std::uint64_t resets() const { return resets_; }

 private:
  void internalStart();
  void reset();
  void getChildren();
  void checkLeadership(std::vector<std::string> children);
  void handleStateChange(ConnectionState newState);
  void setLeadership(bool newValue);
  void setNode(std::optional<std::string> newValue);
  void spawn(sim::Task<void> task) { scope_.spawn(std::move(task)); }

  sim::Task<void> startTask();
  sim::Task<void> createTask();
  sim::Task<void> getChildrenTask();
  sim::Task<void> checkOwnerTask(std::string localOurPath);
  sim::Task<void> watchPredecessorTask(std::string watchPath);

  CuratorFramework& client_;
  std::string latchPath_;
  std::string id_;
  CloseMode closeMode_;
  CuratorBugs bugs_;
  State state_ = State::latent;
  bool hasLeadership_ = false;
  std::optional<std::string> ourPath_;
  std::optional<std::string> lastPathIsLeader_;
  std::vector<LeaderLatchListener> listeners_;
  std::optional<std::uint64_t> stateListener_;
  std::uint64_t watcherOwner_;
  std::vector<std::string> createsInFlight_;  // their protection ids
  std::uint64_t watchNotifications_ = 0;
  std::uint64_t resets_ = 0;
  sim::Condition monitor_;  // notifyAll() in setLeadership, for await()
  sim::Scope scope_;        // declared last: its coroutines go first
};

}  // namespace curator
