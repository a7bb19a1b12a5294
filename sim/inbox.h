// An Inbox gathers what several sockets receive into one FIFO with one reader: a selector over their
// receive buffers, like the single recvQueue ZooKeeper's QuorumCnxManager feeds from every peer.
// A socket attached to an inbox is no longer read directly; its messages, and its close, arrive in
// the inbox as envelopes that say which socket (and which peer) they came from.
#pragma once

#include <cstdint>
#include <optional>
#include <tuple>
#include <vector>

#include "sim/ring.h"
#include "sim/wait.h"

namespace sim {

class Network;

template <class M>
struct Envelope {
  std::uint32_t socket = 0;  // Socket::id() of the socket it came through
  NodeId from = no_node;     // the peer node
  std::optional<M> message;  // empty: the peer closed the connection

  bool closed() const { return !message.has_value(); }
};

template <class M>
class Inbox {
 public:
  explicit Inbox(Simulation& sim) : sim_(sim) {}
  Inbox(const Inbox&) = delete;
  Inbox& operator=(const Inbox&) = delete;
  ~Inbox();

  bool ready() const { return !items_.empty(); }
  WaitList& wait_list() { return waiters_; }
  std::size_t size() const { return items_.size(); }

  class ReceiveAwaiter {
   public:
    ReceiveAwaiter(Inbox& inbox, std::optional<Instant> deadline) : inbox_(inbox), group_(inbox.sim_), deadline_(deadline) {}
    ReceiveAwaiter(const ReceiveAwaiter&) = delete;
    bool await_ready() { return !inbox_.items_.empty(); }
    void await_suspend(std::coroutine_handle<> handle) {
      group_.suspend(handle);
      entry_.group = &group_;
      entry_.slot = &envelope_;
      inbox_.waiters_.push_back(entry_);
      if (deadline_) group_.arm_deadline(*deadline_);
    }
    std::optional<Envelope<M>> await_resume() {
      entry_.unlink();
      if (envelope_) return std::move(envelope_);
      if (!inbox_.items_.empty()) return inbox_.items_.pop_front();
      return std::nullopt;  // timed out
    }

   private:
    Inbox& inbox_;
    WaitGroup group_;
    WaitEntry entry_;
    std::optional<Envelope<M>> envelope_;
    std::optional<Instant> deadline_;
  };

  struct TakeAwaiter : ReceiveAwaiter {
    explicit TakeAwaiter(Inbox& inbox) : ReceiveAwaiter(inbox, std::nullopt) {}
    Envelope<M> await_resume() {
      std::optional<Envelope<M>> envelope = ReceiveAwaiter::await_resume();
      ELECTSIM_ASSERT(envelope.has_value());
      return std::move(*envelope);
    }
  };

  // co_await inbox.receive() -> Envelope<M>
  TakeAwaiter receive() { return TakeAwaiter(*this); }
  // co_await inbox.receive(timeout) -> std::optional<Envelope<M>>, empty on timeout
  ReceiveAwaiter receive(Duration timeout) { return ReceiveAwaiter(*this, sim_.now() + timeout); }

  // ---- used by the network ----
  // Hands the envelope to the waiting reader or buffers it. From a top-level handler (a delivery)
  // the reader resumes at once; otherwise its resumption is scheduled.
  void deliver(Envelope<M> envelope, bool from_handler) {
    while (WaitEntry* entry = waiters_.front()) {
      entry->unlink();
      if (entry->group->fired()) continue;
      *static_cast<std::optional<Envelope<M>>*>(entry->slot) = std::move(envelope);
      if (from_handler) {
        entry->group->wake_from_handler(entry->index);
      } else {
        entry->group->wake(entry->index);
      }
      return;
    }
    items_.push_back(std::move(envelope));
  }
  // The delivery fast path: the message goes straight from the connection into the waiting
  // reader's slot (no intermediate envelope on the stack), and the reader resumes at once.
  void deliver_message_from_handler(std::uint32_t socket, NodeId from, M&& message) {
    while (WaitEntry* entry = waiters_.front()) {
      entry->unlink();
      if (entry->group->fired()) continue;
      auto& slot = *static_cast<std::optional<Envelope<M>>*>(entry->slot);
      slot.emplace();
      slot->socket = socket;
      slot->from = from;
      slot->message.emplace(std::move(message));
      entry->group->wake_from_handler(entry->index);
      return;
    }
    Envelope<M>& buffered = items_.emplace_back();
    buffered.socket = socket;
    buffered.from = from;
    buffered.message.emplace(std::move(message));
  }
  void attached(Network& network, std::uint32_t index, std::uint32_t generation, int side) {
    network_ = &network;
    attached_.emplace_back(index, generation, side);
  }

 private:
  Simulation& sim_;
  Network* network_ = nullptr;
  Ring<Envelope<M>> items_;
  WaitList waiters_;
  std::vector<std::tuple<std::uint32_t, std::uint32_t, int>> attached_;
};

}  // namespace sim
