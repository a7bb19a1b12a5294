// ClientProxy: process-level faults (crash, pause, partition) on in-process ZooKeeper clients in live
// mode (docs/live-mode.md).
//
// Several simulated application instances run as coroutines in electsim's one process, each with a
// real C-client session whose I/O thread we cannot stop or kill. So every client connects to the
// servers through its own loopback TCP forwarder, and the fault is done to the forwarder instead:
//  - crash: every connection of the client is reset on both sides and its ports refuse new
//    connections, which is what the kernel does when the process dies of kill -9;
//  - pause: no byte moves in either direction, connections stay open (SIGSTOP);
//  - cut: the same silence on one client-server pair only (a network partition).
// One background thread moves the bytes for every link with poll(2); the public methods are
// thread-safe and return once the poll thread has applied the change.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <poll.h>
#include <string>
#include <thread>
#include <vector>

#include "live/endpoint.h"

namespace live {

class ClientProxy {
 public:
  // Limits: a live scenario has a handful of instances on at most a few servers. A ZooKeeper client
  // holds one connection at a time, so more than a few links per client means a leak: refused.
  // clients_max counts the clients open at once: a crashed or released one's ports are closed and
  // no longer count (`electsim live` refuses a scenario that opens more sessions, live/live_refusal.h).
  static constexpr int clients_max = 1024;
  static constexpr int servers_max = 64;
  static constexpr int links_per_client_max = 64;
  // Per direction of a link; reading stops while it is full (backpressure onto the sender's kernel).
  static constexpr std::size_t buffer_capacity = 256 * 1024;

  // Starts the poll thread. Throws std::runtime_error if its wake-up eventfd cannot be made.
  ClientProxy();
  // Stops and joins the poll thread, closes every socket.
  ~ClientProxy();
  ClientProxy(const ClientProxy&) = delete;
  ClientProxy& operator=(const ClientProxy&) = delete;

  // Registers a client that may connect to each server in `servers` (address and client port) and
  // returns its number (0, 1, ...). Opens one listening socket per server on a free loopback port.
  // Throws std::invalid_argument on no ports, a port 0 or more than servers_max, std::runtime_error
  // past clients_max or when a socket cannot be opened (with the system's reason).
  int add_client(const std::vector<Endpoint>& servers);
  // "127.0.0.1:p0,127.0.0.1:p1,...": the client's listening ports in server order, a ZooKeeper
  // connect string. A crashed client keeps its string (connections to it are refused).
  std::string connect_string(int client) const;
  // kill -9 of the client's process: every connection of the client is reset on both sides (SO_LINGER
  // {1, 0}: the server sees the reset at once), and its listening sockets are closed, so new
  // connections are refused (ECONNREFUSED) from when this returns. Irreversible; idempotent.
  void crash(int client);
  // The client's handle was closed (zookeeper_close): its listening ports close, so it never
  // connects again, while the connections it has finish on their own (the closeSession it sent still
  // reaches the server). It no longer counts toward clients_max. Idempotent.
  void release(int client);
  // SIGSTOP-like silence: while paused, nothing is read from or written to any of the client's
  // connections (data waits in the kernel's and the proxy's buffers, the peers see silence, not an
  // error). New connections are accepted (as the kernel would) but connected onward only on resume.
  void set_paused(int client, bool paused);
  // A partition between the client and server `server` (an index into its servers): the same
  // silence as set_paused, on that pair only. Healing (cut = false) resumes everything.
  void set_cut(int client, int server, bool cut);
  // Bytes delivered so far for the client, both directions (for tests and traces).
  std::uint64_t bytes_forwarded(int client) const;

 private:
  // Bytes read from one side and not yet written to the other.
  struct Pipe {
    std::vector<char> bytes;
    std::size_t sent = 0;  // bytes[0, sent) are written already
    std::size_t pending() const { return bytes.size() - sent; }
    bool has_room() const { return pending() < buffer_capacity; }
  };
  // One accepted connection and its onward connection to the server.
  struct Link {
    enum class Stage { held, connecting, open };  // held: accepted, onward connect deferred (paused/cut)
    int client = 0;
    int server = 0;
    int client_fd = -1;
    int server_fd = -1;
    Stage stage = Stage::held;
    bool client_eof = false;  // that side closed: the other is drained, then both are closed
    bool server_eof = false;
    Pipe to_server;
    Pipe to_client;
  };
  struct Client {
    std::vector<Endpoint> servers;
    std::vector<std::uint16_t> listen_ports;
    std::vector<int> listen_fds;  // -1 once crashed
    std::vector<char> cut;        // per server
    bool paused = false;
    bool crashed = false;
    bool crash_applied = false;
    bool released = false;  // the handle closed: the listening ports close, the links drain
    bool said_too_many_links = false;
    bool release_applied = false;
    int links = 0;
    std::uint64_t bytes_forwarded = 0;
  };
  // What each entry of the poll set stands for.
  struct Polled {
    enum class Kind { wake, listener, link };
    Kind kind = Kind::wake;
    int client = 0;
    int server = 0;
    std::uint64_t link = 0;
    int index = -1;         // the entry in the poll set (for a link: its client side, -1 when not polled)
    int server_index = -1;  // for a link: its server side, -1 when not polled
  };
  enum class Outcome { keep, close, reset_client, reset_server, reset_both };

  void check_client(int client) const;
  int open_clients() const;  // neither crashed nor released; with the mutex held
  // Waits (on `lock`) until the poll thread has applied every change made before this call.
  void apply_and_wait(std::unique_lock<std::mutex>& lock);
  void wake() const;
  void run() noexcept;
  void apply_changes();
  void build_poll_set(std::vector<pollfd>& polled, std::vector<Polled>& owners);
  void service(const std::vector<pollfd>& polled, const std::vector<Polled>& owners);
  void accept_connections(int client, int server);
  void start_connect(Link& link);
  Outcome service_link(Link& link, short client_events, short server_events);
  Outcome receive(Link& link, bool from_client);
  Outcome flush(Link& link, bool toward_server);
  bool blocked(const Link& link) const;
  std::map<std::uint64_t, Link>::iterator close_link(std::map<std::uint64_t, Link>::iterator at, Outcome how);
  void drop_all_links() noexcept;

  mutable std::mutex mutex_;
  std::condition_variable applied_;  // the poll thread finished a round of changes
  std::condition_variable changed_;  // a change is waiting (used only after a failed poll)
  std::vector<Client> clients_;
  std::map<std::uint64_t, Link> links_;  // by id: the poll set refers to links by id, not by fd
  std::uint64_t next_link_ = 1;
  std::uint64_t requested_round_ = 0;
  std::uint64_t applied_round_ = 0;
  bool stopping_ = false;
  bool out_of_descriptors_ = false;  // accept failed (EMFILE): listeners wait for a link to close or a public call
  int wake_fd_ = -1;                 // eventfd
  std::vector<char> scratch_;        // the poll thread's receive buffer
  std::thread thread_;
};

}  // namespace live
