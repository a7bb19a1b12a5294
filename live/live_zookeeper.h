// LiveZooKeeper: the recipes' zk::ZooKeeper on the ZooKeeper C client (libzookeeper_mt) against a
// real ensemble, so that the same LeaderLatch, LeaderSelector and ElasticJob code that runs on the
// model runs on ZooKeeper 3.8 (docs/live-mode.md).
//
// Threads: the C client calls completions and watchers on its completion thread. They only copy the
// result and post() it to the RealTimeLoop; the loop's thread resumes the waiting coroutine, so the
// model code runs on one thread, as in simulation. A request's promise lives in this object; when
// the object is gone (the node crashed), late completions find no owner and are dropped.
//
// Process death: destroying a handle that was not closed is what kill -9 does to its process. The
// handle's connections go through its own ClientProxy client, which crash() resets and refuses from
// then on, so the servers see the TCP connection drop and the session lives on until it expires
// (no closeSession). A power-off instead silences them for good (the proxy moves no byte again: the
// servers hear nothing, as from a machine without power). The zhandle itself is retired to the
// factory and closed at the end of the run.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "live/client_proxy.h"
#include "live/realtime_loop.h"
#include "model/zk/client/ZooKeeper.h"
#include "sim/node.h"
#include "sim/sync.h"

typedef struct _zhandle zhandle_t;

namespace live {

class LiveZookeeperFactory;
struct RequestContext;  // live_zookeeper.cpp: one request in flight, as the C client holds it

// What the C client's threads may reach: the loop to post to, and (read on the loop's thread only)
// the handle it belongs to, cleared when the handle goes.
struct LiveChannel {
  // A watch's context for the C client: read by its threads, made and freed on the loop's thread
  // (freed with the channel, after the zhandle is closed: a watch may fire until then).
  struct WatchContext {
    LiveChannel* channel = nullptr;
    std::uint64_t watch = 0;
  };
  RealTimeLoop* loop = nullptr;
  sim::NodeId node = sim::no_node;
  std::weak_ptr<LiveChannel> self;                          // for the C callbacks, which get a raw pointer
  class LiveZooKeeper* owner = nullptr;                     // loop's thread only
  std::vector<std::unique_ptr<WatchContext>> watchContexts;  // loop's thread only
};

class LiveZooKeeper final : public zk::ZooKeeper {
 public:
  static constexpr std::size_t pending_max = 100'000;  // requests in flight on one handle

  LiveZooKeeper(sim::Node& owner, LiveZookeeperFactory& factory, int proxy_client, const std::string& connect_string,
                sim::Duration sessionTimeout, zk::Watcher watcher);
  ~LiveZooKeeper() override;

  zk::Async<zk::CreateResult> create(std::string path, std::string data, zk::CreateMode mode) override;
  zk::Async<zk::Code> deleteNode(std::string path, std::int32_t version = -1) override;
  zk::Async<zk::StatResult> exists(std::string path, zk::Watcher watcher = {}) override;
  zk::Async<zk::DataResult> getData(std::string path, zk::Watcher watcher = {}) override;
  zk::Async<zk::ChildrenResult> getChildren(std::string path, zk::Watcher watcher = {}) override;
  zk::Async<zk::StatResult> setData(std::string path, std::string data, std::int32_t version = -1) override;
  zk::Async<zk::MultiResult> multi(std::vector<zk::Op> ops) override;
  // The C client of 3.8 has no addWatch (its headers carry the AddWatchRequest record, no call).
  zk::Async<zk::Code> addWatch(std::string, zk::Watcher, zk::AddWatchMode) override { co_return zk::Code::unimplemented; }
  sim::Task<void> close() override;
  void injectSessionExpiration() override;

