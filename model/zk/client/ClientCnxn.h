// ClientCnxn: the Java client's connection to the ensemble (ZooKeeper 3.8), with its SendThread
// and EventThread.
//
//  - Servers are tried in a shuffled order (StaticHostProvider), with a random 0..1 s sleep before
//    every attempt but the first and an extra second after a full unsuccessful lap.
//  - An attempt must complete its handshake within connectTimeout = sessionTimeout / servers.
//  - Connected, it pings after readTimeout/2 of send idleness (readTimeout = 2/3 of the negotiated
//    timeout) and gives up on a server it has not heard from for readTimeout: Disconnected, and
//    every pending request fails with CONNECTIONLOSS.
//  - It learns that its session expired only when a server answers a reconnect with timeout 0:
//    then Expired, and the handle is dead (3.8 has no client-side expiry timer).
//  - Watches are kept here and re-registered after every reconnect (SetWatches with the last zxid
//    seen), so the server can fire what changed meanwhile. Persistent watches (addWatch) stay
//    after they fire; a recursive one hears of every node below its path (ZKWatchManager).
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <variant>
#include <vector>

#include "model/zk/ClientPacket.h"
#include "model/zk/PendingMap.h"
#include "sim/network.h"
#include "sim/node.h"
#include "sim/random.h"
#include "sim/ring.h"

namespace zk {

using Watcher = std::function<void(const WatchedEvent&)>;

// ZooKeeper.WatchRegistration: the watch a request asks for, registered by the SendThread while it
// reads the reply (ClientCnxn.finishPacket), before it reads any later packet. A notification right
// behind the reply therefore always finds its watcher.
struct WatchRegistration {
  // persistent / persistent_recursive: addWatch (3.6+, AddWatchRegistration), registered on OK.
  enum class Kind : std::uint8_t { none, data, exists, child, persistent, persistent_recursive };
  // Not an aggregate on purpose: GCC 12 miscopies a braced aggregate temporary passed by value
  // into a coroutine (see docs/engine.md, "Compiler pitfalls").
  WatchRegistration() {}
  Kind kind = Kind::none;
  std::string path;
  Watcher watcher;
};

class ClientCnxn {
 public:
  enum class States : std::uint8_t { connecting, connected, closed, not_connected };

  ClientCnxn(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, Watcher defaultWatcher,
             std::uint64_t seed);
  ~ClientCnxn();
  ClientCnxn(const ClientCnxn&) = delete;

  void start();
  // Sends closeSession if connected and waits for its reply; the handle is closed afterwards.
  sim::Task<void> close();
  // Closed at once without a word to the server (ZooKeeperTestable.injectSessionExpiration): the
  // socket is closed, so the server sees the connection drop and the session expire later.
  void closeLocally();

  States state() const { return state_; }
  bool connected() const { return state_ == States::connected; }
  bool closed() const { return state_ == States::closed; }
  SessionId getSessionId() const { return sessionId_; }
  sim::Duration getNegotiatedTimeout() const { return negotiatedTimeout_; }
  Zxid lastZxid() const { return lastZxid_; }
  sim::NodeId currentServer() const { return currentServer_; }

  // The wait for one request's reply: `co_await` gives the ClientReply. Not a coroutine, so a
  // request in flight costs its caller no frame of its own (a frame here was 1.3 kB, the largest of
  // an outstanding read's). It waits in place: it is neither copied nor moved.
  class ReplyAwaiter {
   public:
    ReplyAwaiter(sim::Simulation& sim, sim::Future<ClientReply> reply) : reply_(std::move(reply)), wait_(reply_.wait(sim)) {}
    ReplyAwaiter(const ReplyAwaiter&) = delete;
    ReplyAwaiter& operator=(const ReplyAwaiter&) = delete;
    bool await_ready() { return wait_.await_ready(); }
    void await_suspend(std::coroutine_handle<> handle) { wait_.await_suspend(handle); }
    ClientReply await_resume();

   private:
    sim::Future<ClientReply> reply_;
    sim::Future<ClientReply>::ValueAwaiter wait_;  // refers to reply_
  };

  // A queued request's reply to come. It moves (a zk::Async carries it to its caller) until it is
  // awaited; awaiting it makes the ReplyAwaiter in the caller's frame.
  class PendingReply {
   public:
    PendingReply(sim::Simulation& sim, sim::Future<ClientReply> reply) : sim_(&sim), reply_(std::move(reply)) {}
    ReplyAwaiter operator co_await() && { return ReplyAwaiter(*sim_, std::move(reply_)); }
    // The same awaiter, made in a slot of the awaiting frame (it cannot move there).
    ReplyAwaiter& awaitIn(std::optional<ReplyAwaiter>& slot) && { return slot.emplace(*sim_, std::move(reply_)); }

   private:
    sim::Simulation* sim_;
    sim::Future<ClientReply> reply_;
  };

  // Queues a request at once (sent now if connected, else once connected); await the result for
  // its reply. A disconnect fails it with CONNECTIONLOSS; a dead handle with SESSIONEXPIRED.
  // `watch` is registered when the reply is read, if its code allows (see registerWatch).
  // Callers await it in the same expression, as they would the Java call.
  [[nodiscard]] PendingReply submitRequest(ClientRequest&& request, WatchRegistration&& watch = WatchRegistration());

