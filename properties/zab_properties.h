// Zab's safety properties, judged from the trace (the TLA+ specification's Leadership,
// PrefixConsistency and Integrity, in the form a trace can show them).
//
// zab-single-leader: at most one server establishes a given epoch (zab.established), and every
//   follower that finishes syncing in an epoch (zab.following) follows that epoch's leader.
// zab-agreement: all servers commit the same txn at a given zxid (zab.commit carries a digest of
//   the txn); and a leader establishing epoch e brings every txn any server committed in an earlier
//   epoch (its history reaches at least the highest such zxid). A txn committed by one server and
//   missing from a later leader's history is a lost commit.
#pragma once

#include <map>
#include <set>

#include "properties/Property.h"

namespace properties {

class ZabSingleLeader final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "zab-single-leader"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  std::map<std::int64_t, std::pair<std::int64_t, sim::NodeId>> leader_of_epoch_;  // epoch -> (sid, node)
};

// A committed txn as the zab- properties remember it: its digest and the first server that applied it.
struct CommittedTxn {
  std::uint64_t digest;
  sim::NodeId first_server;
};

class ZabAgreement final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "zab-agreement"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  std::map<std::int64_t, CommittedTxn> committed_;  // zxid -> the txn committed there
};

}  // namespace properties
