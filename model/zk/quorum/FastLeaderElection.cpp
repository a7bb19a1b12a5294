#include "model/zk/quorum/FastLeaderElection.h"

#include <algorithm>

#include "model/zk/quorum/QuorumPeer.h"

namespace zk {

namespace {

// Why (newId, newZxid, newEpoch) beats (curId, curZxid, curEpoch), for the narration.
const char* why_better(Zxid newZxid, std::int64_t newEpoch, Zxid curZxid, std::int64_t curEpoch) {
  if (newEpoch > curEpoch) return "higher peerEpoch";
  if (newEpoch < curEpoch) return "lower peerEpoch but higher zxid or sid (fle-1419 bug)";
  if (newZxid > curZxid) return "same peerEpoch, higher zxid";
  return "same peerEpoch and zxid, higher sid";
}

}  // namespace

FastLeaderElection::FastLeaderElection(QuorumPeer& self, QuorumCnxManager& manager)
    : self_(self), manager_(manager), recvqueue_(self.sim(), 1 << 20) {}

void FastLeaderElection::start() { self_.spawn(workerReceiver()); }

bool FastLeaderElection::totalOrderPredicate(ServerId newId, Zxid newZxid, std::int64_t newEpoch, ServerId curId, Zxid curZxid,
                                             std::int64_t curEpoch) const {
  if (self_.config().bugs.fle_1419_nontotal_order) {
    // ZOOKEEPER-1419: the zxid/sid tie-break is not guarded by epoch equality, so a vote with a
    // lower epoch can win: not a total order, and votes can cycle.
    return newEpoch > curEpoch || (newEpoch == curEpoch && newZxid > curZxid) || (newZxid == curZxid && newId > curId);
  }
  return newEpoch > curEpoch || (newEpoch == curEpoch && (newZxid > curZxid || (newZxid == curZxid && newId > curId)));
}

ServerId FastLeaderElection::getInitId() const { return self_.myid(); }
Zxid FastLeaderElection::getInitLastLoggedZxid() const { return self_.getLastLoggedZxid(); }
std::int64_t FastLeaderElection::getPeerEpoch() const { return self_.getCurrentEpoch(); }

void FastLeaderElection::updateProposal(ServerId leader, Zxid zxid, std::int64_t epoch) {
  proposedLeader_ = leader;
  proposedZxid_ = zxid;
  proposedEpoch_ = epoch;
}

void FastLeaderElection::sendNotifications() {
  // To every voter, ourselves included: our own vote comes back through the loopback and is
  // counted like anyone else's.
  Notification notification{notification_current_version, proposedLeader_, proposedZxid_, logicalclock_,
                            ServerState::looking, self_.myid(), proposedEpoch_};
  for (ServerId sid = 1; sid <= static_cast<ServerId>(self_.config().size()); sid++) manager_.toSend(sid, notification);
}

void FastLeaderElection::reply(ServerId to, const Vote& vote, std::int64_t election_epoch, ServerState state) {
  manager_.toSend(to, Notification{notification_current_version, vote.id, vote.zxid, election_epoch, state, self_.myid(), vote.peer_epoch});
}

std::size_t FastLeaderElection::countMatching(const VoteMap& votes, const Vote& vote) const {
  return static_cast<std::size_t>(std::count_if(votes.begin(), votes.end(), [&](const auto& entry) { return vote.equals(entry.second); }));
}

bool FastLeaderElection::checkLeader(const VoteMap& votes, ServerId leader, std::int64_t electionEpoch) const {
  // The leader must itself say LEADING, so that servers do not elect a crashed leader again and
  // again; a server electing itself needs the round to be current.
  if (leader != self_.myid()) {
    auto found = votes.find(leader);
    return found != votes.end() && found->second.state == ServerState::leading;
  }
  return logicalclock_ == electionEpoch;
}

Vote FastLeaderElection::decide(ServerId leader, Zxid zxid, std::int64_t electionEpoch, std::int64_t peerEpoch, const char* how) {
  self_.setPeerState(leader == self_.myid() ? ServerState::leading : ServerState::following);
  self_.sim().trace().emit(self_.id(), "fle.decide",
                           {{"leader", leader}, {"zxid", zxid}, {"round", electionEpoch}, {"peer_epoch", peerEpoch}, {"how", how}});
  recvqueue_.clear();  // leaveInstance
  return Vote{0, leader, zxid, electionEpoch, peerEpoch, ServerState::looking};
}

void FastLeaderElection::traceNotification(const Notification& n, const char* outcome) {
  self_.sim().trace().emit(self_.id(), "fle.notification",
                           {{"from", n.sid},
                            {"leader", n.leader},
                            {"zxid", n.zxid},
                            {"round", n.election_epoch},
                            {"state", server_state_name(n.state)},
                            {"peer_epoch", n.peer_epoch},
                            {"outcome", outcome}});
}

void FastLeaderElection::traceProposal(const char* reason, ServerId from) {
  self_.sim().trace().emit(self_.id(), "fle.vote",
                           {{"leader", proposedLeader_},
                            {"zxid", proposedZxid_},
                            {"peer_epoch", proposedEpoch_},
                            {"round", logicalclock_},
                            {"from", from},
                            {"reason", reason}});
}

sim::Task<std::optional<Vote>> FastLeaderElection::lookForLeader() {
  const QuorumPeerConfig& config = self_.config();
  VoteMap recvset;        // this round's votes
  VoteMap outofelection;  // votes of servers already FOLLOWING or LEADING, any round (ZOOKEEPER-1732)
  sim::Duration notTimeout = config.min_notification_interval;

  logicalclock_++;
  updateProposal(getInitId(), getInitLastLoggedZxid(), getPeerEpoch());
  traceProposal("new round: vote for ourselves", self_.myid());
  sendNotifications();

  while (self_.getPeerState() == ServerState::looking) {
    std::optional<Notification> n = co_await recvqueue_.poll(notTimeout);
    if (!n) {
      // Nothing for a while: re-send if our messages got out, else try to connect; back off.
      if (manager_.haveDelivered()) {
        sendNotifications();
      } else {
        manager_.connectAll();
      }
      notTimeout = std::min(notTimeout * 2, config.max_notification_interval);
      self_.sim().trace().emit(self_.id(), "fle.timeout", {{"next_timeout", notTimeout}});
      continue;
    }
    co_await self_.sim().sleep(config.notification_processing_time);
    switch (n->state) {
      case ServerState::looking: {
        // An untrusted empty database (zxid -1) neither votes nor is voted for.
        if (getInitLastLoggedZxid() == -1 || n->zxid == -1) {
          traceNotification(*n, "ignored: untrusted empty database");
          break;
        }
        if (n->election_epoch > logicalclock_) {
          // A newer round: forget this round's votes and start over from the better of ours and theirs.
          logicalclock_ = n->election_epoch;
          recvset.clear();
          if (totalOrderPredicate(n->leader, n->zxid, n->peer_epoch, getInitId(), getInitLastLoggedZxid(), getPeerEpoch())) {
            updateProposal(n->leader, n->zxid, n->peer_epoch);
          } else {
            updateProposal(getInitId(), getInitLastLoggedZxid(), getPeerEpoch());
          }
          traceNotification(*n, "newer round");
          traceProposal("joined a newer round", n->sid);
          sendNotifications();
        } else if (n->election_epoch < logicalclock_) {
          traceNotification(*n, "ignored: older round");
          break;  // the WorkerReceiver already answered with our vote
        } else if (totalOrderPredicate(n->leader, n->zxid, n->peer_epoch, proposedLeader_, proposedZxid_, proposedEpoch_)) {
          const char* reason = why_better(n->zxid, n->peer_epoch, proposedZxid_, proposedEpoch_);
          updateProposal(n->leader, n->zxid, n->peer_epoch);
          traceNotification(*n, "adopted");
          traceProposal(reason, n->sid);
          sendNotifications();
        } else {
          traceNotification(*n, "recorded");
        }
        recvset[n->sid] = Vote{0, n->leader, n->zxid, n->election_epoch, n->peer_epoch, ServerState::looking};

        Vote ours{0, proposedLeader_, proposedZxid_, logicalclock_, proposedEpoch_, ServerState::looking};
        std::size_t supporters = countMatching(recvset, ours);
        if (!config.is_quorum(supporters)) break;
        self_.sim().trace().emit(self_.id(), "fle.quorum", {{"leader", proposedLeader_}, {"votes", supporters}, {"round", logicalclock_}});
        // finalizeWait: give a better vote 200 ms to show up; worse ones are dropped.
        std::optional<Notification> next;
        while ((next = co_await recvqueue_.poll(config.finalize_wait))) {
          co_await self_.sim().sleep(config.notification_processing_time);
          // What finalizeWait saw, for the narration (observations: not hashed).
          if (totalOrderPredicate(next->leader, next->zxid, next->peer_epoch, proposedLeader_, proposedZxid_, proposedEpoch_)) {
            self_.sim().trace().observe(self_.id(), "why.finalize_wait",
                                        {{"outcome", "better"}, {"from", next->sid}, {"leader", next->leader}, {"wait", config.finalize_wait}});
            recvqueue_.push(*next);  // back at the tail; the election goes on
            break;
          }
          self_.sim().trace().observe(self_.id(), "why.finalize_wait",
                                      {{"outcome", "dropped"}, {"from", next->sid}, {"leader", next->leader}, {"wait", config.finalize_wait}});
        }
        if (!next) co_return decide(proposedLeader_, proposedZxid_, logicalclock_, proposedEpoch_, "quorum and finalizeWait");
        break;
      }
      case ServerState::observing: break;
      case ServerState::following:
      case ServerState::leading: {
        std::optional<Vote> decided = receivedFollowingNotification(recvset, outofelection, *n);
        if (decided) co_return decided;
        break;
      }
    }
  }
  co_return std::nullopt;
}

std::optional<Vote> FastLeaderElection::receivedFollowingNotification(VoteMap& recvset, VoteMap& outofelection,
                                                                      const Notification& n) {
  Vote theirs{n.version, n.leader, n.zxid, n.election_epoch, n.peer_epoch, n.state};
  if (n.election_epoch == logicalclock_) {
    // Same round: counted with this round's votes (stored with version 0, so they match by leader).
    recvset[n.sid] = Vote{0, n.leader, n.zxid, n.election_epoch, n.peer_epoch, n.state};
    if (self_.config().is_quorum(countMatching(recvset, theirs)) && checkLeader(recvset, n.leader, n.election_epoch)) {
      traceNotification(n, "settled: joins the ensemble");
      return decide(n.leader, n.zxid, n.election_epoch, n.peer_epoch, "same round, quorum following");
    }
  }
  // Any round: a quorum of servers that already follow one leader (which says LEADING) decides it.
  outofelection[n.sid] = theirs;
  if (self_.config().is_quorum(countMatching(outofelection, theirs)) && checkLeader(outofelection, n.leader, n.election_epoch)) {
    logicalclock_ = n.election_epoch;
    traceNotification(n, "settled: joins the established ensemble");
    return decide(n.leader, n.zxid, n.election_epoch, n.peer_epoch, "established ensemble");
  }
  traceNotification(n, "recorded (out of election)");
  return std::nullopt;
}

sim::Task<void> FastLeaderElection::workerReceiver() {
  while (true) {
    QuorumCnxManager::Message message = co_await manager_.recvQueue().pop();
    Notification n = message.notification;
    n.sid = message.sid;
    if (self_.getPeerState() == ServerState::looking) {
      recvqueue_.push(n);
      // A laggard in an older round is pulled into ours with our current proposal.
      if (n.state == ServerState::looking && n.election_epoch < logicalclock_) {
        reply(n.sid, getVote(), logicalclock_, ServerState::looking);
      }
    } else if (n.state == ServerState::looking) {
      // Not looking ourselves: tell the looker whom we follow, in the round we settled in.
      Vote current = self_.getCurrentVote();
      reply(n.sid, current, current.election_epoch, self_.getPeerState());
    }
  }
}

}  // namespace zk
