// Bug switches for the Curator model: each re-introduces a known mistake. All are off by default,
// and off means Curator 5.x as it ships today (5.8+ for LeaderLatch, see LeaderLatch.h).
#pragma once

namespace curator {

struct CuratorBugs {
  // LeaderLatch keeps its leadership through SUSPENDED and LOST (Netflix/curator#216, CURATOR-444);
  // a LeaderSelector listener that never asks for cancellation. Split brain from the moment the
  // server expires the session until the partitioned client reconnects.
  bool latch_ignores_connection_loss = false;
  // Every contender watches the latch parent's children instead of its predecessor (the herd
  // effect of source 003): each membership change notifies every contender. Also applies to the
  // mutex under LeaderSelector.
  bool latch_watches_parent = false;
  // The latch (and the mutex) create their EPHEMERAL_SEQUENTIAL node without withProtection():
  // a connection loss after the server applied the create makes the retry create a second node,
  // and the first one, owned by the live session, blocks the queue (CURATOR-45, CURATOR-79).
  bool latch_unprotected_create = false;
  // CURATOR-696 (5.4.0-5.6.x): at index 0 the latch takes leadership without checking that its
  // node's ephemeralOwner is the current session, so a node left by an older session is trusted.
  bool curator_696_no_owner_check = false;
};

}  // namespace curator
