// The configuration of a ZooKeeper ensemble (QuorumPeerConfig / zoo.cfg) and the bug switches that
// re-introduce known mistakes into the model. Defaults are zoo_sample.cfg's and ZooKeeper 3.8's.
#pragma once

#include <cstdint>
#include <vector>

#include "model/zk/types.h"
#include "sim/simulation.h"

namespace zk {

using namespace std::chrono_literals;

// Known ZooKeeper bugs the model can re-introduce. All off by default.
struct ZkBugs {
  // ZOOKEEPER-1419: the pre-3.4.4 totalOrderPredicate, whose zxid/sid tie-breaks are not guarded by
  // epoch equality; votes can cycle and an election may not settle.
  bool fle_1419_nontotal_order = false;
  // The leader commits a proposal on its own ack, without waiting for a quorum: a leader crash
  // then loses transactions clients were told were committed.
  bool zab_commit_without_quorum = false;
  // ZOOKEEPER-335: before Zab 1.0 a new epoch came from the zxids (epoch of the last zxid + 1), with
  // no acceptedEpoch. A leader that established an epoch but logged nothing in it lets the next
  // leader take the same epoch again: two leaders of one epoch.
  bool zab_335_epoch_from_zxid = false;
  // ZOOKEEPER-1208: the leader accepts writes (an ephemeral create) from a session whose closeSession
  // it has already prepared; the create commits after the close and its node outlives the session.
  bool zk_1208_create_on_closing_session = false;
  // A teaching switch (no ZooKeeper release did this): watches stay registered after they fire.
  bool zk_watch_not_one_shot = false;
  // ZOOKEEPER-2845 (3.4.10/3.5.3 until 3.4.12/3.5.4): after ZOOKEEPER-2678 kept the database across
  // elections, a server stepping down did not fast-forward it from its log (the fix: shutdown(false)
  // calls fastForwardDataBase). A txn logged but not committed is then missing from what the server
  // reports, so the next leader sends an empty DIFF instead of a TRUNC, and a restart replays it.
  bool zk_2845_retain_database = false;
  // ZOOKEEPER-3911 (until 3.5.9/3.6.3, PR #1445): at NEWLEADER a DIFF-synced follower ACKed at once
  // but logged the DIFF txns only after UPTODATE; a crash in between lost txns a quorum was counted
  // as holding.
  bool zk_3911_diff_logged_after_uptodate = false;
};

// The ZooKeeper release whose synchronization code the model runs (docs/zookeeper-model.md,
// Versions). 3.8.0 is the default; 3.8.5 has the ZOOKEEPER-4785 fix (PR #2111/#2132: the DIFF txns
// written and fsynced before currentEpoch and the NEWLEADER ACK); 3.9.3 also the ZOOKEEPER-4394
// (#2152/#2188) and ZOOKEEPER-4712 (#2154) fixes.
enum class ZkVersion : std::uint8_t { v3_8_0, v3_8_5, v3_9_3 };

struct QuorumPeerConfig {
  std::vector<sim::NodeId> servers;  // node of server sid = index + 1 (server.N in zoo.cfg)
  sim::Duration tick_time = 2000ms;
  std::int32_t init_limit = 10;
  std::int32_t sync_limit = 5;
  sim::Duration min_session_timeout{0};  // 0: 2 * tickTime (ZooKeeperServer.getMinSessionTimeout)
  sim::Duration max_session_timeout{0};  // 0: 20 * tickTime
  // FastLeaderElection.finalizeWait and the notification backoff bounds.
  sim::Duration finalize_wait = 200ms;
  sim::Duration min_notification_interval = 200ms;
  sim::Duration max_notification_interval = 60000ms;
  // The CPU time lookForLeader spends on one notification. Real servers are bounded by their CPU:
  // with a non-total order (ZOOKEEPER-1419) the finalizeWait loop can re-queue "better" votes
  // forever, a busy loop that only the cost of each step keeps from happening in zero time.
  sim::Duration notification_processing_time = 50us;
  // A SendWorker writes one message at a time, and each write takes time: at most one notification
  // per this interval leaves on a connection, and newer ones replace unsent ones meanwhile (the send
  // queue holds one). Without a cost per message, a vote storm (ZOOKEEPER-1419) would be unbounded.
  sim::Duration election_send_interval = 1ms;
  // QuorumCnxManager.cnxTO: the TCP connect timeout between election ports.
  sim::Duration election_connect_timeout = 5000ms;
  // How long an fsync of the txn log takes (SyncRequestProcessor's group commit). A crash loses
  // what has not been synced.
  sim::Duration fsync_latency = 2ms;
  // The longest a server thread waits at a point where Java leaves the order of two threads to the
  // scheduler (docs/zookeeper-model.md, Threads): each such point draws a delay in [0, this] from the
  // server's own stream. 0: threads are never delayed (and nothing is drawn).
  sim::Duration thread_delay_max = 0ms;
  ZkVersion version = ZkVersion::v3_8_0;
  ZkBugs bugs;

  std::size_t size() const { return servers.size(); }
  // QuorumMaj: more than half of the voters.
  bool is_quorum(std::size_t votes) const { return votes > servers.size() / 2; }
  sim::Duration min_session() const { return min_session_timeout.count() > 0 ? min_session_timeout : 2 * tick_time; }
  sim::Duration max_session() const { return max_session_timeout.count() > 0 ? max_session_timeout : 20 * tick_time; }
  sim::Duration init_timeout() const { return init_limit * tick_time; }
  sim::Duration sync_timeout() const { return sync_limit * tick_time; }
};

// Ports each server listens on (zoo.cfg: server.N=host:2888:3888, clientPort=2181).
inline constexpr std::uint16_t client_port = 2181;
inline constexpr std::uint16_t quorum_port = 2888;
inline constexpr std::uint16_t election_port = 3888;

}  // namespace zk
