#include "live/client_proxy.h"

#include <algorithm>
#include <arpa/inet.h>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdexcept>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

namespace live {

namespace {

constexpr std::size_t scratch_size = 64 * 1024;
// A few accepts per listener and round, so one busy port cannot starve the others.
constexpr int accepts_per_round = 16;

// The poll thread reports and drops; it must not throw or allocate to say so.
void log_failure(const char* what, int client, int server, int error) noexcept {
  if (client < 0) std::fprintf(stderr, "live mode: client proxy: %s: %s\n", what, std::strerror(error));
  else std::fprintf(stderr, "live mode: client proxy: client %d, server %d: %s: %s\n", client, server, what, std::strerror(error));
}

// What a peer going away looks like on loopback: normal in a fault-injection run, not worth a log line.
bool is_disconnect(int error) {
  return error == ECONNREFUSED || error == ECONNRESET || error == EPIPE || error == ETIMEDOUT || error == ECONNABORTED;
}

bool is_retry(int error) { return error == EAGAIN || error == EWOULDBLOCK || error == EINTR; }

// SO_LINGER {1, 0}: close() then sends a RST and drops unsent data, as the kernel does for a killed
// process whose socket still had unread input; the peer learns at once instead of by timeout.
void reset_and_close(int fd) {
  if (fd < 0) return;
  linger abort{1, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abort, sizeof abort);
  ::close(fd);
}

void close_fd(int fd) {
  if (fd >= 0) ::close(fd);
}

// The C client and the ZooKeeper server both disable Nagle; the proxy must not add its delays.
void set_no_delay(int fd) {
  int on = 1;
  ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

sockaddr_in loopback(std::uint16_t port) { return live::Endpoint(port).socket_address(); }

// Takes `error` (errno) as an argument: building the message may allocate, which may change errno.
std::string socket_error(const char* what, int error) {
  return std::string("live mode: client proxy: ") + what + ": " + std::strerror(error);
}

}  // namespace

ClientProxy::ClientProxy() : scratch_(scratch_size) {
  wake_fd_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
  if (wake_fd_ < 0) throw std::runtime_error(socket_error("eventfd", errno));
  try {
    thread_ = std::thread([this] { run(); });
  } catch (...) {
    ::close(wake_fd_);
    throw;
  }
}

ClientProxy::~ClientProxy() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    requested_round_++;
  }
  wake();
  changed_.notify_all();
  thread_.join();
  drop_all_links();
  for (Client& client : clients_) {
    for (int fd : client.listen_fds) close_fd(fd);
  }
  ::close(wake_fd_);
}

int ClientProxy::add_client(const std::vector<Endpoint>& servers) {
  if (servers.empty()) throw std::invalid_argument("live mode: client proxy: a client needs at least one server port");
  if (servers.size() > static_cast<std::size_t>(servers_max)) {
    throw std::invalid_argument("live mode: client proxy: more than " + std::to_string(servers_max) + " servers for one client");
  }
  for (const Endpoint& server : servers) {
    if (server.port == 0) throw std::invalid_argument("live mode: client proxy: server port 0");
    server.socket_address();  // throws on a bad address, before anything is opened
  }
  {
    std::lock_guard lock(mutex_);
    if (open_clients() >= clients_max) {
      throw std::runtime_error("live mode: client proxy: more than " + std::to_string(clients_max) + " clients at once");
    }
  }
  // The sockets are made outside the lock: nothing shares them until the client is registered.
  Client client;
  client.servers = servers;
  client.cut.assign(servers.size(), 0);
  client.listen_fds.reserve(servers.size());  // push_back below cannot throw and leak a socket
  client.listen_ports.reserve(servers.size());
  auto give_up = [&](const char* what) {
    std::string message = socket_error(what, errno);
    for (int fd : client.listen_fds) ::close(fd);
    throw std::runtime_error(message);
  };
  for (std::size_t server = 0; server < servers.size(); server++) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) give_up("socket for a listening port");
    client.listen_fds.push_back(fd);
    sockaddr_in address = loopback(0);  // the kernel picks a free port
    socklen_t length = sizeof address;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) give_up("bind to 127.0.0.1:0");
    if (::listen(fd, SOMAXCONN) != 0) give_up("listen");
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length) != 0) give_up("getsockname");
    client.listen_ports.push_back(ntohs(address.sin_port));
  }
  std::unique_lock lock(mutex_);
  if (open_clients() >= clients_max) {  // another thread took the last place meanwhile
    for (int fd : client.listen_fds) ::close(fd);
    throw std::runtime_error("live mode: client proxy: more than " + std::to_string(clients_max) + " clients at once");
  }
  clients_.push_back(std::move(client));
  int number = static_cast<int>(clients_.size()) - 1;
  apply_and_wait(lock);  // the poll thread listens from now on
  return number;
}

