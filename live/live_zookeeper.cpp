#include "live/live_zookeeper.h"

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <stdexcept>

#include "live/client.h"
#include "sim/assert.h"

namespace live {

namespace {

zk::Stat toStat(const ::Stat* stat) {
  zk::Stat result;
  if (stat == nullptr) return result;
  result.czxid = stat->czxid;
  result.mzxid = stat->mzxid;
  result.ctime = stat->ctime;
  result.mtime = stat->mtime;
  result.version = stat->version;
  result.cversion = stat->cversion;
  result.aversion = stat->aversion;
  result.ephemeral_owner = stat->ephemeralOwner;
  result.data_length = stat->dataLength;
  result.num_children = stat->numChildren;
  result.pzxid = stat->pzxid;
  return result;
}

// The C client's codes are the Java ones; two it adds map to what the Java client reports there.
zk::Code toCode(int rc) {
  if (rc == ZCLOSING) return zk::Code::connection_loss;     // the handle is closing: the call is lost
  if (rc == ZINVALIDSTATE) return zk::Code::session_expired;  // the session expired (or the handle closed)
  return static_cast<zk::Code>(rc);
}

int createFlags(zk::CreateMode mode) {
  switch (mode) {
    case zk::CreateMode::persistent: return ZOO_PERSISTENT;
    case zk::CreateMode::persistent_sequential: return ZOO_PERSISTENT_SEQUENTIAL;
    case zk::CreateMode::ephemeral: return ZOO_EPHEMERAL;
    case zk::CreateMode::ephemeral_sequential: return ZOO_EPHEMERAL_SEQUENTIAL;
  }
  ELECTSIM_UNREACHABLE();
}

zk::EventType toEventType(int type) {
  if (type == ZOO_CREATED_EVENT) return zk::EventType::node_created;
  if (type == ZOO_DELETED_EVENT) return zk::EventType::node_deleted;
  if (type == ZOO_CHANGED_EVENT) return zk::EventType::node_data_changed;
  if (type == ZOO_CHILD_EVENT) return zk::EventType::node_children_changed;
  return zk::EventType::none;
}

// The C client's session states as Java's KeeperState: CONNECTING (the C client reconnecting) is
// Java's Disconnected.
zk::KeeperState toKeeperState(int state) {
  if (state == ZOO_CONNECTED_STATE) return zk::KeeperState::sync_connected;
  if (state == ZOO_EXPIRED_SESSION_STATE) return zk::KeeperState::expired;
  if (state == ZOO_AUTH_FAILED_STATE) return zk::KeeperState::auth_failed;
  return zk::KeeperState::disconnected;
}

}  // namespace

// One request in flight: its channel, its number, and what a multi's results point into.
struct RequestContext {
  RequestContext(std::shared_ptr<LiveChannel> channel, std::uint64_t request) : channel(std::move(channel)), request(request) {}
  std::shared_ptr<LiveChannel> channel;
  std::uint64_t request = 0;
  std::vector<zoo_op_t> ops;
  std::vector<zoo_op_result_t> results;
  std::vector<std::string> strings;  // the ops' paths and data
  std::vector<std::vector<char>> pathBuffers;
  std::vector<::Stat> stats;
  std::vector<zk::OpCode> types;
};

namespace {

void post_reply(RequestContext* context, LiveZooKeeper::Reply reply) {
  std::shared_ptr<LiveChannel> channel = std::move(context->channel);
  std::uint64_t request = context->request;
  delete context;
  channel->loop->post(channel->node, [channel, request, reply = std::move(reply)]() mutable {
    if (channel->owner != nullptr) channel->owner->complete(request, std::move(reply));
  });
}

void string_completion(int rc, const char* value, const void* data) {
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  if (value != nullptr) reply.value = value;
  post_reply(static_cast<RequestContext*>(const_cast<void*>(data)), std::move(reply));
}

void void_completion(int rc, const void* data) {
  auto* context = static_cast<RequestContext*>(const_cast<void*>(data));
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  // A multi's results, copied before the buffers they point into go.
  for (std::size_t i = 0; i < context->results.size(); i++) {
    zk::OpResult result;
    result.type = context->types[i];
    result.err = toCode(context->results[i].err);
    if (result.type == zk::OpCode::create && result.err == zk::Code::ok) result.path = context->pathBuffers[i].data();
    if (result.type == zk::OpCode::set_data && result.err == zk::Code::ok) result.stat = toStat(&context->stats[i]);
    reply.results.push_back(std::move(result));
  }
  post_reply(context, std::move(reply));
}

void stat_completion(int rc, const ::Stat* stat, const void* data) {
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  reply.stat = toStat(stat);
  post_reply(static_cast<RequestContext*>(const_cast<void*>(data)), std::move(reply));
}

void data_completion(int rc, const char* value, int length, const ::Stat* stat, const void* data) {
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  if (value != nullptr && length > 0) reply.value.assign(value, static_cast<std::size_t>(length));
  reply.stat = toStat(stat);
  post_reply(static_cast<RequestContext*>(const_cast<void*>(data)), std::move(reply));
}

void children_completion(int rc, const String_vector* strings, const ::Stat* stat, const void* data) {
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  if (strings != nullptr) {
    for (int i = 0; i < strings->count; i++) reply.children.emplace_back(strings->data[i]);
  }
  reply.stat = toStat(stat);
  post_reply(static_cast<RequestContext*>(const_cast<void*>(data)), std::move(reply));
}

void session_watcher(zhandle_t*, int type, int state, const char*, void* context) {
  if (type != ZOO_SESSION_EVENT) return;  // the recipes set every watch with its own watcher
  auto* raw = static_cast<LiveChannel*>(context);
  std::shared_ptr<LiveChannel> channel = raw->self.lock();
  if (!channel) return;
  channel->loop->post(channel->node, [channel, state] {
    if (channel->owner != nullptr) channel->owner->sessionEvent(state);
  });
}

void path_watcher(zhandle_t*, int type, int state, const char* path, void* context) {
  // The C client also hands session events to every watcher; the model's client does not (its
  // watches survive a reconnect and are re-registered), and the default watcher has them already.
  if (type == ZOO_SESSION_EVENT) return;
  auto* watch = static_cast<LiveChannel::WatchContext*>(context);
  std::shared_ptr<LiveChannel> channel = watch->channel->self.lock();
  if (!channel) return;
  std::uint64_t id = watch->watch;
  std::string changed = path != nullptr ? path : "";
  channel->loop->post(channel->node, [channel, id, type, state, changed] {
    if (channel->owner != nullptr) channel->owner->watchEvent(id, type, state, changed);
  });
}

}  // namespace

// ---- LiveZooKeeper ----

LiveZooKeeper::LiveZooKeeper(sim::Node& owner, LiveZookeeperFactory& factory, int proxy_client, const std::string& connect_string,
                             sim::Duration sessionTimeout, zk::Watcher watcher)
    : owner_(owner), factory_(factory), proxyClient_(proxy_client), channel_(std::make_shared<LiveChannel>()), defaultWatcher_(std::move(watcher)) {
  quiet_c_client_logging();
  channel_->self = channel_;
  channel_->loop = &factory.loop();
  channel_->node = owner.id();
  channel_->owner = this;
  handle_ = zookeeper_init(connect_string.c_str(), &session_watcher, static_cast<int>(sim::millis(sessionTimeout)), nullptr, channel_.get(), 0);
  if (handle_ == nullptr) throw std::runtime_error("live mode: zookeeper_init failed for " + connect_string);
  traceState("CONNECTING");
}

LiveZooKeeper::~LiveZooKeeper() {
  channel_->owner = nullptr;  // late completions and events are dropped
  // Promises die here: a coroutine still waiting is being destroyed with its node anyway.
  if (handle_ == nullptr) return;
  // Not closed: the process died. A crash resets its connections now and refuses new ones; a
  // power-off leaves them open and silent for good.
  if (owner_.closing_silently()) {
    factory_.proxy().set_paused(proxyClient_, true);
  } else {
    factory_.proxy().crash(proxyClient_);
  }
  factory_.retire(handle_, channel_, proxyClient_);
  handle_ = nullptr;
}

void LiveZooKeeper::traceState(const char* state) {
  owner_.sim().trace().emit(owner_.id(), "client.state",
                            {{"layer", "zookeeper"}, {"state", state}, {"session", sessionId_}, {"live", true}});
}

std::pair<std::uint64_t, sim::Future<LiveZooKeeper::Reply>> LiveZooKeeper::open() {
  ELECTSIM_ASSERT_MSG(pending_.size() < pending_max, "live mode: too many requests in flight on one handle");
  std::uint64_t request = nextRequest_++;
  sim::Promise<Reply> promise;
  sim::Future<Reply> future = promise.get_future();
  pending_.emplace(request, std::move(promise));
  return {request, std::move(future)};
}

void LiveZooKeeper::complete(std::uint64_t request, Reply reply) {
  auto found = pending_.find(request);
  if (found == pending_.end()) return;
  sim::Promise<Reply> promise = std::move(found->second);
  pending_.erase(found);
  promise.set_value(std::move(reply));
}

LiveChannel::WatchContext* LiveZooKeeper::addWatch(zk::Watcher watcher) {
  std::uint64_t id = nextWatch_++;
  watches_.emplace(id, std::move(watcher));
  channel_->watchContexts.push_back(std::make_unique<LiveChannel::WatchContext>(LiveChannel::WatchContext{channel_.get(), id}));
  return channel_->watchContexts.back().get();
}

void LiveZooKeeper::seen(const zk::Stat& stat) { lastZxid_ = std::max({lastZxid_, stat.mzxid, stat.czxid, stat.pzxid}); }

void LiveZooKeeper::sessionEvent(int state) {
  if (handle_ == nullptr) return;  // closed: an event posted before zookeeper_close returned
  zk::KeeperState keeperState = toKeeperState(state);
  if (state == ZOO_CONNECTED_STATE) {
    state_ = zk::ClientCnxn::States::connected;
    sessionId_ = zoo_client_id(handle_)->client_id;
    negotiatedTimeout_ = std::chrono::milliseconds(zoo_recv_timeout(handle_));
    traceState("CONNECTED");
  } else if (state == ZOO_EXPIRED_SESSION_STATE) {
    state_ = zk::ClientCnxn::States::closed;
    traceState("EXPIRED");
  } else if (state == ZOO_CONNECTING_STATE || state == ZOO_ASSOCIATING_STATE) {
    if (state_ == zk::ClientCnxn::States::connecting) return;  // still connecting: no event in Java
    state_ = zk::ClientCnxn::States::connecting;
    traceState("DISCONNECTED");
  } else {
    return;
  }
  if (defaultWatcher_) defaultWatcher_(zk::WatchedEvent{zk::EventType::none, keeperState, ""});
}

void LiveZooKeeper::watchEvent(std::uint64_t watch, int type, int, std::string path) {
  auto found = watches_.find(watch);
  if (found == watches_.end()) return;
  zk::Watcher watcher = std::move(found->second);
  watches_.erase(found);  // one-shot
  if (watcher) watcher(zk::WatchedEvent{toEventType(type), zk::KeeperState::sync_connected, std::move(path)});
}

namespace {
LiveZooKeeper::Reply failed(int rc) {
  LiveZooKeeper::Reply reply;
  reply.rc = rc;
  return reply;
}

}  // namespace

sim::Task<LiveZooKeeper::Reply> LiveZooKeeper::roundTrip(std::function<int(RequestContext*)> submit, RequestContext* prepared) {
  std::unique_ptr<RequestContext> context(prepared != nullptr ? prepared : new RequestContext{channel_, 0});
  if (handle_ == nullptr) co_return failed(ZINVALIDSTATE);  // closed: the session is over
  auto [request, future] = open();
  context->channel = channel_;
  context->request = request;
  // The C client owns the context until its completion runs; on a synchronous failure (a bad
  // state) the completion never runs and the context stays ours.
  int rc = submit(context.get());
  if (rc == ZOK) {
    context.release();
  } else {
    complete(request, failed(rc));
  }
  Reply reply = co_await future.wait(owner_.sim());
  if (reply.rc == ZOK) seen(reply.stat);
  co_return reply;
}

zk::Async<zk::CreateResult> LiveZooKeeper::create(std::string path, std::string data, zk::CreateMode mode) {
  Reply reply = co_await roundTrip([&](RequestContext* context) {
    return zoo_acreate(handle_, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE, createFlags(mode),
                       &string_completion, context);
  });
  co_return zk::CreateResult{toCode(reply.rc), std::move(reply.value)};
}

zk::Async<zk::Code> LiveZooKeeper::deleteNode(std::string path, std::int32_t version) {
  Reply reply = co_await roundTrip([&](RequestContext* context) { return zoo_adelete(handle_, path.c_str(), version, &void_completion, context); });
  co_return toCode(reply.rc);
}

zk::Async<zk::StatResult> LiveZooKeeper::exists(std::string path, zk::Watcher watcher) {
  Reply reply = co_await roundTrip([&](RequestContext* context) {
    if (!watcher) return zoo_aexists(handle_, path.c_str(), 0, &stat_completion, context);
    return zoo_awexists(handle_, path.c_str(), &path_watcher, addWatch(std::move(watcher)), &stat_completion, context);
  });
  co_return zk::StatResult{toCode(reply.rc), reply.stat};
}

zk::Async<zk::DataResult> LiveZooKeeper::getData(std::string path, zk::Watcher watcher) {
  Reply reply = co_await roundTrip([&](RequestContext* context) {
    if (!watcher) return zoo_aget(handle_, path.c_str(), 0, &data_completion, context);
    return zoo_awget(handle_, path.c_str(), &path_watcher, addWatch(std::move(watcher)), &data_completion, context);
  });
  co_return zk::DataResult{toCode(reply.rc), std::move(reply.value), reply.stat};
}

zk::Async<zk::ChildrenResult> LiveZooKeeper::getChildren(std::string path, zk::Watcher watcher) {
  Reply reply = co_await roundTrip([&](RequestContext* context) {
    if (!watcher) return zoo_aget_children2(handle_, path.c_str(), 0, &children_completion, context);
    return zoo_awget_children2(handle_, path.c_str(), &path_watcher, addWatch(std::move(watcher)), &children_completion, context);
  });
  co_return zk::ChildrenResult{toCode(reply.rc), std::move(reply.children), reply.stat};
}

zk::Async<zk::StatResult> LiveZooKeeper::setData(std::string path, std::string data, std::int32_t version) {
  Reply reply = co_await roundTrip([&](RequestContext* context) {
    return zoo_aset(handle_, path.c_str(), data.data(), static_cast<int>(data.size()), version, &stat_completion, context);
  });
  co_return zk::StatResult{toCode(reply.rc), reply.stat};
}

zk::Async<zk::MultiResult> LiveZooKeeper::multi(std::vector<zk::Op> ops) {
  // The ops point into the context's buffers, which live until the completion has copied the results.
  auto* context = new RequestContext{channel_, 0};
  std::size_t count = ops.size();
  context->ops.resize(count);
  context->results.resize(count);
  context->strings.reserve(2 * count);  // no reallocation: the ops point into these strings
  context->pathBuffers.resize(count);
  context->stats.resize(count);
  for (std::size_t i = 0; i < count; i++) {
    zk::Op& op = ops[i];
    const std::string& path = context->strings.emplace_back(std::move(op.path));
    const std::string& data = context->strings.emplace_back(std::move(op.data));
    context->types.push_back(op.type);
    switch (op.type) {
      case zk::OpCode::create:
        // The created path with a sequence suffix: the path, 10 digits and the terminator.
        context->pathBuffers[i].assign(path.size() + 16, '\0');
        zoo_create_op_init(&context->ops[i], path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
                           createFlags(op.mode), context->pathBuffers[i].data(), static_cast<int>(context->pathBuffers[i].size()));
        break;
      case zk::OpCode::delete_node: zoo_delete_op_init(&context->ops[i], path.c_str(), op.version); break;
      case zk::OpCode::set_data:
        zoo_set_op_init(&context->ops[i], path.c_str(), data.data(), static_cast<int>(data.size()), op.version, &context->stats[i]);
        break;
      case zk::OpCode::check: zoo_check_op_init(&context->ops[i], path.c_str(), op.version); break;
      default: ELECTSIM_ASSERT_MSG(false, "live mode: an op multi does not take");
    }
  }
  Reply reply = co_await roundTrip(
      [&](RequestContext* submitted) {
        return zoo_amulti(handle_, static_cast<int>(count), submitted->ops.data(), submitted->results.data(), &void_completion, submitted);
      },
      context);
  co_return zk::makeMultiResult(toCode(reply.rc), std::move(reply.results));
}

sim::Task<void> LiveZooKeeper::close() {
  if (handle_ == nullptr) co_return;
  // zookeeper_close sends closeSession when connected and waits for the C client's threads: every
  // completion has run (ZCLOSING for what was in flight) when it returns; they were posted, and
  // the owner still takes them.
  zhandle_t* handle = std::exchange(handle_, nullptr);
  zookeeper_close(handle);
  // The handle never connects again: its proxy ports close (what it sent still drains to the
  // server), and it no longer counts toward the proxy's clients at once (a Curator client makes a
  // new handle after each expiry).
  factory_.proxy().release(proxyClient_);
  state_ = zk::ClientCnxn::States::closed;
  traceState("CLOSED");
}

void LiveZooKeeper::injectSessionExpiration() {
  if (handle_ == nullptr) return;
  // As Java's testable handle: no closeSession. The handle's connections are reset through its
  // proxy client and refused from now on (the C client fails what was in flight with a connection
  // loss); the zhandle is closed at the end of the run, when nothing can reach a server any more.
  factory_.proxy().crash(proxyClient_);
  factory_.retire(std::exchange(handle_, nullptr), channel_, proxyClient_);
  state_ = zk::ClientCnxn::States::closed;
  traceState("CLOSED");
}

// ---- LiveZookeeperFactory ----

LiveZookeeperFactory::LiveZookeeperFactory(RealTimeLoop& loop, ClientProxy& proxy, std::vector<sim::NodeId> server_nodes,
                                           std::vector<Endpoint> servers)
    : loop_(loop), proxy_(proxy), serverNodes_(std::move(server_nodes)), serverEndpoints_(std::move(servers)) {
  ELECTSIM_ASSERT(serverNodes_.size() == serverEndpoints_.size());
}

LiveZookeeperFactory::~LiveZookeeperFactory() { closeRetired(); }

std::unique_ptr<zk::ZooKeeper> LiveZookeeperFactory::newZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout,
                                                                  zk::Watcher watcher, std::uint64_t) {
  // The connect string in the caller's order (the C client shuffles it, as Java's does).
  std::vector<Endpoint> endpoints;
  for (sim::NodeId server : servers) {
    auto found = std::find(serverNodes_.begin(), serverNodes_.end(), server);
    ELECTSIM_ASSERT_MSG(found != serverNodes_.end(), "live mode: a connect string names a node that is not a server");
    endpoints.push_back(serverEndpoints_[static_cast<std::size_t>(found - serverNodes_.begin())]);
  }
  int client = proxy_.add_client(endpoints);
  proxyClients_.emplace(owner.id(), client);
  if (owner.paused()) proxy_.set_paused(client, true);
  return std::make_unique<LiveZooKeeper>(owner, *this, client, proxy_.connect_string(client), sessionTimeout, std::move(watcher));
}

