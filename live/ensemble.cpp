#include "live/ensemble.h"

#include <arpa/inet.h>
#include <cstdlib>
#include <fstream>
#include <netinet/in.h>
#include <stdexcept>
#include <sys/socket.h>
#include <unistd.h>

#include "live/interrupt_cleanup.h"
#include "live/owner_file.h"
#include "sim/assert.h"

namespace live {

std::vector<int> free_loopback_ports(int count) {
  ELECTSIM_ASSERT(count > 0 && count <= 3 * live_servers_max);
  std::vector<int> sockets;
  std::vector<int> ports;
  for (int index = 0; index < count; index++) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) break;
    sockets.push_back(fd);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = 0;  // the kernel picks a free one
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      break;
    }
    ports.push_back(ntohs(address.sin_port));
  }
  for (int fd : sockets) ::close(fd);
  if (static_cast<int>(ports.size()) != count) throw std::runtime_error("live mode: no free loopback ports");
  return ports;
}

LiveEnsemble::LiveEnsemble(LiveEnsembleConfig config, Installation installation)
    : config_(config), installation_(std::move(installation)) {
  if (config_.servers < 1 || config_.servers > live_servers_max) {
    throw std::invalid_argument("live mode: servers must be within [1, " + std::to_string(live_servers_max) + "]");
  }
  ELECTSIM_ASSERT(config_.tick_time.count() > 0);
  ELECTSIM_ASSERT(config_.poll_interval.count() > 0);
  std::string pattern = (std::filesystem::temp_directory_path() / "electsim-live-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("live mode: cannot create a temp folder");
  folder_ = pattern;
  try {
    // A kept folder (the logs, to read afterwards) gets no owner: no cleanup ever removes it.
    if (!config_.keep_folder) {
      write_owner_file(folder_);
      register_cleanup_folder(folder_);
    }
    std::vector<int> ports = free_loopback_ports(3 * config_.servers);
    if (config_.network_namespaces) network_ = std::make_unique<ServerNetwork>(config_.servers);
    assign_ports(ports);
  } catch (...) {
    remove_folder();
    throw;
  }
  poller_ = std::thread([this] { poll_loop(); });
}

void LiveEnsemble::assign_ports(const std::vector<int>& ports) {
  servers_.resize(static_cast<std::size_t>(config_.servers));
  for (int index = 0; index < config_.servers; index++) {
    Server& entry = servers_[static_cast<std::size_t>(index)];
    entry.client_port = ports[static_cast<std::size_t>(3 * index)];
    entry.quorum_port = ports[static_cast<std::size_t>(3 * index + 1)];
    entry.election_port = ports[static_cast<std::size_t>(3 * index + 2)];
    if (network_) entry.host = network_->host(index + 1);
  }
  write_configuration();
}

void LiveEnsemble::remove_folder() noexcept {
  if (config_.keep_folder) return;
  std::error_code ignored;
  std::filesystem::remove_all(folder_, ignored);
  unregister_cleanup_folder(folder_);
}

LiveEnsemble::~LiveEnsemble() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  polled_.notify_all();
  if (poller_.joinable()) poller_.join();
  for (Server& entry : servers_) entry.process.kill();
  network_.reset();  // the namespaces, now that no server runs in them
  remove_folder();
}

void LiveEnsemble::write_configuration() const {
  for (int sid = 1; sid <= config_.servers; sid++) {
    std::filesystem::path home = folder_ / ("zk" + std::to_string(sid));
    std::filesystem::create_directories(home / "data");
    std::ofstream(home / "data" / "myid") << sid << "\n";
    std::ofstream cfg(home / "zoo.cfg");
    cfg << "# written by electsim live mode (live/ensemble.cpp)\n"
        << "tickTime=" << config_.tick_time.count() << "\n"
        << "initLimit=" << config_.init_limit << "\n"
        << "syncLimit=" << config_.sync_limit << "\n";
    if (config_.min_session_timeout) cfg << "minSessionTimeout=" << config_.min_session_timeout->count() << "\n";
    if (config_.max_session_timeout) cfg << "maxSessionTimeout=" << config_.max_session_timeout->count() << "\n";
    cfg << "dataDir=" << (home / "data").string() << "\n"
        << "clientPort=" << server(sid).client_port << "\n"
        << "clientPortAddress=" << server(sid).host << "\n"
        // The four-letter words the poller needs, and nothing else; no Jetty admin server (it would
        // need one more port per server and is not observed).
        << "4lw.commands.whitelist=srvr,mntr,stat\n"
        << "admin.enableServer=false\n"
        // Small preallocation of the txn log: runs are short, and the disk is shared.
        << "preAllocSize=1024\n";
    for (int peer = 1; peer <= config_.servers; peer++) {
      cfg << "server." << peer << "=" << server(peer).host << ":" << server(peer).quorum_port << ":" << server(peer).election_port << "\n";
    }
    if (!cfg) throw std::runtime_error("live mode: cannot write " + (home / "zoo.cfg").string());
  }
}

