// QuorumPeer: one ZooKeeper server of an ensemble (a sim::Node).
//
// What survives a crash is its disk (ServerDisk: epochs, txn log, snapshot); everything else lives
// in Volatile and is rebuilt by on_start(), in ZooKeeper's start-up order: load the database,
// check the epoch files, open the client port, start leader election, then run() — the loop that
// looks for a leader, follows it or leads, and goes back to LOOKING whenever that role ends.
#pragma once

#include <memory>
#include <string>

#include "model/zk/quorum/FastLeaderElection.h"
#include "model/zk/quorum/QuorumCnxManager.h"
#include "model/zk/quorum/QuorumPeerConfig.h"
#include "model/zk/quorum/Vote.h"
#include "model/zk/server/ServerCnxn.h"
#include "model/zk/server/ZKDatabase.h"
#include "sim/node.h"

namespace zk {

class Leader;
class Follower;
class ZooKeeperServer;

class QuorumPeer final : public sim::Node {
 public:
  QuorumPeer(sim::Simulation& sim, std::string name, ServerId myid, std::shared_ptr<const QuorumPeerConfig> config);
  ~QuorumPeer() override;

  ServerId myid() const { return myid_; }
  const QuorumPeerConfig& config() const { return *config_; }
  sim::NodeId nodeOf(ServerId sid) const;
  // The server's monotonic clock in ms (its phase is its own, as with real machines).
  std::int64_t clockMs() const;
  // The machine's wall clock in ms since 1970 (Time.currentWallTime), for a txn's time (a node's
  // ctime and mtime). The machines' wall clocks agree: the run starts at 2026-01-01T00:00:00Z.
  std::int64_t wallClockMs() const;

  // ---- state (volatile) ----
  ServerState getPeerState() const;
  void setPeerState(ServerState state);
  Vote getCurrentVote() const;
  void setCurrentVote(const Vote& vote);
  // ZOOKEEPER-1732: after sync a server reports the new epoch as its vote's peerEpoch.
  void updateElectionVote(std::int64_t new_epoch);
  // The in-memory database's last processed zxid (what this server votes with).
  Zxid getLastLoggedZxid() const;
  ZKDatabase& getZkDb();
  bool hasDatabase() const { return volatile_ != nullptr; }  // false while stopped, and during start()
  ServerCnxnFactory& cnxnFactory();
  // The ZooKeeperServer clients are served by, or null (setZooKeeperServer in 3.8).
  ZooKeeperServer* getActiveServer() const;
  void setActiveServer(ZooKeeperServer* server);
  Leader* leader() const;
  Follower* follower() const;
  bool serving() const;

  // ---- persistent (the epoch files: written before the value is used) ----
  std::int64_t getCurrentEpoch() const { return disk_.current_epoch; }
  void setCurrentEpoch(std::int64_t epoch);
  std::int64_t getAcceptedEpoch() const { return disk_.accepted_epoch; }
  void setAcceptedEpoch(std::int64_t epoch);
  ServerDisk& disk() { return disk_; }
  const ServerDisk& disk() const { return disk_; }

  // A history persisted before the first start (the scenario's initial_zxid).
  // `epoch` (>= the zxid's epoch) is the persisted currentEpoch and acceptedEpoch; -1: the zxid's.
  void seedHistory(Zxid last_zxid, std::int64_t epoch = -1);
  // The seeded history's last zxid (0 if none): its one logged txn stands for a history that came
  // before the run, which the history properties take as given.
  Zxid seededZxid() const { return seeded_zxid_; }

  // Applies a committed txn to the database and traces it (zab.commit, znode.*, session.*): every
  // path by which a txn reaches a server's state goes through here.
  ProcessTxnResult applyCommitted(const std::shared_ptr<const Txn>& txn, std::vector<FiredWatch>* fired);
  // The process exits (System.exit in the Java code): a crash, scheduled so no frame destroys itself.
  void exitProcess(const char* reason);
  // How long a thread of this server waits at a race point (QuorumPeerConfig::thread_delay_max):
  // uniform in [0, max] from the server's own stream, or 0 without a draw when the max is 0.
  sim::Duration threadDelay();
  // A protocol error Java turns into an exception, a shutdown or an error log on a state that must
  // not happen (zk.protocol_error; the zab-protocol-errors property judges them).
  void protocolError(std::string_view error, std::string_view where, std::string_view jira);
  // Durable: the epochs, the snapshot's zxid and the log (its fsynced part after a power loss);
  // then, running: its role, vote, last processed zxid and the role's queues (Leader/Follower).
  std::uint64_t state_digest(bool crashed, bool power_loss) const override;

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  struct Volatile;
  sim::Task<void> run();
  // False when the epoch files and the log disagree and the server refuses to start.
  bool loadDataBase();
  // `replayed`: applied from the log rather than committed now (no zab.commit event; the znode and
  // session events carry replayed=true).
  void traceCommit(const Txn& txn, const ProcessTxnResult& result, const std::vector<std::string>& closed_ephemerals, bool replayed = false);

  ServerId myid_;
  std::shared_ptr<const QuorumPeerConfig> config_;
  std::int64_t clock_phase_ms_;
  ServerDisk disk_;
  Zxid seeded_zxid_ = 0;
  std::unique_ptr<Volatile> volatile_;

  friend class Leader;
  friend class Follower;
};

}  // namespace zk