std::vector<int> LiveZookeeperFactory::proxyClientsOf(sim::NodeId node) const {
  std::vector<int> clients;
  auto [first, last] = proxyClients_.equal_range(node);
  for (auto it = first; it != last; ++it) clients.push_back(it->second);
  return clients;
}

void LiveZookeeperFactory::retire(zhandle_t* handle, std::shared_ptr<LiveChannel> channel, int proxy_client) {
  // No longer one of its node's clients: a later pause, resume or cut of the node (restarted) must
  // not reach the dead process's links.
  for (auto it = proxyClients_.begin(); it != proxyClients_.end(); ++it) {
    if (it->second == proxy_client) {
      proxyClients_.erase(it);
      break;
    }
  }
  std::lock_guard lock(retiredMutex_);
  retired_.push_back(Retired{handle, std::move(channel), proxy_client});
}

void LiveZookeeperFactory::closeRetired() {
  std::vector<Retired> retired;
  {
    std::lock_guard lock(retiredMutex_);
    retired.swap(retired_);
  }
  // Reset (a powered-off handle's silent links too, now that the run is over): no closeSession
  // reaches a server, and zookeeper_close does not wait for an answer that cannot come.
  for (const Retired& entry : retired) {
    proxy_.crash(entry.proxy_client);
    zookeeper_close(entry.handle);
  }
}

}  // namespace live