LiveEnsemble::Server& LiveEnsemble::server(int sid) {
  ELECTSIM_ASSERT(sid >= 1 && sid <= config_.servers);
  return servers_[static_cast<std::size_t>(sid - 1)];
}

const LiveEnsemble::Server& LiveEnsemble::server(int sid) const {
  ELECTSIM_ASSERT(sid >= 1 && sid <= config_.servers);
  return servers_[static_cast<std::size_t>(sid - 1)];
}

std::string LiveEnsemble::connect_string() const {
  std::string text;
  for (int sid = 1; sid <= config_.servers; sid++) {
    if (!text.empty()) text += ",";
    text += client_endpoint(sid).text();
  }
  return text;
}

Endpoint LiveEnsemble::client_endpoint(int sid) const {
  return Endpoint(server(sid).host, static_cast<std::uint16_t>(server(sid).client_port));
}

void LiveEnsemble::start(int sid) {
  std::filesystem::path home = folder_ / ("zk" + std::to_string(sid));
  std::vector<std::string> argv;
  if (network_) argv = network_->exec_prefix(sid);  // `ip netns exec NAME` execs java in place
  argv.insert(argv.end(), {
      installation_.java.string(),
      // A small heap and a quick start: several JVMs share two cores here, and the runs are short.
      "-Xmx192m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto",
      "-Djava.net.preferIPv4Stack=true", "-Dorg.slf4j.simpleLogger.showDateTime=true",
      "-Dorg.slf4j.simpleLogger.dateTimeFormat=HH:mm:ss.SSS", "-Dzookeeper.jmx.log4j.disable=true",
      "-cp", installation_.class_path, "org.apache.zookeeper.server.quorum.QuorumPeerMain", (home / "zoo.cfg").string()});
  std::lock_guard lock(mutex_);
  Server& entry = server(sid);
  ELECTSIM_ASSERT(!entry.process.running());
  if (network_) network_->set_powered_off(sid, false);  // power back on: peers' old connections get a reset
  entry.process = ChildProcess::exec(argv, home, home / "server.log");
  entry.paused = false;
}

void LiveEnsemble::kill(int sid) {
  std::lock_guard lock(mutex_);
  Server& entry = server(sid);
  ELECTSIM_ASSERT(entry.process.running());
  entry.process.kill();
  entry.paused = false;
  entry.resume_at.reset();
}

void LiveEnsemble::power_off(int sid) {
  if (!network_) {
    pause(sid);
    return;
  }
  std::lock_guard lock(mutex_);
  Server& entry = server(sid);
  ELECTSIM_ASSERT(entry.process.running());
  network_->set_powered_off(sid, true);
  entry.process.kill();
  entry.paused = false;
  entry.resume_at.reset();
}

void LiveEnsemble::set_links(const std::vector<std::vector<bool>>& delivered) {
  ELECTSIM_ASSERT_MSG(network_ != nullptr, "live mode: links between servers need network namespaces");
  std::lock_guard lock(mutex_);
  network_->set_links(delivered);
}

void LiveEnsemble::pause(int sid) {
  std::lock_guard lock(mutex_);
  Server& entry = server(sid);
  ELECTSIM_ASSERT(entry.process.running());
  entry.process.stop();
  entry.paused = true;
}

void LiveEnsemble::resume(int sid) {
  std::lock_guard lock(mutex_);
  Server& entry = server(sid);
  ELECTSIM_ASSERT(entry.process.running());
  entry.process.resume();
  entry.paused = false;
  entry.resume_at.reset();
}