std::string ClientProxy::connect_string(int client) const {
  std::lock_guard lock(mutex_);
  check_client(client);
  std::string text;
  for (std::uint16_t port : clients_[static_cast<std::size_t>(client)].listen_ports) {
    if (!text.empty()) text += ',';
    text += "127.0.0.1:" + std::to_string(port);
  }
  return text;
}

void ClientProxy::crash(int client) {
  std::unique_lock lock(mutex_);
  check_client(client);
  clients_[static_cast<std::size_t>(client)].crashed = true;
  // Waiting matters here: a socket that poll(2) is watching stays alive until poll returns, so the
  // resets and the refusals start only once the poll thread has closed the sockets outside poll.
  apply_and_wait(lock);
}

void ClientProxy::release(int client) {
  std::unique_lock lock(mutex_);
  check_client(client);
  clients_[static_cast<std::size_t>(client)].released = true;
  apply_and_wait(lock);  // the ports are closed (refusing) from when this returns
}

int ClientProxy::open_clients() const {
  int open = 0;
  for (const Client& client : clients_) open += client.crashed || client.released ? 0 : 1;
  return open;
}

void ClientProxy::set_paused(int client, bool paused) {
  std::unique_lock lock(mutex_);
  check_client(client);
  clients_[static_cast<std::size_t>(client)].paused = paused;
  apply_and_wait(lock);
}

void ClientProxy::set_cut(int client, int server, bool cut) {
  std::unique_lock lock(mutex_);
  check_client(client);
  Client& entry = clients_[static_cast<std::size_t>(client)];
  if (server < 0 || static_cast<std::size_t>(server) >= entry.servers.size()) {
    throw std::invalid_argument("live mode: client proxy: client " + std::to_string(client) + " has no server " + std::to_string(server) +
                                " (it has " + std::to_string(entry.servers.size()) + ")");
  }
  entry.cut[static_cast<std::size_t>(server)] = cut ? 1 : 0;
  apply_and_wait(lock);
}

std::uint64_t ClientProxy::bytes_forwarded(int client) const {
  std::lock_guard lock(mutex_);
  check_client(client);
  return clients_[static_cast<std::size_t>(client)].bytes_forwarded;
}

void ClientProxy::check_client(int client) const {
  if (client < 0 || static_cast<std::size_t>(client) >= clients_.size()) {
    throw std::invalid_argument("live mode: client proxy: no client " + std::to_string(client) + " (" + std::to_string(clients_.size()) +
                                " registered)");
  }
}

void ClientProxy::apply_and_wait(std::unique_lock<std::mutex>& lock) {
  std::uint64_t round = ++requested_round_;
  wake();
  changed_.notify_all();
  applied_.wait(lock, [&] { return applied_round_ >= round; });
}

void ClientProxy::wake() const {
  std::uint64_t one = 1;
  // Cannot fail short of the counter overflowing, and then the poll thread is awake anyway.
  (void)!::write(wake_fd_, &one, sizeof one);
}

