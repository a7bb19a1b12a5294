#include "model/zk/quorum/QuorumPeer.h"

#include <cstdio>

#include "model/zk/quorum/Follower.h"
#include "model/zk/quorum/Leader.h"
#include "model/zk/server/ZooKeeperServer.h"
#include "sim/hash_fold.h"

namespace zk {

std::string_view server_state_name(ServerState state) {
  switch (state) {
    case ServerState::looking: return "LOOKING";
    case ServerState::following: return "FOLLOWING";
    case ServerState::leading: return "LEADING";
    case ServerState::observing: return "OBSERVING";
  }
  return "UNKNOWN";
}

// Everything a crash loses.
struct QuorumPeer::Volatile {
  explicit Volatile(QuorumPeer& self) : qcm(self), fle(self, qcm), factory(self) {}
  ZKDatabase db;
  QuorumCnxManager qcm;
  FastLeaderElection fle;
  ServerCnxnFactory factory;
  ServerState state = ServerState::looking;
  Vote current_vote;
  std::optional<sim::Rng> thread_rng;  // made at the first draw
  ZooKeeperServer* active = nullptr;
  Leader* leader = nullptr;
  Follower* follower = nullptr;
};

QuorumPeer::QuorumPeer(sim::Simulation& sim, std::string name, ServerId myid, std::shared_ptr<const QuorumPeerConfig> config)
    : Node(sim, std::move(name)), myid_(myid), config_(std::move(config)) {
  ELECTSIM_ASSERT(myid >= 1);
  ELECTSIM_ASSERT(static_cast<std::size_t>(myid) <= config_->size());
  // A machine's monotonic clock starts at its boot: give each server its own phase, so session
  // expiry buckets (multiples of tickTime) do not line up across servers by accident.
  clock_phase_ms_ = sim.random().stream("zk-clock/" + this->name()).uniform(0, 1'000'000'000);
}

QuorumPeer::~QuorumPeer() = default;

sim::NodeId QuorumPeer::nodeOf(ServerId sid) const {
  ELECTSIM_ASSERT(sid >= 1 && static_cast<std::size_t>(sid) <= config_->size());
  return config_->servers[static_cast<std::size_t>(sid - 1)];
}

std::int64_t QuorumPeer::clockMs() const { return sim::millis(sim().now().time_since_epoch()) + clock_phase_ms_; }
std::int64_t QuorumPeer::wallClockMs() const {
  constexpr std::int64_t run_start_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  return sim::millis(sim().now().time_since_epoch()) + run_start_ms;
}

ServerState QuorumPeer::getPeerState() const { return volatile_->state; }

void QuorumPeer::setPeerState(ServerState state) {
  volatile_->state = state;
  sim().trace().emit(id(), "zk.state", {{"state", server_state_name(state)}, {"epoch", getCurrentEpoch()}});
}

Vote QuorumPeer::getCurrentVote() const { return volatile_->current_vote; }
void QuorumPeer::setCurrentVote(const Vote& vote) { volatile_->current_vote = vote; }
void QuorumPeer::updateElectionVote(std::int64_t new_epoch) { volatile_->current_vote.peer_epoch = new_epoch; }

Zxid QuorumPeer::getLastLoggedZxid() const { return volatile_->db.getDataTreeLastProcessedZxid(); }
ZKDatabase& QuorumPeer::getZkDb() { return volatile_->db; }
ServerCnxnFactory& QuorumPeer::cnxnFactory() { return volatile_->factory; }
ZooKeeperServer* QuorumPeer::getActiveServer() const { return volatile_ ? volatile_->active : nullptr; }
void QuorumPeer::setActiveServer(ZooKeeperServer* server) { volatile_->active = server; }
Leader* QuorumPeer::leader() const { return volatile_ ? volatile_->leader : nullptr; }
Follower* QuorumPeer::follower() const { return volatile_ ? volatile_->follower : nullptr; }
bool QuorumPeer::serving() const { return up() && getActiveServer() != nullptr && getActiveServer()->isRunning(); }

void QuorumPeer::setCurrentEpoch(std::int64_t epoch) {
  disk_.current_epoch = epoch;  // the file first, then memory (there is no separate memory copy)
  sim().trace().emit(id(), "zab.epoch", {{"current_epoch", epoch}, {"accepted_epoch", disk_.accepted_epoch}});
}

void QuorumPeer::setAcceptedEpoch(std::int64_t epoch) {
  disk_.accepted_epoch = epoch;
  sim().trace().emit(id(), "zab.epoch", {{"current_epoch", disk_.current_epoch}, {"accepted_epoch", epoch}});
}

void QuorumPeer::seedHistory(Zxid last_zxid, std::int64_t epoch) {
  ELECTSIM_ASSERT_MSG(starts() == 0, "history is seeded before the first start");
  ELECTSIM_ASSERT(last_zxid > 0);
  // One logged txn carrying the zxid: an error txn, which changes nothing in the tree (ZooKeeper
  // logs those too). The epochs are those of the txn's epoch.
  ZKDatabase empty;
  disk_.snapshot = empty.takeSnapshot();
  auto txn = std::make_shared<Txn>();
  txn->header.zxid = last_zxid;
  txn->header.type = OpCode::error;
  txn->body = ErrorTxn{Code::node_exists};
  disk_.log.push_back(std::move(txn));
  disk_.synced = disk_.log.size();
  seeded_zxid_ = last_zxid;
  ELECTSIM_ASSERT(epoch == -1 || epoch >= epoch_of(last_zxid));
  disk_.current_epoch = epoch == -1 ? epoch_of(last_zxid) : epoch;
  disk_.accepted_epoch = disk_.current_epoch;
}

bool QuorumPeer::loadDataBase() {
  // QuorumPeer.loadDataBase: the database, then the epoch files checked against it.
  Zxid last = volatile_->db.loadDataBase(disk_);
  std::int64_t epoch_of_zxid = epoch_of(last);
  if (disk_.current_epoch == -1) disk_.current_epoch = epoch_of_zxid;
  if (epoch_of_zxid > disk_.current_epoch) {
    // "The current epoch, X, is older than the last zxid, Y": the server refuses to start, and does
    // at every restart (ZOOKEEPER-2354). A sync wrote txns of the new epoch (3.8.5 and 3.9.3 at
    // NEWLEADER, any release after a SNAP's snapshot) and the process died before the epoch file.
    char text[160];
    std::snprintf(text, sizeof text, "IOException: the current epoch, %lld, is older than the last zxid, 0x%llx: the server does not start",
                  static_cast<long long>(disk_.current_epoch), static_cast<unsigned long long>(last));
    protocolError(text, "QuorumPeer.loadDataBase", "ZOOKEEPER-2354");
    return false;
  }
  if (disk_.accepted_epoch == -1) disk_.accepted_epoch = epoch_of_zxid;
  ELECTSIM_ASSERT_MSG(disk_.accepted_epoch >= disk_.current_epoch, "the accepted epoch is less than the current epoch");
  return true;
}

void QuorumPeer::on_start() {
  volatile_ = std::make_unique<Volatile>(*this);
  volatile_->db.setWatchesSurviveTrigger(config_->bugs.zk_watch_not_one_shot);
  volatile_->db.setReplayObserver([this](const Txn& txn, const ProcessTxnResult& result, const std::vector<std::string>& closed) {
    traceCommit(txn, result, closed, true);
  });
  volatile_->db.setReloadObserver([this](const DataTree& tree) {
    // The tree was replaced: say so, then list the ephemerals it holds (sessions, then paths, in order).
    sim().trace().emit(id(), "zab.db_reload", {{"zxid", tree.getLastProcessedZxid()}});
    for (SessionId session : tree.getSessions()) {
      for (const std::string& path : tree.getEphemerals(session)) {
        sim().trace().emit(id(), "znode.create",
                           {{"path", path}, {"zxid", tree.getNode(path)->stat.czxid}, {"ephemeral_owner", session}, {"replayed", true}});
      }
    }
  });
  if (!loadDataBase()) {
    exitProcess("Unable to load database on disk");  // QuorumPeerMain exits
    return;
  }
  volatile_->current_vote = Vote{0, myid_, getLastLoggedZxid(), -1, getCurrentEpoch(), ServerState::looking};
  setPeerState(ServerState::looking);
  volatile_->factory.start();
  volatile_->qcm.start();
  volatile_->fle.start();
  spawn(run());
}

void QuorumPeer::on_stop() {
  volatile_.reset();
  // A power loss takes the page cache with it: the log keeps only what was fsynced. (A process
  // crash keeps what was flushed; what was only appended died with the JVM's buffer.)
  if (closing_silently()) disk_.log.resize(disk_.synced);
}

std::uint64_t QuorumPeer::state_digest(bool crashed, bool power_loss) const {
  std::uint64_t digest = sim::hash_fold(0x7a6b, static_cast<std::uint64_t>(disk_.accepted_epoch));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(disk_.current_epoch));
  digest = sim::hash_fold(digest, disk_.snapshot ? static_cast<std::uint64_t>(disk_.snapshot->zxid) : 0);
  std::size_t kept = power_loss ? disk_.synced : disk_.log.size();
  for (std::size_t at = 0; at < kept; at++) digest = sim::hash_fold(digest, txn_digest(*disk_.log[at]));
  if (crashed || !up() || volatile_ == nullptr) return sim::hash_fold(digest, 0);
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(volatile_->state) + (paused() ? 16 : 0));
  const Vote& vote = volatile_->current_vote;
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(vote.id));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(vote.zxid));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(vote.peer_epoch));
  digest = sim::hash_fold(digest, static_cast<std::uint64_t>(getLastLoggedZxid()));
  if (volatile_->leader != nullptr) digest = sim::hash_fold(digest, volatile_->leader->stateDigest());
  if (volatile_->follower != nullptr) digest = sim::hash_fold(digest, volatile_->follower->stateDigest());
  return digest;
}

