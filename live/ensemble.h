// LiveEnsemble: a real ZooKeeper 3.8 ensemble on this machine, one JVM per server, for one run: on
// loopback, or with a network namespace per server (LiveEnsembleConfig::network_namespaces,
// live/server_network.h) when links between servers are to be cut.
//
// The deployment mirrors the simulated zk::Ensemble: servers zk1..zkN with sid N, the scenario's
// tickTime/initLimit/syncLimit. Each run gets a temp folder (zoo.cfg, myid and data per server, and
// each server's log), free loopback ports (client, quorum, election per server), and the servers are
// `java ... org.apache.zookeeper.server.quorum.QuorumPeerMain zoo.cfg` children (ChildProcess).
//
// Observation: a poller thread asks every running server `srvr` every poll_interval and records each
// change of mode or zxid as an Observation with its steady-clock time. This is what live mode can see
// of a server: not its votes or its Zab messages, only what srvr says, at ~50 ms resolution.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "live/child_process.h"
#include "live/endpoint.h"
#include "live/four_letter.h"
#include "live/installation.h"
#include "live/server_network.h"

namespace live {

using Clock = std::chrono::steady_clock;
using Milliseconds = std::chrono::milliseconds;

inline constexpr int live_servers_max = 9;  // JVMs on one machine: each takes ~100 MB

struct LiveEnsembleConfig {
  int servers = 3;
  Milliseconds tick_time{2000};
  int init_limit = 10;
  int sync_limit = 5;
  // zoo.cfg's minSessionTimeout and maxSessionTimeout; absent: ZooKeeper's 2 and 20 ticks.
  std::optional<Milliseconds> min_session_timeout;
  std::optional<Milliseconds> max_session_timeout;
  Milliseconds poll_interval{50};
  bool keep_folder = false;  // keep the temp folder (logs) after the run
  // One namespace per server (root only): needed for partitions between servers and a silent
  // power-off. Off: every server on 127.0.0.1, nothing can come between two servers.
  bool network_namespaces = false;
};

struct Observation {
  Clock::time_point time;
  int sid = 0;
  ServerStatus status;
};

class LiveEnsemble {
 public:
  LiveEnsemble(LiveEnsembleConfig config, Installation installation);
  ~LiveEnsemble();  // kills every server, stops the poller, removes the folder unless kept
  LiveEnsemble(const LiveEnsemble&) = delete;
  LiveEnsemble& operator=(const LiveEnsemble&) = delete;

  int size() const { return config_.servers; }
  const LiveEnsembleConfig& config() const { return config_; }
  const std::filesystem::path& folder() const { return folder_; }
  // "host1:p1,host2:p2,..." for zookeeper_init.
  std::string connect_string() const;
  Endpoint client_endpoint(int sid) const;
  // The namespaces, when the ensemble has them.
  ServerNetwork* network() { return network_.get(); }

  // Faults, in real time. start() is also a restart after kill().
  void start(int sid);
  void kill(int sid);   // crash: kill -9 (the kernel closes its sockets: peers see the close at once)
  // A machine without power: silence. With namespaces every packet in and out of the server is
  // dropped, then the JVM is killed behind that wall (its peers never see a close); start() lifts it.
  // On loopback a SIGSTOP that is never resumed (the kernel still answers TCP for it).
  void power_off(int sid);
  // delivered[a - 1][b - 1]: whether server a's packets reach server b. Needs namespaces.
  void set_links(const std::vector<std::vector<bool>>& delivered);
  void pause(int sid);  // SIGSTOP
  void resume(int sid); // SIGCONT
  // pause, then SIGCONT after `pause_for` (the scenario's `pause ... for`), done by the poller thread.
  void pause_for(int sid, Milliseconds pause_for);
  bool running(int sid) const;

  ServerStatus status(int sid) const;  // the last polled status
  std::vector<Observation> observations() const;
  // The one server that reports `leader` now, if exactly one does.
  std::optional<int> leader() const;
  // Blocks until `condition` holds for the statuses of a poll round (index sid - 1) or `deadline`;
  // returns the time of the poll round that satisfied it.
  using Condition = std::function<bool(const std::vector<ServerStatus>& statuses)>;
  std::optional<Clock::time_point> wait_until(const Condition& condition, Clock::time_point deadline) const;

 private:
  struct Server {
    std::string host = "127.0.0.1";
    int client_port = 0;
    int quorum_port = 0;
    int election_port = 0;
    ChildProcess process;
    bool paused = false;
    std::optional<Clock::time_point> resume_at;
    ServerStatus status;
  };
  void assign_ports(const std::vector<int>& ports);  // 3 per server: client, quorum, election
  void write_configuration() const;
  void remove_folder() noexcept;
  void poll_loop();
  Server& server(int sid);
  const Server& server(int sid) const;
  std::vector<ServerStatus> statuses_locked() const;

  LiveEnsembleConfig config_;
  Installation installation_;
  std::unique_ptr<ServerNetwork> network_;  // made before and removed after the servers run
  std::filesystem::path folder_;
  std::vector<Server> servers_;
  mutable std::mutex mutex_;
  mutable std::condition_variable polled_;
  std::vector<Observation> observations_;
  Clock::time_point last_poll_time_{};
  bool stopping_ = false;
  std::thread poller_;
};

// The one sid (index + 1) whose status is `leader`, if exactly one is.
std::optional<int> leader_of(const std::vector<ServerStatus>& statuses);

// `count` distinct free TCP ports on 127.0.0.1 (bound together, then released: another process may
// take one in between, which makes a server fail to start, visible in its log).
std::vector<int> free_loopback_ports(int count);

}  // namespace live