// The poll thread. It holds the mutex except inside poll(2), so the public methods see a consistent
// state, and it alone closes link and listening sockets: a descriptor number is never reused under a
// poll set that still names it. All sockets are non-blocking, so a round never waits on a peer.
void ClientProxy::run() noexcept {
  std::vector<pollfd> polled;
  std::vector<Polled> owners;
  std::unique_lock lock(mutex_);
  while (true) {
    std::uint64_t round = requested_round_;
    // After a refused accept (EMFILE), a public call is the chance to try again; not every round,
    // or the still readable listener would make the loop spin.
    if (round != applied_round_) out_of_descriptors_ = false;
    try {
      apply_changes();
      build_poll_set(polled, owners);
    } catch (const std::exception&) {  // only allocation can fail here
      log_failure("out of memory, dropping every link", -1, -1, ENOMEM);
      drop_all_links();
      polled.clear();
      owners.clear();
      polled.push_back(pollfd{wake_fd_, POLLIN, 0});
      owners.push_back(Polled{Polled::Kind::wake, -1, -1, 0, 0, -1});
    }
    applied_round_ = round;
    applied_.notify_all();
    if (stopping_) return;
    lock.unlock();
    int ready = ::poll(polled.data(), polled.size(), -1);
    int poll_error = errno;
    lock.lock();
    if (ready < 0) {
      if (poll_error == EINTR) continue;
      // Not expected (the set is within RLIMIT_NOFILE); retrying at once would spin, so drop the
      // links and wait for the next public call.
      log_failure("poll failed, dropping every link", -1, -1, poll_error);
      drop_all_links();
      changed_.wait(lock, [&] { return stopping_ || requested_round_ != applied_round_; });
      continue;
    }
    try {
      service(polled, owners);
    } catch (const std::exception&) {  // a new link could not be recorded
      log_failure("out of memory, dropping every link", -1, -1, ENOMEM);
      drop_all_links();
    }
  }
}

void ClientProxy::apply_changes() {
  for (std::size_t index = 0; index < clients_.size(); index++) {
    Client& client = clients_[index];
    if (!client.crashed || client.crash_applied) continue;
    for (auto at = links_.begin(); at != links_.end();) {
      at = at->second.client == static_cast<int>(index) ? close_link(at, Outcome::reset_both) : std::next(at);
    }
    for (int& fd : client.listen_fds) {
      close_fd(fd);
      fd = -1;
    }
    client.crash_applied = true;
  }
  for (Client& client : clients_) {
    if (!client.released || client.release_applied) continue;
    for (int& fd : client.listen_fds) {
      close_fd(fd);
      fd = -1;
    }
    client.release_applied = true;
  }
  // Connections accepted while paused or cut are connected onward once the silence ends, except those
  // the client has given up on meanwhile (its FIN is queued already): they never reach the server.
  for (auto at = links_.begin(); at != links_.end();) {
    Link& link = at->second;
    if (link.stage == Link::Stage::held && !blocked(link)) {
      pollfd probe{link.client_fd, POLLRDHUP, 0};
      if (::poll(&probe, 1, 0) > 0) {
        at = close_link(at, Outcome::close);
        continue;
      }
      start_connect(link);
      if (link.stage == Link::Stage::held) {
        at = close_link(at, Outcome::reset_client);
        continue;
      }
    }
    ++at;
  }
}

bool ClientProxy::blocked(const Link& link) const {
  const Client& client = clients_[static_cast<std::size_t>(link.client)];
  return client.paused || client.cut[static_cast<std::size_t>(link.server)] != 0;
}