  zk::ClientCnxn::States getState() const override { return state_; }
  bool connected() const override { return state_ == zk::ClientCnxn::States::connected; }
  bool closed() const override { return state_ == zk::ClientCnxn::States::closed; }
  zk::SessionId getSessionId() const override { return sessionId_; }
  sim::Duration getSessionTimeout() const override { return negotiatedTimeout_; }
  zk::Zxid lastZxid() const override { return lastZxid_; }
  int proxyClient() const { return proxyClient_; }

  // The loop's thread, from the posted actions.
  struct Reply {
    int rc = 0;
    std::string value;                  // a created path, or data
    std::vector<std::string> children;  // getChildren
    zk::Stat stat;
    std::vector<zk::OpResult> results;  // multi
  };
  void complete(std::uint64_t request, Reply reply);
  void sessionEvent(int state);
  void watchEvent(std::uint64_t watch, int type, int state, std::string path);

 private:
  std::pair<std::uint64_t, sim::Future<Reply>> open();
  // One request: `submit` hands the context to the C client (`prepared`, or a new one); the reply
  // comes back through the loop. A closed handle answers ZINVALIDSTATE (SESSIONEXPIRED) at once.
  sim::Task<Reply> roundTrip(std::function<int(RequestContext*)> submit, RequestContext* prepared = nullptr);
  // Registers `watcher` and returns the C client's context for it.
  LiveChannel::WatchContext* addWatch(zk::Watcher watcher);
  void seen(const zk::Stat& stat);
  void traceState(const char* state);

  sim::Node& owner_;
  LiveZookeeperFactory& factory_;
  int proxyClient_;
  std::shared_ptr<LiveChannel> channel_;
  zhandle_t* handle_ = nullptr;
  zk::Watcher defaultWatcher_;
  zk::ClientCnxn::States state_ = zk::ClientCnxn::States::connecting;
  zk::SessionId sessionId_ = 0;
  sim::Duration negotiatedTimeout_{0};
  zk::Zxid lastZxid_ = 0;
  std::uint64_t nextRequest_ = 1;
  std::map<std::uint64_t, sim::Promise<Reply>> pending_;
  std::uint64_t nextWatch_ = 1;
  std::map<std::uint64_t, zk::Watcher> watches_;
};

// Makes LiveZooKeeper handles: each gets its own ClientProxy client in front of the real servers
// (`servers[i]` is the client endpoint of the server whose stand-in node is `server_nodes[i]`).
class LiveZookeeperFactory final : public zk::ZookeeperFactory {
 public:
  LiveZookeeperFactory(RealTimeLoop& loop, ClientProxy& proxy, std::vector<sim::NodeId> server_nodes, std::vector<Endpoint> servers);
  ~LiveZookeeperFactory() override;  // closes every retired zhandle

  std::unique_ptr<zk::ZooKeeper> newZooKeeper(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout,
                                              zk::Watcher watcher, std::uint64_t seed) override;
  // CuratorCache falls back to one-shot watches (docs/curator-model.md).
  bool hasPersistentWatchers() const override { return false; }

  RealTimeLoop& loop() { return loop_; }
  ClientProxy& proxy() { return proxy_; }
  // The proxy clients of every handle `node` has made (for pauses and cuts).
  std::vector<int> proxyClientsOf(sim::NodeId node) const;
  // A handle is gone: its zhandle is closed at the end (after its connections were reset, so no
  // closeSession reaches a server), with the channel its callbacks may still use.
  void retire(zhandle_t* handle, std::shared_ptr<LiveChannel> channel, int proxy_client);
  // Closes the retired zhandles now (the end of a run).
  void closeRetired();

 private:
  RealTimeLoop& loop_;
  ClientProxy& proxy_;
  std::vector<sim::NodeId> serverNodes_;
  std::vector<Endpoint> serverEndpoints_;
  std::multimap<sim::NodeId, int> proxyClients_;
  std::mutex retiredMutex_;
  struct Retired {
    zhandle_t* handle;
    std::shared_ptr<LiveChannel> channel;
    int proxy_client;
  };
  std::vector<Retired> retired_;
};

}  // namespace live