sim::Duration QuorumPeer::threadDelay() {
  if (config_->thread_delay_max <= sim::Duration::zero() || volatile_ == nullptr) return sim::Duration::zero();
  if (!volatile_->thread_rng) volatile_->thread_rng.emplace(sim().random().seed_for("zk-threads/" + name() + "/" + std::to_string(starts())));
  return volatile_->thread_rng->uniform(sim::Duration::zero(), config_->thread_delay_max);
}

void QuorumPeer::protocolError(std::string_view error, std::string_view where, std::string_view jira) {
  sim().trace().emit(id(), "zk.protocol_error", {{"error", error}, {"where", where}, {"jira", jira}});
}

void QuorumPeer::exitProcess(const char* reason) {
  sim().trace().emit(id(), "zk.exit", {{"reason", reason}});
  sim().schedule_callback(sim().now(), sim::no_node, [this] {
    if (up()) crash();
  });
}

sim::Task<void> QuorumPeer::run() {
  while (true) {
    switch (getPeerState()) {
      case ServerState::looking: {
        std::optional<Vote> vote = co_await volatile_->fle.lookForLeader();
        if (vote) {
          setCurrentVote(*vote);
        } else {
          setPeerState(ServerState::looking);
        }
        break;
      }
      case ServerState::following: {
        Follower follower(*this);
        volatile_->follower = &follower;
        co_await follower.followLeader();
        follower.shutdown();
        volatile_->follower = nullptr;
        setPeerState(ServerState::looking);  // updateServerState
        break;
      }
      case ServerState::leading: {
        Leader leader(*this);
        volatile_->leader = &leader;
        co_await leader.lead();
        leader.shutdown();
        volatile_->leader = nullptr;
        setPeerState(ServerState::looking);
        break;
      }
      case ServerState::observing: ELECTSIM_UNREACHABLE();
    }
  }
}