void ClientProxy::build_poll_set(std::vector<pollfd>& polled, std::vector<Polled>& owners) {
  polled.clear();
  owners.clear();
  polled.push_back(pollfd{wake_fd_, POLLIN, 0});
  owners.push_back(Polled{Polled::Kind::wake, -1, -1, 0, 0, -1});
  auto add = [&](int fd, short events) {
    polled.push_back(pollfd{fd, events, 0});
    return static_cast<int>(polled.size()) - 1;
  };
  if (!out_of_descriptors_) {
    for (std::size_t client = 0; client < clients_.size(); client++) {
      if (clients_[client].crashed || clients_[client].released) continue;
      for (std::size_t server = 0; server < clients_[client].listen_fds.size(); server++) {
        Polled owner{Polled::Kind::listener, static_cast<int>(client), static_cast<int>(server), 0, -1, -1};
        owner.index = add(clients_[client].listen_fds[server], POLLIN);
        owners.push_back(owner);
      }
    }
  }
  for (auto& [id, link] : links_) {
    Polled owner{Polled::Kind::link, link.client, link.server, id, -1, -1};
    if (link.stage == Link::Stage::held) {
      // Accepted during a silence. The C client's I/O thread keeps running and gives up on such a
      // connection after its timeout, then tries again: notice the close (POLLRDHUP reads nothing),
      // or the abandoned connections would pile up to links_per_client_max.
      owner.index = add(link.client_fd, POLLRDHUP);
      owners.push_back(owner);
      continue;
    }
    // Silence: neither socket is read or written, so the data stays in the kernel's buffers and the
    // peers see nothing, not even a close (POLLHUP/POLLERR would be reported, so not polled at all).
    if (blocked(link)) continue;
    bool draining = link.client_eof || link.server_eof;
    bool open = link.stage == Link::Stage::open;
    if (!link.client_eof) {
      short events = 0;
      if (!draining && link.to_server.has_room()) events |= POLLIN;
      if (link.to_client.pending() > 0) events |= POLLOUT;  // only with data: no busy POLLOUT
      owner.index = add(link.client_fd, events);  // even with no events: POLLERR/POLLHUP end the link
    }
    if (!link.server_eof) {
      short events = 0;
      if (link.stage == Link::Stage::connecting) events |= POLLOUT;  // the connect's completion
      if (open && !draining && link.to_client.has_room()) events |= POLLIN;
      if (open && link.to_server.pending() > 0) events |= POLLOUT;
      owner.server_index = add(link.server_fd, events);
    }
    owners.push_back(owner);
  }
}

void ClientProxy::service(const std::vector<pollfd>& polled, const std::vector<Polled>& owners) {
  for (const Polled& owner : owners) {
    switch (owner.kind) {
      case Polled::Kind::wake: {
        if (polled[static_cast<std::size_t>(owner.index)].revents != 0) {
          std::uint64_t count = 0;
          (void)!::read(wake_fd_, &count, sizeof count);
        }
        break;
      }
      case Polled::Kind::listener: {
        if (polled[static_cast<std::size_t>(owner.index)].revents == 0) break;
        const Client& client = clients_[static_cast<std::size_t>(owner.client)];
        if (client.crashed || client.released || out_of_descriptors_) break;
        accept_connections(owner.client, owner.server);
        break;
      }
      case Polled::Kind::link: {
        auto at = links_.find(owner.link);
        if (at == links_.end()) break;  // closed earlier in this round
        Link& link = at->second;
        short client_events = owner.index >= 0 ? polled[static_cast<std::size_t>(owner.index)].revents : 0;
        short server_events = owner.server_index >= 0 ? polled[static_cast<std::size_t>(owner.server_index)].revents : 0;
        if (link.stage == Link::Stage::held) {
          if (client_events != 0) close_link(at, Outcome::close);  // the client gave up before the server saw it
          break;
        }
        if (blocked(link)) break;  // paused or cut since the poll set was made
        if (client_events == 0 && server_events == 0) break;
        Outcome outcome = Outcome::reset_both;
        try {
          outcome = service_link(link, client_events, server_events);
        } catch (const std::exception&) {  // a buffer could not grow
          log_failure("out of memory, dropping the link", link.client, link.server, ENOMEM);
        }
        if (outcome != Outcome::keep) close_link(at, outcome);
        break;
      }
    }
  }
}

