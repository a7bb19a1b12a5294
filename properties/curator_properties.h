// latch-single-leader: the promise of Curator's LeaderLatch and LeaderSelector. Per latch path, no
// two live, unpaused, connected contenders believe they lead at once (LeaderLatch.hasLeadership,
// or being inside LeaderSelectorListener.takeLeadership). See leadership_beliefs.h for what counts.
//
// One more exclusion: a belief that began after the ensemble had closed the contender's current
// ZooKeeper session (a committed closeSession, session.close) does not count. Its lock node is
// already gone when it takes leadership, for a few milliseconds: paused past its session timeout,
// it resumes connected to a follower that was cut off from the leader during the expiry and has
// not applied the close yet, and that follower answers its getChildren from the stale tree
// (ZooKeeper reads are served locally, not linearizable; Curator calls no sync()). Curator's Tech
// Note 10 says as much of paused clients. Found by explore (leader-selector, --duration 200s, seed
// 50648). A belief held from before its session closed still counts: that is the overlap of
// scenario latch-session-shorter-than-sync-window, which this property must keep seeing.
#pragma once

#include <map>
#include <string>

#include "properties/Property.h"
#include "properties/leadership_beliefs.h"

namespace properties {

class LatchSingleLeader final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "latch-single-leader"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  void finish(const RunFacts& facts) override;

 private:
  // Judges the state as it stands at the end of the instant `instant_` (scheduled 1 ns after it).
  void judge();
  // The node's belief about `path` began after its current session had been closed.
  bool beganOnAClosedSession(const std::string& path, sim::NodeId node) const;

  LeadershipBeliefs beliefs_;
  std::map<sim::NodeId, std::int64_t> sessions_;                  // each node's ZooKeeper session, as last CONNECTED
  std::map<std::int64_t, sim::Instant> closed_sessions_;          // session -> first applied closeSession
  std::map<std::pair<std::string, sim::NodeId>, sim::Instant> believes_since_;  // (path, node) -> latest leader event
  sim::Instant instant_{};
  bool dirty_ = false;
  std::map<std::string, bool> overlapping_;  // per path: an overlap is in progress (reported once)
};

}  // namespace properties