  // The same request with its reply handed to a function, as ZooKeeper's asynchronous API hands it
  // to an AsyncCallback: nothing waits in a coroutine while it is in flight (in a burst of
  // notifications, a cache has one read in flight per changed node). The callback runs in an event
  // of its own at the instant the reply is read, which is when an awaiting coroutine would be
  // resumed, so the two forms order everything alike; at once when the handle is closed, as an
  // awaiter would go on at once; never once the node has crashed or restarted.
  // Java's DataCallback and ChildrenCallback, held as they are and handed the result made from the
  // reply. (Wrapped in a callback of the reply, each read in flight held a second allocation: a
  // burst holds one read per changed node and cache, 32 MB of 630 in burst-100x10000.)
  using DataCallback = std::function<void(DataResult)>;
  using ChildrenCallback = std::function<void(ChildrenResult)>;
  void submitRequest(ClientRequest&& request, WatchRegistration&& watch, DataCallback&& callback);
  void submitRequest(ClientRequest&& request, WatchRegistration&& watch, ChildrenCallback&& callback);

 private:
  // Who is told of a reply: an awaiting coroutine, through its promise, or a callback.
  using ReplyTarget = std::variant<sim::Promise<ClientReply>, DataCallback, ChildrenCallback>;
  // Hands a callback target's callback and the result made from `reply` to `give`.
  template <class Give>
  static void withResult(ReplyTarget& target, ClientReply&& reply, Give&& give);
  // A request's watch, held on the heap only when there is one: most requests set none, and every
  // request in flight keeps its Pending entry (a burst of notifications has a read in flight per
  // changed node in every cache; 56 B an entry instead of 120).
  using HeldWatch = std::unique_ptr<WatchRegistration>;
  static HeldWatch hold(WatchRegistration&& watch);
  struct Outgoing {
    // Not an aggregate: Ring::emplace_back builds it in place with parentheses, which clang 14
    // does not accept for aggregates (C++20's P0960).
    Outgoing(ClientRequest&& request_to_send, ReplyTarget&& reply_to_give, HeldWatch&& watch_to_register)
        : request(std::move(request_to_send)), reply(std::move(reply_to_give)), watch(std::move(watch_to_register)) {}
    ClientRequest request;
    ReplyTarget reply;
    HeldWatch watch;  // null: none
  };
  struct Pending {
    ReplyTarget reply;
    HeldWatch watch;  // null: none
  };

  // Requests and replies are large values: each layer takes them by reference to an rvalue, so a
  // request moves once into its ring slot, not once per call it passes through.
  void enqueue(ClientRequest&& request, ReplyTarget&& reply, WatchRegistration&& watch);
  void answer(ReplyTarget& target, ClientReply&& reply);

  sim::Task<void> sendThread();
  sim::Task<void> eventThread();
  sim::Task<bool> startConnect();
  sim::Task<void> connectedLoop();
  void sendOutgoing();
  void transmit(ClientRequest&& request, ReplyTarget&& reply, HeldWatch&& watch);  // one request, sent now
  void readResponse(ClientPacket& packet);
  void registerWatch(HeldWatch watch, Code err);
  void cleanup(Code reason);
  void queueEvent(WatchedEvent event, std::vector<Watcher> watchers);
  void queueSessionEvent(KeeperState state);
  std::vector<Watcher> materialize(const WatchedEvent& event);
  sim::Node& owner() const { return owner_; }
  sim::Simulation& sim() const { return owner_.sim(); }
  void trace_state(const char* state);

  sim::Node& owner_;
  std::vector<sim::NodeId> servers_;  // shuffled once (StaticHostProvider)
  sim::Duration sessionTimeout_;      // requested; the ConnectRequest always carries it
  sim::Duration negotiatedTimeout_{0};
  sim::Duration readTimeout_;
  sim::Duration connectTimeout_;
  Watcher defaultWatcher_;
  sim::Rng rng_;

  States state_ = States::not_connected;
  bool closing_ = false;
  SessionId sessionId_ = 0;
  std::uint64_t password_ = 0;
  Zxid lastZxid_ = 0;
  std::int32_t xid_ = 1;
  int currentIndex_ = -1;
  int lastIndex_ = -1;
  bool firstConnect_ = true;
  sim::NodeId currentServer_ = sim::no_node;
  sim::Socket<ClientPacket> socket_;
  sim::Instant lastSend_;
  sim::Instant lastHeard_;

  // Not sent yet. A ring rather than a std::deque, whose chunk holds a single Outgoing (it is that
  // large), so each request cost a chunk allocation.
  sim::Ring<Outgoing> outgoing_;
  PendingMap<std::int32_t, Pending> pending_;  // sent, waiting for the reply
  std::map<std::string, std::vector<Watcher>> dataWatches_;
  std::map<std::string, std::vector<Watcher>> existWatches_;
  std::map<std::string, std::vector<Watcher>> childWatches_;
  std::map<std::string, std::vector<Watcher>, std::less<>> persistentWatches_;
  std::map<std::string, std::vector<Watcher>, std::less<>> persistentRecursiveWatches_;  // looked up by parent views

  struct Event {
    WatchedEvent event;
    std::vector<Watcher> watchers;
  };
  sim::Queue<Event> events_;
  KeeperState lastSessionState_ = KeeperState::disconnected;
  bool sessionStateQueued_ = false;
  sim::Condition outgoingReady_;
  std::unique_ptr<sim::Scope> threads_;
};

}  // namespace zk