void LiveEnsemble::pause_for(int sid, Milliseconds pause_for) {
  ELECTSIM_ASSERT(pause_for.count() > 0);
  pause(sid);
  std::lock_guard lock(mutex_);
  server(sid).resume_at = Clock::now() + pause_for;
}

bool LiveEnsemble::running(int sid) const {
  std::lock_guard lock(mutex_);
  return server(sid).process.running();
}

ServerStatus LiveEnsemble::status(int sid) const {
  std::lock_guard lock(mutex_);
  return server(sid).status;
}

std::vector<Observation> LiveEnsemble::observations() const {
  std::lock_guard lock(mutex_);
  return observations_;
}

std::optional<int> leader_of(const std::vector<ServerStatus>& statuses) {
  std::optional<int> found;
  for (std::size_t index = 0; index < statuses.size(); index++) {
    if (statuses[index].mode != ServerMode::leader) continue;
    if (found) return std::nullopt;  // two LEADING at once: possible briefly after a pause
    found = static_cast<int>(index + 1);
  }
  return found;
}

std::vector<ServerStatus> LiveEnsemble::statuses_locked() const {
  std::vector<ServerStatus> statuses;
  for (const Server& entry : servers_) statuses.push_back(entry.status);
  return statuses;
}

std::optional<int> LiveEnsemble::leader() const {
  std::lock_guard lock(mutex_);
  return leader_of(statuses_locked());
}

std::optional<Clock::time_point> LiveEnsemble::wait_until(const Condition& condition, Clock::time_point deadline) const {
  std::unique_lock lock(mutex_);
  Clock::time_point seen_round = last_poll_time_;
  while (true) {
    // Judge each poll round once, on the statuses it produced.
    if (condition(statuses_locked())) return last_poll_time_;
    if (stopping_ || Clock::now() >= deadline) return std::nullopt;
    polled_.wait_until(lock, deadline, [&] { return stopping_ || last_poll_time_ != seen_round; });
    seen_round = last_poll_time_;
  }
}

void LiveEnsemble::poll_loop() {
  // The query timeout is the poll interval: a server that does not answer within it is reported as
  // no-answer (a paused JVM), which the next round re-checks.
  while (true) {
    std::vector<std::pair<int, Endpoint>> to_poll;  // the running servers
    {
      std::lock_guard lock(mutex_);
      if (stopping_) return;
      for (int sid = 1; sid <= config_.servers; sid++) {
        Server& entry = server(sid);
        if (entry.resume_at && Clock::now() >= *entry.resume_at) {
          entry.resume_at.reset();
          if (entry.process.running() && entry.paused) entry.process.resume();
          entry.paused = false;
        }
        // A paused (SIGSTOPped) server is not asked: it cannot answer, and every unanswered query
        // would wait in its accept queue, delaying its clients' own connects after the resume.
        if (entry.process.running() && !entry.paused) to_poll.emplace_back(sid, client_endpoint(sid));
      }
    }
    std::vector<std::pair<int, ServerStatus>> answers;
    for (const auto& [sid, endpoint] : to_poll) answers.emplace_back(sid, query_srvr(endpoint, config_.poll_interval));
    Clock::time_point now = Clock::now();
    {
      std::lock_guard lock(mutex_);
      last_poll_time_ = now;
      for (int sid = 1; sid <= config_.servers; sid++) {
        Server& entry = server(sid);
        ServerStatus fresh{ServerMode::down, std::nullopt};
        for (const auto& [answered, status] : answers) {
          if (answered == sid) fresh = status;
        }
        if (!entry.process.running()) fresh = ServerStatus{ServerMode::down, std::nullopt};
        if (entry.process.running() && entry.paused) fresh = ServerStatus{ServerMode::no_answer, std::nullopt};
        if (fresh.mode != entry.status.mode || fresh.zxid != entry.status.zxid) {
          entry.status = fresh;
          observations_.push_back(Observation{now, sid, fresh});
        }
      }
    }
    polled_.notify_all();
    std::this_thread::sleep_for(config_.poll_interval);
  }
}

}  // namespace live
