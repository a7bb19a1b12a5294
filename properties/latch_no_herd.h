// latch-no-herd (electsim addition): Curator's LeaderLatch and LeaderSelector avoid the herd effect
// of source 003. Each contender reads the latch's children without a watch and watches only the
// node just before its own (LeaderLatch.checkLeadership; LockInternals.internalLockLoop for the
// selector's mutex), so a change notifies one contender. A contender that watches the children of
// the latch path itself is notified of every join and every handover, all contenders at once, and
// each re-reads the children: n contenders cost O(n) notifications per change, O(n^2) for a
// succession of n leaders.
//
// Judged on the servers' watch.register events: a child watch (getChildren with watch) on the latch
// path violates it, once per session. The latch-watches-parent switch violates it.
#pragma once

#include <set>
#include <string>

#include "properties/Property.h"
#include "properties/client_sessions.h"

namespace properties {

class LatchNoHerd final : public Property {
 public:
  LatchNoHerd(sim::Simulation& sim, std::string latchPath) : Property(sim), latchPath_(std::move(latchPath)) {}
  std::string_view name() const override { return "latch-no-herd"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  std::string latchPath_;
  ClientSessions sessions_;          // client session -> its contender
  std::set<std::int64_t> reported_;  // sessions already reported
};

}  // namespace properties
