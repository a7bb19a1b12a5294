// The named sites of the ZooKeeper server (sim/site.h): the steps of discovery, synchronization,
// broadcast and persistence where a crash, a pause or a delay reveals something. Each names the Java
// step it mirrors in release-3.8.0 (tag release-3.8.0-1; file:line, zookeeper-server/src/main/java/org/apache/zookeeper/
// server/); `electsim sites` lists them. The model reaches each one right after the step it names.
#pragma once

#include <array>

#include "sim/site.h"

namespace zk::sites {

using sim::Site;
using sim::SiteRole;

// Discovery and synchronization, learner side (quorum/Learner.java).
inline constexpr Site accepted_epoch_written{
    "zab.accepted_epoch_written", SiteRole::server, true,
    "Learner.registerWithLeader: self.setAcceptedEpoch(newEpoch) (Learner.java:514); Leader.getEpochToPropose: self.setAcceptedEpoch(epoch) (Leader.java:1429)",
    "the acceptedEpoch file holds the new epoch (fsynced before its rename); ACKEPOCH is not sent yet", "epoch"};
inline constexpr Site sync_mode_received{
    "zab.sync_mode_received", SiteRole::server, true, "Learner.syncWithLeader: the first packet, DIFF, TRUNC or SNAP (Learner.java:560-606)",
    "a learner read its sync mode; a TRUNC has cut its log and a SNAP replaced its tree in memory, nothing is acknowledged", "mode zxid"};
inline constexpr Site newleader_received{
    "zab.newleader_received", SiteRole::server, true, "Learner.syncWithLeader: case Leader.NEWLEADER (Learner.java:735)",
    "a learner read NEWLEADER; the DIFF proposals before it are only in packetsNotCommitted (memory)", "zxid"};
inline constexpr Site current_epoch_written{
    "zab.current_epoch_written", SiteRole::server, true,
    "Learner.syncWithLeader: self.setCurrentEpoch(newEpoch) (Learner.java:752); Leader.lead: self.setCurrentEpoch(epoch) (Leader.java:662)",
    "the currentEpoch file holds the new epoch; on a DIFF-synced learner its txns are not on disk yet (ZOOKEEPER-4643)", "epoch"};
inline constexpr Site newleader_acked{
    "zab.newleader_acked", SiteRole::server, true, "Learner.syncWithLeader: writePacket(ACK of NEWLEADER) (Learner.java:769)",
    "a learner sent its NEWLEADER ACK; in 3.8.0 its DIFF txns may still wait in the SyncRequestProcessor (ZOOKEEPER-4646)", "zxid queued"};
inline constexpr Site uptodate_received{
    "zab.uptodate_received", SiteRole::server, true, "Learner.syncWithLeader: case Leader.UPTODATE (Learner.java:720)",
    "a learner read UPTODATE; it has not acknowledged it nor started serving", ""};
inline constexpr Site uptodate_acked{
    "zab.uptodate_acked", SiteRole::server, true, "Learner.syncWithLeader: writePacket(ACK of UPTODATE), zk.startServing (Learner.java:775-776)",
    "a learner acknowledged UPTODATE and serves clients; the txns committed during sync are still to be applied (ZOOKEEPER-3023)", ""};

// Synchronization and broadcast, leader side (quorum/Leader.java, quorum/LearnerHandler.java).
inline constexpr Site sync_packet_sent{
    "zab.sync_packet_sent", SiteRole::server, true,
    "LearnerHandler.run: the queued sync packets (DIFF/TRUNC/SNAP, PROPOSAL, COMMIT, NEWLEADER) go out (LearnerHandler.java:568-604)",
    "the leader wrote one packet of a learner's synchronization; the next ones are not sent yet", "learner type zxid"};
inline constexpr Site newleader_quorum{
    "zab.newleader_quorum", SiteRole::server, true, "Leader.lead: waitForNewLeaderAck returned (Leader.java:667)",
    "a quorum acknowledged NEWLEADER; the leader has not started its ZooKeeperServer nor sent UPTODATE", "epoch"};
inline constexpr Site uptodate_sent{
    "zab.uptodate_sent", SiteRole::server, true, "LearnerHandler.run: queuePacket(UPTODATE) (LearnerHandler.java:652)",
    "the leader sent a learner UPTODATE", "learner"};
inline constexpr Site quorum_lost{
    "zab.quorum_lost", SiteRole::server, true,
    "Leader.lead: !syncedAckSet.hasAllQuorums(), shutdownMessage set, break (Leader.java:783-790)",
    "the leader found fewer than a quorum synced with it and gives up; it has not shut down yet (its log writer still runs)", "synced"};
inline constexpr Site proposal_sent{
    "zab.proposal_sent", SiteRole::server, false, "Leader.propose: sendPacket(PROPOSAL) (Leader.java:1277)",
    "the leader sent a proposal to its forwarding followers; its own log write is queued after", "zxid"};
inline constexpr Site commit_sent{
    "zab.commit_sent", SiteRole::server, false, "Leader.commit: sendPacket(COMMIT) (Leader.java:1168)",
    "the leader counted a quorum of ACKs and sent COMMIT; it applies the txn itself next", "zxid"};

// Persistence (SyncRequestProcessor.java, persistence/FileTxnLog.java, SendAckRequestProcessor.java).
inline constexpr Site txn_queued{
    "zab.txn_queued", SiteRole::server, false, "ZooKeeperServer/FollowerZooKeeperServer.logRequest: syncProcessor.processRequest (FollowerZooKeeperServer.java:88)",
    "a txn waits in the SyncRequestProcessor's queue: nothing of it is written", "zxid"};
inline constexpr Site txn_appended{
    "zab.txn_appended", SiteRole::server, true, "SyncRequestProcessor.run: zks.getZKDatabase().append(si) (SyncRequestProcessor.java:181)",
    "a txn is in FileTxnLog's buffered stream, inside the JVM: a process crash loses it", "zxid"};
inline constexpr Site log_flushed{
    "zab.log_flushed", SiteRole::server, true, "FileTxnLog.commit: logStream.flush() (FileTxnLog.java:378)",
    "the appended txns are in the operating system's page cache: a process crash keeps them, a power loss does not", "zxid"};
inline constexpr Site log_synced{
    "zab.log_synced", SiteRole::server, true, "FileTxnLog.commit: channel.force(false) (FileTxnLog.java:386)",
    "the appended txns are on disk; their ACKs are not sent yet", "zxid"};
inline constexpr Site ack_sent{
    "zab.ack_sent", SiteRole::server, false, "SendAckRequestProcessor.processRequest: learner.writePacket(ACK) (SendAckRequestProcessor.java:46)",
    "a follower sent the ACK of a logged txn (a leader counts its own instead, AckRequestProcessor)", "zxid"};

inline constexpr std::array<const Site*, 18> all{
    &accepted_epoch_written, &sync_mode_received, &newleader_received, &current_epoch_written, &newleader_acked, &uptodate_received,
    &uptodate_acked,         &sync_packet_sent,   &newleader_quorum,   &uptodate_sent,         &quorum_lost,     &proposal_sent,   &commit_sent,
    &txn_queued,             &txn_appended,       &log_flushed,        &log_synced,            &ack_sent};

}  // namespace zk::sites
