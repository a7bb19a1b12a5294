// TCP's retransmission timer, for one direction of a connection whose data a cut link (or a machine
// without power) is holding: it decides when that data is delivered once the way is open again.
//
// Linux (net/ipv4/tcp_timer.c, tcp_retransmit_timer; RFC 6298 §5.4-5.6) arms the timer RTO after
// the oldest unacknowledged segment was sent (tcp_rearm_rto counts from that segment's timestamp).
// Each time it fires unanswered it retransmits that segment, doubles the RTO
// (`icsk_rto = min(icsk_rto << 1, TCP_RTO_MAX)`) and re-arms. Nothing else makes the sender try
// again: a link that heals delivers nothing until the next firing, so after a long cut the held data
// waits up to the current backoff; and a write meanwhile queues behind it (after a firing the
// congestion window is one segment: tcp_enter_loss). Live mode's cut differs: a drop in the sender's
// own nftables `output` hook makes the transmit fail locally, the data never leaves, and the persist
// timer retries it on the same backoff (tcp_probe_timer, tcp_probe0_when), but the application's
// next write after the heal also flushes it at once. The model follows a cut in the network.
//
// An orphan (a connection its application closed, its FIN queued behind the data) is given up
// sooner: tcp_orphan_retries is 0 by default, read as 8 while the RTO is below TCP_RTO_MAX, and
// retransmits_timed_out / tcp_model_timeout turn 8 into ((2 << 8) - 1) * TCP_RTO_MIN = 102.2 s after
// the oldest send. At the first firing from then on the kernel drops the connection without a word
// to the peer (tcp_write_err): what it held is never delivered, and a later segment from the peer
// meets no socket and is answered with a reset.
//
// The first RTO is TCP_RTO_MIN. Linux's RTO is the smoothed RTT plus a variance floored at
// TCP_RTO_MIN, rounded up to a jiffy: `ss -ti` showed rto:204 on live mode's idle election
// connections (HZ=250, an RTT of a few µs), 208-212 on the busier Zab ones. Those few ms, doubled
// with the rest, and the timer wheel's rounding of long timers (up to 1/8 late) are not modelled.
// Nor is tcp_retries2: an open connection whose retransmissions go unanswered for 924.6 s (15 of
// them) is given up with ETIMEDOUT; no scenario here, and no swarm run of the usual lengths, cuts
// a link that long.
#pragma once

#include <algorithm>
#include <cstdint>

#include "sim/assert.h"
#include "sim/time.h"

namespace sim {

inline constexpr Duration tcp_rto_min = 200ms;  // TCP_RTO_MIN, include/net/tcp.h: HZ / 5
inline constexpr Duration tcp_rto_max = 120s;   // TCP_RTO_MAX: 120 * HZ
inline constexpr int tcp_orphan_retries = 8;    // tcp_orphan_retries() for sysctl 0 and a live RTO
inline constexpr Duration tcp_orphan_timeout = ((2 << tcp_orphan_retries) - 1) * tcp_rto_min;
static_assert(tcp_rto_min > Duration::zero());
static_assert(tcp_rto_max > tcp_rto_min);
static_assert(tcp_orphan_timeout == 102200ms);
static_assert(tcp_rto_min * (1 << tcp_orphan_retries) < tcp_rto_max);  // still "alive" when it gives up

class RetransmissionTimer {
 public:
  // Armed by the oldest unacknowledged message, sent at `oldest_send`.
  void arm(Instant oldest_send) {
    oldest_send_ = oldest_send;
    rto_ = tcp_rto_min;
    next_ = oldest_send + rto_;
  }

  Instant next() const { return next_; }
  Duration rto() const { return rto_; }
  // Whether a firing at `at` finds the connection given up, had its application closed it.
  bool orphan_given_up(Instant at) const { return at - oldest_send_ >= tcp_orphan_timeout; }

  // Moves to the first retransmission at or after `now`: every earlier one went out into the cut,
  // went unanswered and doubled the timeout. Returns its instant.
  Instant advance_to(Instant now) {
    // Doubling: at most log2(TCP_RTO_MAX / TCP_RTO_MIN) + 1 = 11 rounds.
    while (next_ < now && rto_ < tcp_rto_max) {
      rto_ = std::min(rto_ * 2, tcp_rto_max);
      next_ += rto_;
    }
    if (next_ < now) {
      // Capped: one retransmission every TCP_RTO_MAX, counted at once however long the cut was.
      ELECTSIM_ASSERT(rto_ == tcp_rto_max);
      std::int64_t lost = (now - next_ + tcp_rto_max - Duration{1}) / tcp_rto_max;
      next_ += lost * tcp_rto_max;
    }
    ELECTSIM_ASSERT(next_ >= now);
    ELECTSIM_ASSERT(next_ - now <= rto_);
    return next_;
  }

 private:
  Instant oldest_send_ = epoch;
  Instant next_ = epoch;
  Duration rto_ = tcp_rto_min;
};

}  // namespace sim
