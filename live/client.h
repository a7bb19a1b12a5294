// LiveClient: a session on a real ensemble through the ZooKeeper C client's asynchronous API
// (zookeeper_init, zoo_acreate, zoo_adelete, zoo_awexists; libzookeeper_mt).
//
// The C client calls completions and watchers on its own completion thread. They only push an entry
// into a queue; the caller's real-time loop (every blocking method below, up to a deadline) drains
// that queue on the caller's thread, so nothing else runs concurrently with the caller's code. This
// is the shape a live driver for the simulated recipes needs too (docs/live-mode.md, "not done").
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

typedef struct _zhandle zhandle_t;  // zookeeper.h's opaque handle, without pulling the C header in
struct Stat;                         // zookeeper.jute.h's Stat
struct String_vector;

namespace live {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

enum class NodeMode { persistent, persistent_sequential, ephemeral, ephemeral_sequential };

// A watch or session event as the C client's watcher_fn delivered it.
struct ClientEvent {
  Clock::time_point time;
  std::string type;   // "created", "deleted", "changed", "child", "session", "not-watching"
  std::string state;  // "connected", "connecting", "expired", "auth-failed", ...
  std::string path;
};

struct CreateOutcome {
  int code = 0;  // ZOK (0) or the ZooKeeper error code, e.g. ZNODEEXISTS (-110)
  std::string path;  // the created path (with the sequence suffix)
};

// A completion: the code and what came with it.
struct ReadOutcome {
  int code = 0;
  std::string data;                   // get_data; the created path of a create
  std::vector<std::string> children;  // get_children
  std::int64_t ephemeral_owner = 0;
  std::int64_t czxid = 0;
};

// Turns the C client's own logging off, once per process (live/client.cpp says why).
void quiet_c_client_logging();

// The error code's name from the C client (zerror), e.g. "node exists".
std::string code_text(int code);

class LiveClient {
 public:
  // Starts connecting at once (zookeeper_init) with the requested session timeout.
  LiveClient(const std::string& connect_string, Milliseconds requested_timeout);
  ~LiveClient();  // close(): a graceful end of the session (zookeeper_close)
  LiveClient(const LiveClient&) = delete;
  LiveClient& operator=(const LiveClient&) = delete;

  bool wait_connected(Clock::time_point deadline);
  // The session timeout the server granted (zoo_recv_timeout), valid once connected.
  Milliseconds negotiated_timeout() const;
  std::int64_t session_id() const;

  // Each returns when the server answered, or gives operation-timeout code -7 at `deadline`.
  CreateOutcome create(const std::string& path, const std::string& data, NodeMode mode, Clock::time_point deadline);
  int remove(const std::string& path, Clock::time_point deadline);
  // exists with a watch (zoo_awexists): ZOK if the node exists, ZNONODE if not; either way the watch
  // is set (an exist watch on a missing node, a data watch on a present one).
  int watch_exists(const std::string& path, Clock::time_point deadline);
  // Reads without a watch (zoo_aget, zoo_aget_children2).
  ReadOutcome get_data(const std::string& path, Clock::time_point deadline);
  ReadOutcome get_children(const std::string& path, Clock::time_point deadline);
  // What create, remove and the reads share: a request whose call `submit` makes (a C client
  // error code), then its completion, or ZOPERATIONTIMEOUT at `deadline`.
  template <typename Submit>
  ReadOutcome request(Submit submit, Clock::time_point deadline);
  // The first watch event of `type` on `path` delivered so far or until `deadline`.
  std::optional<ClientEvent> wait_event(const std::string& type, const std::string& path, Clock::time_point deadline);
  // Every event delivered so far (drained).
  std::vector<ClientEvent> events();
  void close();

 private:
  using Completion = ReadOutcome;
  struct Queued {  // what the C client's thread hands over
    bool is_event = false;
    std::uint64_t request = 0;
    Completion completion;
    ClientEvent event;
  };
  struct RequestContext {
    LiveClient* client;
    std::uint64_t request;
  };
  // Drains the queue until `done()` holds or `deadline`; returns done().
  template <typename Done>
  bool drain_until(Done done, Clock::time_point deadline);
  void drain_locked();
  std::optional<Completion> wait_completion(std::uint64_t request, Clock::time_point deadline);
  RequestContext* new_request();

  static void watcher_callback(zhandle_t* handle, int type, int state, const char* path, void* context);
  static void string_callback(int code, const char* value, const void* data);
  static void void_callback(int code, const void* data);
  static void stat_callback(int code, const ::Stat* stat, const void* data);
  static void data_callback(int code, const char* value, int length, const ::Stat* stat, const void* data);
  static void children_callback(int code, const struct String_vector* strings, const ::Stat* stat, const void* data);
  void push(Queued entry);

  zhandle_t* handle_ = nullptr;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Queued> queue_;  // filled by the C client's thread
  // Delivered on the caller's thread:
  std::map<std::uint64_t, Completion> completions_;
  std::vector<ClientEvent> events_;
  bool connected_ = false;
  std::uint64_t next_request_ = 1;
  std::vector<std::unique_ptr<RequestContext>> contexts_;  // alive until close (a late completion)
};

}  // namespace live
