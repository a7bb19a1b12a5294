#include "harness/property_factory.h"

#include "harness/cluster.h"
#include "properties/eventual_leader.h"
#include "properties/monotonic_reads.h"
#include "properties/zab_history.h"
#include "properties/zab_properties.h"
#include "properties/zookeeper_hygiene.h"

namespace harness {

namespace {

// The servers' histories, for the properties that read them (properties/zab_history.h).
class EnsembleHistories final : public properties::ServerHistories {
 public:
  explicit EnsembleHistories(zk::Ensemble& ensemble) : ensemble_(ensemble) {}
  bool is_server(sim::NodeId node) const override { return server(node) != nullptr; }
  std::vector<sim::NodeId> servers() const override { return ensemble_.nodes(); }
  std::int64_t current_epoch(sim::NodeId node) const override { return server(node)->disk().current_epoch; }
  std::int64_t snapshot_zxid(sim::NodeId node) const override {
    // A seeded history (zookeeper.initial_zxid) counts as a snapshot: it stands for what came before.
    const zk::ServerDisk& disk = server(node)->disk();
    return std::max(disk.snapshot ? disk.snapshot->zxid : 0, server(node)->seededZxid());
  }
  std::vector<Entry> log(sim::NodeId node) const override {
    std::vector<Entry> entries;
    for (const auto& txn : server(node)->disk().log) entries.push_back(Entry{txn->header.zxid, zk::txn_digest(*txn)});
    return entries;
  }
  std::vector<Entry> committed_log(sim::NodeId node) const override {
    std::vector<Entry> entries;
    zk::QuorumPeer* peer = server(node);
    if (!peer->up() || !peer->hasDatabase()) return entries;
    for (const auto& txn : peer->getZkDb().getCommittedLog()) entries.push_back(Entry{txn->header.zxid, zk::txn_digest(*txn)});
    return entries;
  }

 private:
  zk::QuorumPeer* server(sim::NodeId node) const {
    for (zk::ServerId sid = 1; sid <= static_cast<zk::ServerId>(ensemble_.size()); sid++) {
      if (ensemble_.server(sid).id() == node) return &ensemble_.server(sid);
    }
    return nullptr;
  }
  zk::Ensemble& ensemble_;
};

}  // namespace

std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster, RecipeDriver& driver) {
  sim::Simulation& sim = cluster.sim();
  if (auto recipe_level = driver.makeProperty(name, cluster)) return recipe_level;
  if (name == "eventual-leader") return std::make_unique<properties::EventualLeader>(sim, driver.leaderBound(cluster.scenario()));
  if (cluster.ensemble() == nullptr) return nullptr;
  if (name == "zab-single-leader") return std::make_unique<properties::ZabSingleLeader>(sim);
  if (name == "zab-agreement") return std::make_unique<properties::ZabAgreement>(sim);
  if (name == "zab-committed-durability") {
    return std::make_unique<properties::ZabCommittedDurability>(sim, std::make_shared<EnsembleHistories>(*cluster.ensemble()));
  }
  if (name == "zab-history-consistency") {
    return std::make_unique<properties::ZabHistoryConsistency>(sim, std::make_shared<EnsembleHistories>(*cluster.ensemble()));
  }
  if (name == "zab-protocol-errors") return std::make_unique<properties::ZabProtocolErrors>(sim);
  if (name == "zab-monotonic-reads") return std::make_unique<properties::ZabMonotonicReads>(sim);
  if (name == "ephemeral-cleanup") return std::make_unique<properties::EphemeralCleanup>(sim);
  if (name == "watch-once") return std::make_unique<properties::WatchOnce>(sim);
  return nullptr;
}

}  // namespace harness
