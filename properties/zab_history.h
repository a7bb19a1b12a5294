// Zab's properties over the servers' histories (Remix's I-8 and I-10, ZooKeeper's own promises),
// and its protocol errors, judged from the trace and, where a trace event cannot carry a whole log,
// from what the servers hold (ServerHistories, which the harness provides over the ensemble).
//
// zab-committed-durability: every txn any server committed is in the history of every leader that
//   establishes a later epoch: its zxid at or below the leader's last processed zxid, and, where the
//   leader still holds it in its committedLog (the last 501 txns), the same txn (digest). Remix:
//   committedLogDurability / leaderLogCompleteness; broken by ZOOKEEPER-4643, 4646 and 3911.
// zab-history-consistency: the logs of any two servers that persisted the same currentEpoch are
//   prefix-related (beyond both snapshots): one is the other's beginning. Judged whenever a server
//   establishes, finishes a sync, goes back to LOOKING or starts, and at the end. Remix I-10;
//   broken by ZOOKEEPER-4712 (a follower whose log writer outlived its step-down).
// zab-protocol-errors: no server meets a state Java answers with an exception, a shutdown or an
//   error log (zk.protocol_error): the NullPointerException of ZOOKEEPER-4394, a NEWLEADER ACK
//   "from a different epoch" (ZOOKEEPER-4685), UNMATCHED_TXN_COMMIT. Remix I-11, I-12, I-14.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "properties/Property.h"
#include "properties/zab_properties.h"

namespace properties {

// What the history properties may read of the servers (the harness implements it over the model).
class ServerHistories {
 public:
  struct Entry {
    std::int64_t zxid;
    std::uint64_t digest;
    friend bool operator==(const Entry&, const Entry&) = default;
  };
  virtual ~ServerHistories() = default;
  virtual bool is_server(sim::NodeId node) const = 0;
  virtual std::vector<sim::NodeId> servers() const = 0;
  // Durable: the persisted currentEpoch, the latest snapshot's zxid, the log (in its order).
  virtual std::int64_t current_epoch(sim::NodeId server) const = 0;
  virtual std::int64_t snapshot_zxid(sim::NodeId server) const = 0;
  virtual std::vector<Entry> log(sim::NodeId server) const = 0;
  // In memory (a running server): its committedLog, the last 501 txns it applied, in order.
  virtual std::vector<Entry> committed_log(sim::NodeId server) const = 0;
};

class ZabCommittedDurability final : public Property {
 public:
  ZabCommittedDurability(sim::Simulation& sim, std::shared_ptr<const ServerHistories> histories)
      : Property(sim), histories_(std::move(histories)) {}
  std::string_view name() const override { return "zab-committed-durability"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;

 private:
  std::shared_ptr<const ServerHistories> histories_;
  std::map<std::int64_t, CommittedTxn> committed_;  // zxid -> the txn first committed there
  // A server's sync as the trace tells it, to say which step a crash interrupted when a txn is lost.
  struct Sync {
    bool in_sync = false;        // FOLLOWING, not yet zab.following
    bool epoch_written = false;  // its currentEpoch changed during this sync
    bool acked = false;          // it sent the NEWLEADER ACK
    std::int64_t unwritten = 0;  // the sync's txns not in its log then
    std::int64_t current_epoch = -1;
  };
  std::string cause(sim::NodeId leader) const;
  std::map<sim::NodeId, Sync> syncs_;
  std::map<sim::NodeId, std::string> interrupted_;  // server -> why its history lacks synced txns
};

class ZabHistoryConsistency final : public Property {
 public:
  ZabHistoryConsistency(sim::Simulation& sim, std::shared_ptr<const ServerHistories> histories)
      : Property(sim), histories_(std::move(histories)) {}
  std::string_view name() const override { return "zab-history-consistency"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  void finish(const RunFacts& facts) override;

 private:
  void check();
  std::shared_ptr<const ServerHistories> histories_;
  bool violated_ = false;  // one report is enough: a divergence stays
  std::set<sim::NodeId> orphaned_writers_;  // servers whose log writer outlived a step-down (3.8)
};

class ZabProtocolErrors final : public Property {
 public:
  using Property::Property;
  std::string_view name() const override { return "zab-protocol-errors"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
};

}  // namespace properties