ProcessTxnResult QuorumPeer::applyCommitted(const std::shared_ptr<const Txn>& txn, std::vector<FiredWatch>* fired) {
  // A closeSession deletes every ephemeral the session still owns here, listed or not.
  std::vector<std::string> closed_ephemerals;
  if (txn->header.type == OpCode::close_session) closed_ephemerals = getZkDb().getDataTree().getEphemerals(txn->header.session_id);
  ProcessTxnResult result = getZkDb().processTxn(txn, fired);
  traceCommit(*txn, result, closed_ephemerals);
  return result;
}

void QuorumPeer::traceCommit(const Txn& txn, const ProcessTxnResult& result, const std::vector<std::string>& closed_ephemerals, bool replayed) {
  sim::Trace& trace = sim().trace();
  const TxnHeader& header = txn.header;
  if (!replayed) {
    trace.emit(id(), "zab.commit",
             {{"zxid", header.zxid},
              {"type", static_cast<std::int32_t>(header.type)},
              {"session", header.session_id},
              {"error", code_name(result.error)},
              {"digest", txn_digest(txn)}});
  }
  if (result.error != Code::ok) return;
  auto emit_create = [&](const CreateTxn& create, const std::string& path) {
    trace.emit(id(), "znode.create", {{"path", path}, {"zxid", header.zxid}, {"ephemeral_owner", create.ephemeral ? header.session_id : 0}, {"replayed", replayed}});
  };
  if (const auto* create = std::get_if<CreateTxn>(&txn.body)) emit_create(*create, result.path);
  if (const auto* removal = std::get_if<DeleteTxn>(&txn.body)) {
    trace.emit(id(), "znode.delete", {{"path", removal->path}, {"zxid", header.zxid}, {"session", header.session_id}, {"replayed", replayed}});
  }
  if (const auto* set = std::get_if<SetDataTxn>(&txn.body)) {
    trace.emit(id(), "znode.set", {{"path", set->path}, {"zxid", header.zxid}, {"version", set->version}});
  }
  if (const auto* created = std::get_if<CreateSessionTxn>(&txn.body)) {
    trace.emit(id(), "session.create", {{"session", header.session_id}, {"timeout_ms", created->timeout_ms}, {"zxid", header.zxid}});
  }
  if (std::holds_alternative<CloseSessionTxn>(txn.body)) {
    for (const std::string& path : closed_ephemerals) {
      trace.emit(id(), "znode.delete", {{"path", path}, {"zxid", header.zxid}, {"session", header.session_id}, {"replayed", replayed}});
    }
    trace.emit(id(), "session.close", {{"session", header.session_id}, {"zxid", header.zxid}, {"replayed", replayed}});
  }
  if (const auto* multi = std::get_if<MultiTxn>(&txn.body)) {
    for (std::size_t i = 0; i < multi->size(); i++) {
      const SubTxn& sub = (*multi)[i];
      if (const auto* create = std::get_if<CreateTxn>(&sub.body)) {
        emit_create(*create, i < result.multi.size() ? result.multi[i].path : create->path);
      } else if (const auto* removal = std::get_if<DeleteTxn>(&sub.body)) {
        trace.emit(id(), "znode.delete", {{"path", removal->path}, {"zxid", header.zxid}, {"session", header.session_id}, {"replayed", replayed}});
      } else if (const auto* set = std::get_if<SetDataTxn>(&sub.body)) {
        trace.emit(id(), "znode.set", {{"path", set->path}, {"zxid", header.zxid}, {"version", set->version}});
      }
    }
  }
}

}  // namespace zk
