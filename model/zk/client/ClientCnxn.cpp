#include "model/zk/client/ClientCnxn.h"

#include <algorithm>
#include <array>

#include "model/zk/quorum/QuorumPeerConfig.h"

namespace zk {

namespace {
constexpr sim::Duration spin_delay = 1000ms;             // StaticHostProvider.next(1000) after a full lap
constexpr sim::Duration max_send_ping_interval = 10000ms;  // ClientCnxn.MAX_SEND_PING_INTERVAL
}  // namespace

ClientCnxn::ClientCnxn(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, Watcher defaultWatcher,
                       std::uint64_t seed)
    : owner_(owner),
      servers_(std::move(servers)),
      sessionTimeout_(sessionTimeout),
      defaultWatcher_(std::move(defaultWatcher)),
      rng_(seed),
      events_(owner.sim(), 1 << 16),
      outgoingReady_(owner.sim()) {
  ELECTSIM_ASSERT(!servers_.empty());
  ELECTSIM_ASSERT(sessionTimeout > sim::Duration::zero());
  // StaticHostProvider shuffles the connect string once.
  for (std::size_t i = servers_.size(); i > 1; i--) std::swap(servers_[i - 1], servers_[rng_.pick(static_cast<std::uint32_t>(i))]);
  readTimeout_ = sessionTimeout_ * 2 / 3;
  connectTimeout_ = sessionTimeout_ / static_cast<std::int64_t>(servers_.size());
}

ClientCnxn::~ClientCnxn() { threads_.reset(); }

void ClientCnxn::start() {
  ELECTSIM_ASSERT(threads_ == nullptr);
  threads_ = std::make_unique<sim::Scope>(sim(), owner_.id());
  state_ = States::connecting;
  threads_->spawn(sendThread());
  threads_->spawn(eventThread());
}

void ClientCnxn::trace_state(const char* state) {
  sim().trace().emit(owner_.id(), "client.state", {{"layer", "zookeeper"}, {"state", state}, {"session", sessionId_}, {"server", currentServer_}});
}

ClientCnxn::PendingReply ClientCnxn::submitRequest(ClientRequest&& request, WatchRegistration&& watch) {
  sim::Promise<ClientReply> promise;
  sim::Future<ClientReply> reply = promise.get_future();
  enqueue(std::move(request), std::move(promise), std::move(watch));
  return PendingReply(sim(), std::move(reply));
}

void ClientCnxn::submitRequest(ClientRequest&& request, WatchRegistration&& watch, DataCallback&& callback) {
  ELECTSIM_ASSERT(callback);
  enqueue(std::move(request), std::move(callback), std::move(watch));
}

void ClientCnxn::submitRequest(ClientRequest&& request, WatchRegistration&& watch, ChildrenCallback&& callback) {
  ELECTSIM_ASSERT(callback);
  enqueue(std::move(request), std::move(callback), std::move(watch));
}

template <class Give>
void ClientCnxn::withResult(ReplyTarget& target, ClientReply&& reply, Give&& give) {
  if (auto* data = std::get_if<DataCallback>(&target)) {
    give(*data, DataResult::from(std::move(reply)));
  } else {
    give(std::get<ChildrenCallback>(target), ChildrenResult::from(std::move(reply)));
  }
}

// Inlined into both callers: as a call of its own it took back 0.5% of an exploration's instructions.
[[gnu::always_inline]] inline void ClientCnxn::transmit(ClientRequest&& request, ReplyTarget&& reply, HeldWatch&& watch) {
  // The request moves once, onto the socket; its reply waits in pending_ under its xid.
  const std::int32_t xid = request.xid;
  socket_.send(std::move(request));
  pending_.emplace(xid, Pending{std::move(reply), std::move(watch)});
  lastSend_ = sim().now();
}

void ClientCnxn::enqueue(ClientRequest&& request, ReplyTarget&& reply, WatchRegistration&& watch) {
  if (state_ == States::closed || closing_) {
    // queuePacket: `if (!state.isAlive() || closing) conLossPacket(packet)`, which answers
    // SESSIONEXPIRED once CLOSED and CONNECTIONLOSS while the close is under way.
    ClientReply expired;
    expired.xid = request.xid;
    expired.err = state_ == States::closed ? Code::session_expired : Code::connection_loss;
    // Answered now: an awaiter finds its reply ready, a callback is called before this returns.
    if (auto* promise = std::get_if<sim::Promise<ClientReply>>(&reply)) {
      promise->set_value(std::move(expired));
    } else {
      withResult(reply, std::move(expired), [](auto& callback, auto&& result) { callback(std::move(result)); });
    }
    return;
  }
  request.xid = xid_++;
  if (state_ == States::connected && outgoing_.empty()) {
    // Nothing waits to be sent: straight onto the socket, as sendOutgoing would send it.
    transmit(std::move(request), std::move(reply), hold(std::move(watch)));
    return;
  }
  // Made in its ring slot (no Outgoing temporary to move from): the request is a large value.
  outgoing_.emplace_back(std::move(request), std::move(reply), hold(std::move(watch)));
  if (state_ == States::connected) sendOutgoing();
}

ClientCnxn::HeldWatch ClientCnxn::hold(WatchRegistration&& watch) {
  if (watch.kind == WatchRegistration::Kind::none || !watch.watcher) return nullptr;
  return std::make_unique<WatchRegistration>(std::move(watch));
}

void ClientCnxn::answer(ReplyTarget& target, ClientReply&& reply) {
  if (auto* promise = std::get_if<sim::Promise<ClientReply>>(&target)) {
    promise->set_value(std::move(reply));
    return;
  }
  // What Promise::set_value does for its awaiter: an event at this instant, for the owner's node.
  withResult(target, std::move(reply), [this](auto& callback, auto&& result) {
    sim().schedule_callback(sim().now(), owner_.id(),
                            [callback = std::move(callback), result = std::move(result)]() mutable { callback(std::move(result)); });
  });
}

ClientReply ClientCnxn::ReplyAwaiter::await_resume() {
  try {
    return wait_.await_resume();
  } catch (const sim::BrokenPromise&) {
    ClientReply lost;
    lost.err = Code::connection_loss;  // the handle went away with the request
    return lost;
  }
}

void ClientCnxn::sendOutgoing() {
  while (!outgoing_.empty()) {
    // Taken apart in place (a send wakes no one before this loop ends).
    Outgoing& next = outgoing_.front();
    transmit(std::move(next.request), std::move(next.reply), std::move(next.watch));
    outgoing_.drop_front();
  }
}

void ClientCnxn::cleanup(Code reason) {
  // Everything sent or waiting to be sent fails: the caller cannot know whether a write happened.
  socket_.close();
  // A failed request registers no watch (WatchRegistration.shouldAddWatch wants OK, or NONODE for exists).
  PendingMap<std::int32_t, Pending> pending = std::move(pending_);
  sim::Ring<Outgoing> outgoing = std::move(outgoing_);
  for (auto& [xid, waiting] : pending) {
    ClientReply reply;
    reply.xid = xid;
    reply.err = reason;
    answer(waiting.reply, std::move(reply));
  }
  for (std::size_t i = 0; i < outgoing.size(); i++) {
    Outgoing& request = outgoing[i];
    ClientReply reply;
    reply.xid = request.request.xid;
    reply.err = reason;
    answer(request.reply, std::move(reply));
  }
}

sim::Task<void> ClientCnxn::sendThread() {
  while (!closing_ && state_ != States::closed) {
    bool connected_now = co_await startConnect();
    if (state_ == States::closed) break;
    if (!connected_now) {
      cleanup(Code::connection_loss);
      continue;
    }
    co_await connectedLoop();
    if (state_ == States::closed) break;
    if (closing_) {
      // SendThread.run: the connection ended while closing, so the loop ends and cleanup() fails
      // what is pending, the closeSession too: close() returns at once instead of waiting on.
      cleanup(Code::connection_loss);
      break;
    }
    state_ = States::connecting;
    cleanup(Code::connection_loss);
    trace_state("DISCONNECTED");
    queueSessionEvent(KeeperState::disconnected);
  }
}

sim::Task<bool> ClientCnxn::startConnect() {
  // StaticHostProvider.next: round robin; a full lap back to the last good server waits a second.
  int size = static_cast<int>(servers_.size());
  currentIndex_ = (currentIndex_ + 1) % size;
  if (lastIndex_ == -1) {
    lastIndex_ = 0;
  } else if (currentIndex_ == lastIndex_) {
    co_await sim().sleep(spin_delay);
  }
  // ClientCnxn.startConnect: a random pause before every attempt once a connection has been made;
  // isFirstConnect only turns false in primeConnection, so attempts at servers that refuse or time
  // out before the first connection are made without it.
  if (!firstConnect_) co_await sim().sleep(std::chrono::milliseconds(rng_.uniform(0, 999)));
  if (closing_) co_return false;
  currentServer_ = servers_[static_cast<std::size_t>(currentIndex_)];
  sim::Instant attempt_start = sim().now();
  auto socket = co_await sim().network().connect<ClientPacket>(currentServer_, client_port, connectTimeout_);
  if (!socket) co_return false;
  socket_ = std::move(*socket);
  // close() may have run during the awaits: a closed handle must never connect again.
  if (closing_ || state_ == States::closed) {
    socket_.close();
    co_return false;
  }

  // SendThread.primeConnection, which runs once the TCP connection is up.
  firstConnect_ = false;
  ConnectRequest connect;
  connect.last_zxid_seen = lastZxid_;
  connect.timeout_ms = static_cast<std::int32_t>(sim::millis(sessionTimeout_));
  connect.session_id = sessionId_;
  connect.password = password_;
  socket_.send(connect);
  lastSend_ = sim().now();
  sim::Duration remaining = connectTimeout_ - (sim().now() - attempt_start);
  if (remaining <= sim::Duration::zero()) co_return false;
  sim::Received<ClientPacket> received = co_await socket_.receive(remaining);
  if (!received) co_return false;  // the server is not serving (or refused us), or it was silent
  const auto* response = std::get_if<ConnectResponse>(&*received.message);
  if (response == nullptr) co_return false;
  if (closing_ || state_ == States::closed) {
    socket_.close();
    co_return false;
  }

  if (response->timeout_ms <= 0) {
    // The session is gone: the only way a 3.8 client learns it expired.
    state_ = States::closed;
    trace_state("EXPIRED");
    queueSessionEvent(KeeperState::expired);
    cleanup(Code::session_expired);
    co_return false;
  }
  negotiatedTimeout_ = std::chrono::milliseconds(response->timeout_ms);
  readTimeout_ = negotiatedTimeout_ * 2 / 3;
  connectTimeout_ = negotiatedTimeout_ / static_cast<std::int64_t>(servers_.size());
  sessionId_ = response->session_id;
  password_ = response->password;
  lastIndex_ = currentIndex_;
  state_ = States::connected;
  lastHeard_ = sim().now();
  trace_state("CONNECTED");
  queueSessionEvent(KeeperState::sync_connected);

  // primeConnection: re-register watches with the last zxid seen, ahead of any request.
  // SetWatches2 when persistent watches are held (3.6+).
  if (!dataWatches_.empty() || !existWatches_.empty() || !childWatches_.empty() || !persistentWatches_.empty() ||
      !persistentRecursiveWatches_.empty()) {
    ClientRequest setWatches;
    setWatches.xid = set_watches_xid;
    setWatches.type = OpCode::set_watches;
    auto lists = std::make_shared<SetWatches>();
    lists->relative_zxid = lastZxid_;
    for (const auto& [path, watchers] : dataWatches_) lists->data_watches.push_back(path);
    for (const auto& [path, watchers] : existWatches_) lists->exist_watches.push_back(path);
    for (const auto& [path, watchers] : childWatches_) lists->child_watches.push_back(path);
    for (const auto& [path, watchers] : persistentWatches_) lists->persistent_watches.push_back(path);
    for (const auto& [path, watchers] : persistentRecursiveWatches_) lists->persistent_recursive_watches.push_back(path);
    setWatches.set_watches = std::move(lists);
    socket_.send(std::move(setWatches));
  }
  sendOutgoing();
  co_return true;
}

sim::Task<void> ClientCnxn::connectedLoop() {
  while (state_ == States::connected && socket_.valid()) {
    sim::Instant now = sim().now();
    sim::Duration idleRecv = now - lastHeard_;
    sim::Duration idleSend = now - lastSend_;
    sim::Duration to = readTimeout_ - idleRecv;
    if (to <= sim::Duration::zero()) {
      // "Client session timed out, have not heard from server in Xms"
      sim().trace().emit(owner_.id(), "zk.client.timeout", {{"server", currentServer_}, {"idle", idleRecv}});
      co_return;
    }
    sim::Duration timeToNextPing = readTimeout_ / 2 - idleSend - (idleSend > 1000ms ? sim::Duration(1000ms) : sim::Duration(0));
    if (timeToNextPing <= sim::Duration::zero() || idleSend > max_send_ping_interval) {
      ClientRequest ping;
      ping.xid = ping_xid;
      ping.type = OpCode::ping;
      socket_.send(std::move(ping));
      lastSend_ = now;
    } else {
      to = std::min(to, timeToNextPing);
    }
    sim::Received<ClientPacket> received = co_await socket_.receive(to);
    if (received.closed()) {
      // Why the client disconnects, for the narration (an observation: not hashed).
      sim().trace().observe(owner_.id(), "why.client_disconnect", {{"server", currentServer_}, {"reason", "closed"}});
      co_return;
    }
    if (received.timed_out()) continue;
    lastHeard_ = sim().now();
    readResponse(*received.message);
  }
}

void ClientCnxn::readResponse(ClientPacket& packet) {
  if (auto* event = std::get_if<WatcherEvent>(&packet)) {
    std::vector<Watcher> watchers = materialize(event->event);
    queueEvent(event->event, std::move(watchers));
    return;
  }
  auto* reply = std::get_if<ClientReply>(&packet);
  if (reply == nullptr) return;
  if (reply->xid == ping_xid) return;
  // SetWatches is sent with an ordinary xid in 3.8 (ClientCnxnSocketNIO.doIO gives every packet but
  // ping and auth the next one), so its reply goes through readResponse like any other and moves
  // lastZxid: a client that saw catch-up events must not be accepted by a server behind them.
  if (reply->zxid > 0) lastZxid_ = reply->zxid;
  if (reply->xid == set_watches_xid) return;
  // SendThread.readResponse takes the head of pendingQueue: a connection's replies come in the
  // order of its requests. Java turns any other reply into an IOException ("Xid out of order");
  // the model's server answers in order, so here it would be a bug of the model.
  ELECTSIM_ASSERT_MSG(!pending_.empty() && pending_.begin()->first == reply->xid, "Xid out of order");
  auto pending = pending_.begin();
  Pending waiting = std::move(pending->second);
  pending_.erase(pending);
  registerWatch(std::move(waiting.watch), reply->err);
  answer(waiting.reply, std::move(*reply));
}

void ClientCnxn::registerWatch(HeldWatch held, Code err) {
  // ZooKeeper.WatchRegistration.register: exists() watches a missing node too (ExistsWatchRegistration:
  // a data watch if it exists, an exist watch if not); getData()/getChildren() only on success.
  if (!held) return;
  WatchRegistration& watch = *held;
  switch (watch.kind) {
    case WatchRegistration::Kind::none: break;
    case WatchRegistration::Kind::data:
      if (err == Code::ok) dataWatches_[watch.path].push_back(std::move(watch.watcher));
      break;
    case WatchRegistration::Kind::exists:
      if (err == Code::ok) dataWatches_[watch.path].push_back(std::move(watch.watcher));
      if (err == Code::no_node) existWatches_[watch.path].push_back(std::move(watch.watcher));
      break;
    case WatchRegistration::Kind::child:
      if (err == Code::ok) childWatches_[watch.path].push_back(std::move(watch.watcher));
      break;
    case WatchRegistration::Kind::persistent:
      if (err == Code::ok) persistentWatches_[watch.path].push_back(std::move(watch.watcher));
      break;
    case WatchRegistration::Kind::persistent_recursive:
      if (err == Code::ok) persistentRecursiveWatches_[watch.path].push_back(std::move(watch.watcher));
      break;
  }
}

namespace {
// Whether the walk from an absolute `path` up its parents to "/" (parent_path) passes `watched`.
bool covers(std::string_view watched, std::string_view path) {
  if (watched == "/" || watched == path) return true;
  return !watched.empty() && path.size() > watched.size() && path.starts_with(watched) && path[watched.size()] == '/';
}
}  // namespace

std::vector<Watcher> ClientCnxn::materialize(const WatchedEvent& event) {
  // ZKWatchManager.materialize: which client-side watchers a notification reaches (and removes).
  std::vector<Watcher> result;
  auto take = [&](std::map<std::string, std::vector<Watcher>>& table) {
    auto found = table.find(event.path);
    if (found == table.end()) return;
    for (Watcher& watcher : found->second) result.push_back(std::move(watcher));
    table.erase(found);
  };
  switch (event.type) {
    case EventType::node_created:
    case EventType::node_data_changed:
      take(dataWatches_);
      take(existWatches_);
      break;
    case EventType::node_children_changed: take(childWatches_); break;
    case EventType::node_deleted:
      take(dataWatches_);
      take(existWatches_);
      take(childWatches_);
      break;
    case EventType::none: return result;
  }
  // addPersistentWatches: the path's persistent watchers and the recursive ones of the path and
  // every parent, kept. For every node event, NodeChildrenChanged too: the server never sends
  // that one for a recursive watch, but the connection may hold a child watch on the same path.
  auto copy = [&result](const auto& table, std::string_view path) {
    auto found = table.find(path);
    if (found == table.end()) return;
    result.insert(result.end(), found->second.begin(), found->second.end());
  };
  copy(persistentWatches_, event.path);
  if (persistentRecursiveWatches_.empty()) return result;
  // The recursive watchers of the path, then of each parent up to "/". A client holds a recursive
  // watch or two (a CuratorCache's): testing each against the path finds them without a lookup per
  // parent, in the same order (a deeper watched path is a longer one).
  constexpr std::size_t scanned_at_most = 4;
  if (persistentRecursiveWatches_.size() <= scanned_at_most && event.path.starts_with('/')) {
    std::array<const std::vector<Watcher>*, scanned_at_most> found{};
    std::array<std::size_t, scanned_at_most> lengths{};
    std::size_t count = 0;
    const std::string_view path = event.path;
    for (const auto& [watched, watchers] : persistentRecursiveWatches_) {
      if (!covers(watched, path)) continue;
      // Insertion by length, longest first.
      std::size_t at = count++;
      while (at > 0 && lengths[at - 1] < watched.size()) {
        found[at] = found[at - 1];
        lengths[at] = lengths[at - 1];
        at--;
      }
      found[at] = &watchers;
      lengths[at] = watched.size();
    }
    for (std::size_t i = 0; i < count; i++) result.insert(result.end(), found[i]->begin(), found[i]->end());
    return result;
  }
  std::string_view path = event.path;  // the path, then each parent up to "/"
  while (true) {
    copy(persistentRecursiveWatches_, path);
    if (path == "/" || path.empty()) break;
    path = parent_path(path);
  }
  return result;
}

void ClientCnxn::queueEvent(WatchedEvent event, std::vector<Watcher> watchers) {
  if (watchers.empty()) return;
  events_.push(Event{std::move(event), std::move(watchers)});
}

void ClientCnxn::queueSessionEvent(KeeperState state) {
  // EventThread.queueEvent drops a session event equal to the last one queued.
  if (sessionStateQueued_ && lastSessionState_ == state) return;
  sessionStateQueued_ = true;
  lastSessionState_ = state;
  if (defaultWatcher_) queueEvent(WatchedEvent{EventType::none, state, ""}, {defaultWatcher_});
}

sim::Task<void> ClientCnxn::eventThread() {
  // Events reach their watchers one at a time, in the order they arrived.
  while (true) {
    Event next = co_await events_.pop();
    for (Watcher& watcher : next.watchers) watcher(next.event);
  }
}

void ClientCnxn::closeLocally() {
  if (state_ == States::closed) return;
  // The same steps as close() on a handle that is not connected, plus the socket's close.
  closing_ = true;
  if (socket_.valid()) socket_.close();
  state_ = States::closed;
  cleanup(Code::session_expired);
  trace_state("CLOSED");
  queueSessionEvent(KeeperState::closed);
}

sim::Task<void> ClientCnxn::close() {
  if (state_ == States::closed) co_return;
  closing_ = true;
  if (state_ == States::connected) {
    ClientRequest request;
    request.type = OpCode::close_session;
    request.xid = xid_++;
    sim::Promise<ClientReply> promise;
    sim::Future<ClientReply> reply = promise.get_future();
    pending_.emplace(request.xid, Pending{std::move(promise), nullptr});
    socket_.send(std::move(request));
    // submitRequest with requestTimeout 0: no bound of its own. The wait ends with the reply, or
    // with the connection (readTimeout bounds a silent server), when sendThread's cleanup fails it.
    co_await reply.wait(sim());
  }
  state_ = States::closed;
  cleanup(Code::session_expired);
  trace_state("CLOSED");
  queueSessionEvent(KeeperState::closed);
}

}  // namespace zk
