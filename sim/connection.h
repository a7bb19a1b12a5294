// A connection's two endpoints and two directions, and what travels them (sim/network.h's
// internals): the in-flight items of each direction with their send instants, the receive buffers,
// and per direction the FIFO bookkeeping and the retransmission timer of data a cut link holds.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <utility>

#include "sim/hash_fold.h"
#include "sim/inbox.h"
#include "sim/random.h"
#include "sim/retransmission.h"
#include "sim/ring.h"
#include "sim/simulation.h"
#include "sim/time.h"
#include "sim/wait.h"

namespace sim {

// What a receive gives back.
template <class M>
struct Received {
  enum class Status : std::uint8_t { message, closed, timed_out };
  Status status = Status::closed;
  std::optional<M> message;

  explicit operator bool() const { return status == Status::message; }
  bool closed() const { return status == Status::closed; }
  bool timed_out() const { return status == Status::timed_out; }
  M& operator*() { return *message; }
  M* operator->() { return &*message; }
};

// What the systematic search's state hash (harness/systematic.h) sees of a message in flight or
// unread: by default only that there is one; a message type says more by declaring
// `std::uint64_t state_digest(const M&)` where argument-dependent lookup finds it.
template <class M>
concept HasStateDigest = requires(const M& message) {
  { state_digest(message) } -> std::convertible_to<std::uint64_t>;
};

template <class M>
std::uint64_t message_state_digest(const M& message) {
  if constexpr (HasStateDigest<M>) {
    return state_digest(message);
  } else {
    return 1;
  }
}

namespace detail {

struct Endpoint {
  NodeId node = no_node;
  bool open = false;        // the application still holds it
  // Its kernel has no socket for it any more: its machine lost power (silent while off), or it gave
  // up retransmitting what its closed application left (Network::give_up_orphan). A segment that
  // reaches it while its machine is on gets a reset.
  bool dead = false;
  bool peer_closed = false; // the peer's FIN (or RST) has arrived
  WaitList receivers;
  void* inbox = nullptr;    // an Inbox<M> this endpoint is attached to
};

struct Direction {
  Instant last_delivery = epoch;
  // Stalled: what was sent this way waits for a retransmission (the link was cut, or the receiver's
  // machine dark, when a delivery came due). Every delivery that comes due meanwhile is held, also
  // after the heal, until the retransmission timer fires with the way open: FIFO, as TCP's stream.
  std::uint32_t held = 0;  // deliveries that came due while stalled
  bool stalled = false;
  bool retransmission_queued = false;  // the way reopened: the timer's next firing is an event
  RetransmissionTimer retransmission;
  // The deliveries to come this way, earliest first (FIFO makes their instants non-decreasing).
  // Only the first is an event in the simulation's queue (`next_delivery`, while
  // `delivery_queued`); the instants of the others wait in `later_deliveries`. Its handler makes
  // every delivery due at that instant and queues the next later one. One event per message sent
  // made the queue's pool the size of everything in flight: 40 B a message (42 MB at the peak of
  // burst-100x10000, where 8 B here). The first is kept out of the ring: most directions carry one
  // message at a time, and the ring's push and pop for each cost 1.6% of an exploration's
  // instructions. A reset's discard leaves them, as it left the events: each then finds nothing.
  bool delivery_queued = false;
  Instant next_delivery = epoch;
  Ring<Instant, 256> later_deliveries;
  // The message trace's FIFO counters (only counted while it is on): the n-th item pushed this way
  // is the n-th taken off, so a reader pairs a send with its delivery or drop by (connection, seq).
  std::uint32_t traced_pushed = 0;
  std::uint32_t traced_taken = 0;
};

class ConnectionBase {
 public:
  ConnectionBase(std::uint32_t index, std::uint32_t generation, NodeId client, NodeId server, std::uint64_t seed)
      : index(index), generation(generation), rng(seed) {
    ends[0].node = client;
    ends[1].node = server;
    ends[0].open = ends[1].open = true;
  }
  virtual ~ConnectionBase() = default;
  enum class Delivered : std::uint8_t { nothing, message, close };
  // Moves the front in-flight item (if any: a reset may have discarded it) to the receiving endpoint.
  virtual Delivered deliver_front(int direction) = 0;
  virtual void drop_front(int direction) = 0;
  virtual std::size_t in_flight(int direction) const = 0;
  // When the front in-flight item was sent: the oldest unacknowledged data, which arms the
  // retransmission timer. There must be one.
  virtual Instant front_sent(int direction) const = 0;
  virtual void push_close(int direction, Instant sent) = 0;  // a FIN or RST travelling this way
  // The messages (and closes) travelling `direction` and those its receiver has not read yet, for
  // the systematic search's state hash; only asked for there.
  virtual std::uint64_t state_digest(int direction) const = 0;

