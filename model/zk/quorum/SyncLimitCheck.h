// LearnerHandler.SyncLimitCheck (3.8): how long the leader waits for a learner's ACK before it drops
// the learner ("Closing connection to peer due to transaction timeout").
//
// It does not keep every proposal in flight, only two: the current one (the oldest it knows
// unacknowledged) and the latest sent after it, which each new proposal overwrites. An ACK of the
// current one makes that latest one current, with its own send time; an ACK of the latest forgets
// it. So a learner whose ACKs trail a burst of writes is timed from the latest proposal of the
// burst, not from the oldest still unacknowledged.
#pragma once

#include <optional>

#include "model/zk/types.h"
#include "sim/time.h"

namespace zk {

class SyncLimitCheck {
 public:
  // Once the learner is synced (after NEWLEADER's ACK); proposals before it are not timed.
  void start() { started_ = true; }
  // A PROPOSAL is put on the learner's socket.
  void updateProposal(Zxid zxid, sim::Instant time) {
    if (!started_) return;
    if (!current_) {
      current_ = Sent{zxid, time};
    } else {
      next_ = Sent{zxid, time};
    }
  }
  // The learner ACKs `zxid`; only an exact match with one of the two counts.
  void updateAck(Zxid zxid) {
    if (current_ && current_->zxid == zxid) {
      current_ = next_;
      next_.reset();
    } else if (next_ && next_->zxid == zxid) {
      next_.reset();  // "ACK for ... received before ACK for ..."
    }
  }
  // At each PING: false once the current proposal has waited syncLimit ticks (in whole ms, as
  // Java's nanoTime difference / 1,000,000).
  bool check(sim::Instant now, std::int64_t sync_timeout_ms) const {
    if (!current_) return true;
    return sim::millis(now - current_->time) < sync_timeout_ms;
  }

 private:
  struct Sent {
    Zxid zxid;
    sim::Instant time;
  };
  bool started_ = false;
  std::optional<Sent> current_;
  std::optional<Sent> next_;
};

}  // namespace zk