void ClientProxy::accept_connections(int client, int server) {
  Client& entry = clients_[static_cast<std::size_t>(client)];
  int listen_fd = entry.listen_fds[static_cast<std::size_t>(server)];
  for (int count = 0; count < accepts_per_round; count++) {
    int fd = ::accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (is_retry(errno)) return;
      if (errno == ECONNABORTED || errno == EPROTO) continue;  // that connection is gone already
      // EMFILE and the like: the listener stays readable, so polling it again would spin. Stop
      // accepting until a link closes or a public call comes; the kernel keeps the backlog.
      log_failure("accept failed, not accepting until a link closes", client, server, errno);
      out_of_descriptors_ = true;
      return;
    }
    if (entry.links >= links_per_client_max) {
      // A client that never completes a connection (its handshake times out) tries again at once,
      // hundreds of times a second: said once per client, not once per refused connection.
      if (!entry.said_too_many_links) {
        std::fprintf(stderr,
                     "live mode: client proxy: client %d, server %d: more than %d connections at once, refusing them (said once)\n",
                     client, server, links_per_client_max);
        entry.said_too_many_links = true;
      }
      reset_and_close(fd);
      continue;
    }
    set_no_delay(fd);
    std::uint64_t id = next_link_++;
    Link& link = links_[id];
    link.client = client;
    link.server = server;
    link.client_fd = fd;
    entry.links++;
    if (!blocked(link)) {
      start_connect(link);
      if (link.stage == Link::Stage::held) close_link(links_.find(id), Outcome::reset_client);
    }
  }
}

// Leaves the link held when the connect failed at once: the caller closes it.
void ClientProxy::start_connect(Link& link) {
  const Endpoint& server = clients_[static_cast<std::size_t>(link.client)].servers[static_cast<std::size_t>(link.server)];
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) {
    log_failure("socket for the onward connection", link.client, link.server, errno);
    return;
  }
  set_no_delay(fd);
  sockaddr_in address = server.socket_address();
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0) {
    link.stage = Link::Stage::open;
  } else if (errno == EINPROGRESS || errno == EINTR) {  // after EINTR the connect goes on in the background
    link.stage = Link::Stage::connecting;
  } else {
    // A refused connect is a server that is down: the client sees its connection end, as it would.
    if (!is_disconnect(errno)) log_failure("connect to the server", link.client, link.server, errno);
    ::close(fd);
    return;
  }
  link.server_fd = fd;
}

ClientProxy::Outcome ClientProxy::service_link(Link& link, short client_events, short server_events) {
  if ((client_events | server_events) & POLLNVAL) {
    log_failure("a socket of the link is not open", link.client, link.server, EBADF);
    return Outcome::reset_both;
  }
  if (link.stage == Link::Stage::connecting && (server_events & (POLLOUT | POLLERR | POLLHUP)) != 0) {
    int error = 0;
    socklen_t length = sizeof error;
    if (::getsockopt(link.server_fd, SOL_SOCKET, SO_ERROR, &error, &length) != 0) error = errno;
    if (error != 0) {
      if (!is_disconnect(error)) log_failure("connect to the server", link.client, link.server, error);
      return Outcome::reset_client;
    }
    link.stage = Link::Stage::open;
    server_events &= static_cast<short>(~(POLLOUT | POLLERR | POLLHUP));
  }
  // An error on one side resets the other: a reset is what a crash or a broken connection shows.
  if (client_events & POLLERR) return Outcome::reset_server;
  if (server_events & POLLERR) return Outcome::reset_client;
  if ((client_events & (POLLIN | POLLHUP)) != 0 && !link.client_eof && !link.server_eof) {
    if (!link.to_server.has_room()) return Outcome::reset_server;  // POLLHUP with a full buffer: nothing more can move
    if (Outcome outcome = receive(link, true); outcome != Outcome::keep) return outcome;
  }
  if ((server_events & (POLLIN | POLLHUP)) != 0 && !link.client_eof && !link.server_eof) {
    if (!link.to_client.has_room()) return Outcome::reset_client;
    if (Outcome outcome = receive(link, false); outcome != Outcome::keep) return outcome;
  }
  // Write what is pending; right after a read this saves a poll round.
  if (link.stage == Link::Stage::open && !link.server_eof && link.to_server.pending() > 0) {
    if (Outcome outcome = flush(link, true); outcome != Outcome::keep) return outcome;
  }
  if (!link.client_eof && link.to_client.pending() > 0) {
    if (Outcome outcome = flush(link, false); outcome != Outcome::keep) return outcome;
  }
  // One side closed: once what it sent has reached the other side, close both (no half-close).
  if (link.client_eof && (link.server_eof || link.to_server.pending() == 0)) return Outcome::close;
  if (link.server_eof && (link.client_eof || link.to_client.pending() == 0)) return Outcome::close;
  return Outcome::keep;
}