  std::uint32_t index;
  std::uint32_t generation;
  std::array<Endpoint, 2> ends;
  std::array<Direction, 2> directions;
  SmallRng rng;
};

template <class M>
class Connection final : public ConnectionBase {
 public:
  // In-flight storage is made when the connection opens, so sending allocates nothing.
  static constexpr std::size_t in_flight_reserved = 4;

  Connection(std::uint32_t index, std::uint32_t generation, NodeId client, NodeId server, std::uint64_t seed)
      : ConnectionBase(index, generation, client, server, seed) {
    in_flight_[0].reserve(in_flight_reserved);
    in_flight_[1].reserve(in_flight_reserved);
    directions[0].later_deliveries.reserve(in_flight_reserved);
    directions[1].later_deliveries.reserve(in_flight_reserved);
  }

  Delivered deliver_front(int direction) override {
    auto& in_flight = in_flight_[direction];
    if (in_flight.empty()) return Delivered::nothing;
    Endpoint& receiver = ends[1 - direction];
    std::optional<M>& item = in_flight.front().item;
    if (!item) {
      in_flight.drop_front();
      receiver.peer_closed = true;
      if (receiver.inbox != nullptr) {
        static_cast<Inbox<M>*>(receiver.inbox)->deliver(Envelope<M>{index, ends[direction].node, std::nullopt}, true);
      } else {
        receiver.receivers.wake_all();  // blocked reads see the close
      }
      return Delivered::close;
    }
    if (receiver.inbox != nullptr) {
      M message = std::move(*item);
      in_flight.drop_front();
      static_cast<Inbox<M>*>(receiver.inbox)->deliver_message_from_handler(index, ends[direction].node, std::move(message));
      return Delivered::message;  // `this` may be gone: the reader ran
    }
    // Hand the message straight to a blocked reader, else buffer it (the kernel's receive buffer).
    // Either way it moves once, from the in-flight slot to where it is read.
    while (WaitEntry* entry = receiver.receivers.front()) {
      entry->unlink();
      if (entry->group->fired()) continue;
      auto* slot = static_cast<Received<M>*>(entry->slot);
      slot->status = Received<M>::Status::message;
      slot->message.emplace(std::move(*item));
      in_flight.drop_front();
      entry->group->wake_from_handler(entry->index);  // `this` may be gone after it returns
      return Delivered::message;
    }
    received_[1 - direction].push_back(std::move(*item));
    in_flight.drop_front();
    return Delivered::message;
  }
  void drop_front(int direction) override { in_flight_[direction].drop_front(); }
  std::size_t in_flight(int direction) const override { return in_flight_[direction].size(); }
  Instant front_sent(int direction) const override {
    ELECTSIM_ASSERT(!in_flight_[direction].empty());
    return in_flight_[direction][0].sent;
  }
  void push_close(int direction, Instant sent) override { in_flight_[direction].emplace_back(sent, std::nullopt); }
  std::uint64_t state_digest(int direction) const override {
    std::uint64_t digest = hash_fold(0x5eed, in_flight_[direction].size());
    for (std::size_t at = 0; at < in_flight_[direction].size(); at++) {
      const std::optional<M>& item = in_flight_[direction][at].item;
      digest = hash_fold(digest, item ? message_state_digest(*item) : 2);
    }
    const Ring<M>& unread = received_[1 - direction];
    digest = hash_fold(digest, unread.size());
    for (std::size_t at = 0; at < unread.size(); at++) digest = hash_fold(digest, message_state_digest(unread[at]));
    return digest;
  }

  // The message is made in place from `part` (M itself, or what M is made from).
  template <class Part>
  const M& push(int direction, Instant sent, Part&& part) {
    return *in_flight_[direction].emplace_back(sent, std::in_place, std::forward<Part>(part)).item;
  }
  Ring<M>& received(int side) { return received_[side]; }

 private:
  // A message, or a FIN or RST (empty), and when it was sent. Constructors, not an aggregate:
  // Ring::emplace_back builds with parentheses, which clang 14 rejects for aggregates; and the
  // message moves once, straight into place.
  struct InFlight {
    template <class Part>
    InFlight(Instant sent, std::in_place_t, Part&& part) : sent(sent), item(std::in_place, std::forward<Part>(part)) {}
    InFlight(Instant sent, std::nullopt_t) : sent(sent) {}
    Instant sent;
    std::optional<M> item;
  };
  // Small blocks: a connection usually has a message or two in flight, and a run may have
  // thousands of connections (sim/ring.h).
  static constexpr std::size_t in_flight_block_bytes = 256;
  std::array<Ring<InFlight, in_flight_block_bytes>, 2> in_flight_;
  std::array<Ring<M>, 2> received_;
};

}  // namespace detail

}  // namespace sim