ClientProxy::Outcome ClientProxy::receive(Link& link, bool from_client) {
  Pipe& pipe = from_client ? link.to_server : link.to_client;
  int fd = from_client ? link.client_fd : link.server_fd;
  std::size_t room = std::min(scratch_.size(), buffer_capacity - pipe.pending());
  ssize_t received = ::recv(fd, scratch_.data(), room, 0);
  if (received < 0) {
    if (is_retry(errno)) return Outcome::keep;
    const char* what = from_client ? "receive from the client" : "receive from the server";
    if (!is_disconnect(errno)) log_failure(what, link.client, link.server, errno);
    return from_client ? Outcome::reset_server : Outcome::reset_client;
  }
  if (received == 0) {
    (from_client ? link.client_eof : link.server_eof) = true;
    return Outcome::keep;  // the caller drains the other direction, then closes
  }
  // Drop what was already sent before appending, so the buffer never holds more than its capacity.
  if (pipe.sent > 0) {
    pipe.bytes.erase(pipe.bytes.begin(), pipe.bytes.begin() + static_cast<std::ptrdiff_t>(pipe.sent));
    pipe.sent = 0;
  }
  std::size_t needed = pipe.bytes.size() + static_cast<std::size_t>(received);
  if (needed > pipe.bytes.capacity()) pipe.bytes.reserve(std::min(buffer_capacity, std::max(needed, 2 * pipe.bytes.capacity())));
  pipe.bytes.insert(pipe.bytes.end(), scratch_.begin(), scratch_.begin() + received);
  return Outcome::keep;
}

ClientProxy::Outcome ClientProxy::flush(Link& link, bool toward_server) {
  Pipe& pipe = toward_server ? link.to_server : link.to_client;
  int fd = toward_server ? link.server_fd : link.client_fd;
  while (pipe.pending() > 0) {
    ssize_t sent = ::send(fd, pipe.bytes.data() + pipe.sent, pipe.pending(), MSG_NOSIGNAL);
    if (sent < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) break;  // POLLOUT next round
      if (!is_disconnect(errno)) log_failure(toward_server ? "send to the server" : "send to the client", link.client, link.server, errno);
      return toward_server ? Outcome::reset_client : Outcome::reset_server;
    }
    pipe.sent += static_cast<std::size_t>(sent);
    clients_[static_cast<std::size_t>(link.client)].bytes_forwarded += static_cast<std::uint64_t>(sent);
  }
  if (pipe.pending() == 0) {
    pipe.sent = 0;
    pipe.bytes.clear();
    // An idle link keeps a small buffer, not the largest burst it ever carried.
    if (pipe.bytes.capacity() > scratch_size) std::vector<char>().swap(pipe.bytes);
  }
  return Outcome::keep;
}

std::map<std::uint64_t, ClientProxy::Link>::iterator ClientProxy::close_link(std::map<std::uint64_t, Link>::iterator at, Outcome how) {
  Link& link = at->second;
  bool reset_client = how == Outcome::reset_client || how == Outcome::reset_both;
  bool reset_server = how == Outcome::reset_server || how == Outcome::reset_both;
  if (reset_client) reset_and_close(link.client_fd);
  else close_fd(link.client_fd);
  if (reset_server) reset_and_close(link.server_fd);
  else close_fd(link.server_fd);
  clients_[static_cast<std::size_t>(link.client)].links--;
  out_of_descriptors_ = false;  // descriptors were freed: accept again
  return links_.erase(at);
}

void ClientProxy::drop_all_links() noexcept {
  while (!links_.empty()) close_link(links_.begin(), Outcome::close);
}

}  // namespace live
