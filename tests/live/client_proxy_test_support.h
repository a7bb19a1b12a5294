// Helpers of the ClientProxy tests (client_proxy_test.cpp, client_proxy_limits_test.cpp): sockets,
// echo servers and waits. Timing: waits poll with generous deadlines (a loaded 2-core machine); only
// "nothing arrives" uses a fixed window, and it can only make a broken proxy pass, never a working
// one fail.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "live/client_proxy.h"

namespace proxy_test {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

constexpr Clock::duration patience = std::chrono::seconds(10);
constexpr milliseconds silence_window{300};

// Checks `condition` every 5 ms until it holds or `timeout` passes.
template <typename Condition>
inline bool eventually(Condition condition, Clock::duration timeout = patience) {
  Clock::time_point deadline = Clock::now() + timeout;
  while (!condition()) {
    if (Clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));
  }
  return true;
}

inline sockaddr_in loopback(std::uint16_t port) { return live::Endpoint(port).socket_address(); }

class Socket {
 public:
  explicit Socket(int fd = -1) : fd_(fd) {}
  Socket(Socket&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  Socket& operator=(Socket&& other) noexcept {
    std::swap(fd_, other.fd_);
    return *this;
  }
  ~Socket() {
    if (fd_ >= 0) ::close(fd_);
  }
  int fd() const { return fd_; }

 private:
  int fd_;
};

// A blocking connect to 127.0.0.1:port; `error` gets errno when it fails.
inline Socket connect_to(std::uint16_t port, int* error = nullptr) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) throw std::runtime_error(std::string("socket: ") + std::strerror(errno));
  sockaddr_in address = loopback(port);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    if (error != nullptr) *error = errno;
    ::close(fd);
    return Socket();
  }
  if (error != nullptr) *error = 0;
  return Socket(fd);
}

inline void send_all(int fd, const std::string& data) {
  std::size_t done = 0;
  while (done < data.size()) {
    ssize_t sent = ::send(fd, data.data() + done, data.size() - done, MSG_NOSIGNAL);
    if (sent < 0) throw std::runtime_error(std::string("send: ") + std::strerror(errno));
    done += static_cast<std::size_t>(sent);
  }
}

// Up to `count` bytes, stopping early at the deadline, at EOF or on an error.
inline std::string receive(int fd, std::size_t count, Clock::duration timeout = patience) {
  Clock::time_point deadline = Clock::now() + timeout;
  std::string data;
  std::vector<char> chunk(64 * 1024);
  while (data.size() < count) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) break;
    pollfd polled{fd, POLLIN, 0};
    if (::poll(&polled, 1, static_cast<int>(left)) <= 0) continue;
    ssize_t received = ::recv(fd, chunk.data(), std::min(chunk.size(), count - data.size()), 0);
    if (received <= 0) break;
    data.append(chunk.data(), static_cast<std::size_t>(received));
  }
  return data;
}

// True when nothing (no byte, no close) arrives on `fd` for the silence window.
inline bool silent(int fd) {
  pollfd polled{fd, POLLIN, 0};
  return ::poll(&polled, 1, static_cast<int>(silence_window.count())) == 0;
}

// True when the peer closes or resets the connection before the deadline (data before it is skipped).
inline bool sees_close(int fd, Clock::duration timeout = patience) {
  Clock::time_point deadline = Clock::now() + timeout;
  char chunk[4096];
  while (true) {
    auto left = std::chrono::duration_cast<milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return false;
    pollfd polled{fd, POLLIN, 0};
    if (::poll(&polled, 1, static_cast<int>(left)) <= 0) continue;
    ssize_t received = ::recv(fd, chunk, sizeof chunk, 0);
    if (received == 0) return true;
    if (received < 0 && errno != EINTR && errno != EAGAIN) return true;
  }
}

// Sends `data` and expects it back, as the echo server returns it through the proxy.
inline void expect_echo(int fd, const std::string& data) {
  send_all(fd, data);
  EXPECT_EQ(receive(fd, data.size()), data);
}

// The client's listening ports, from its connect string.
inline std::vector<std::uint16_t> ports_of(const std::string& connect_string) {
  std::vector<std::uint16_t> ports;
  std::stringstream stream(connect_string);
  std::string entry;
  while (std::getline(stream, entry, ',')) {
    EXPECT_EQ(entry.rfind("127.0.0.1:", 0), 0u) << entry;
    ports.push_back(static_cast<std::uint16_t>(std::stoi(entry.substr(entry.find(':') + 1))));
  }
  return ports;
}

inline std::uint16_t proxy_port(const live::ClientProxy& proxy, int client, int server) {
  return ports_of(proxy.connect_string(client)).at(static_cast<std::size_t>(server));
}

// A port nothing listens on (bound, read, closed).
inline std::uint16_t unused_port() {
  Socket socket(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address = loopback(0);
  socklen_t length = sizeof address;
  if (::bind(socket.fd(), reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      ::getsockname(socket.fd(), reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    throw std::runtime_error(std::string("bind: ") + std::strerror(errno));
  }
  return ntohs(address.sin_port);
}

// Echoes every byte back on every connection, on its own thread; a chunk holding '!' is echoed and
// then the connection is closed (a server that goes away). Counts connections accepted and ended.
class EchoServer {
 public:
  EchoServer() {
    listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in address = loopback(0);
    socklen_t length = sizeof address;
    if (listen_fd_ < 0 || ::bind(listen_fd_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        ::listen(listen_fd_, 64) != 0 || ::getsockname(listen_fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0 ||
        ::pipe2(stop_, O_CLOEXEC) != 0) {
      throw std::runtime_error(std::string("echo server: ") + std::strerror(errno));
    }
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { run(); });
  }
  ~EchoServer() {
    (void)!::write(stop_[1], "x", 1);
    thread_.join();
    for (int fd : connections_) ::close(fd);
    ::close(listen_fd_);
    ::close(stop_[0]);
    ::close(stop_[1]);
  }
  std::uint16_t port() const { return port_; }
  int accepted() const { return accepted_.load(); }
  int ended() const { return ended_.load(); }

 private:
  void run() {
    std::vector<char> chunk(64 * 1024);
    while (true) {
      std::vector<pollfd> polled{{stop_[0], POLLIN, 0}, {listen_fd_, POLLIN, 0}};
      for (int fd : connections_) polled.push_back(pollfd{fd, POLLIN, 0});
      if (::poll(polled.data(), polled.size(), -1) < 0) continue;
      if (polled[0].revents != 0) return;
      if (polled[1].revents != 0) {
        int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (fd >= 0) {
          connections_.push_back(fd);
          accepted_++;
        }
      }
      for (std::size_t index = 2; index < polled.size(); index++) {
        if (polled[index].revents == 0) continue;
        int fd = polled[index].fd;
        ssize_t received = ::recv(fd, chunk.data(), chunk.size(), 0);
        bool end = received <= 0;
        if (received > 0) {
          std::string data(chunk.data(), static_cast<std::size_t>(received));
          try {
            send_all(fd, data);
          } catch (const std::exception&) {
            end = true;
          }
          if (data.find('!') != std::string::npos) end = true;
        }
        if (end) {
          ::close(fd);
          std::erase(connections_, fd);
          ended_++;
        }
      }
    }
  }

  int listen_fd_ = -1;
  int stop_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  std::vector<int> connections_;  // the server thread's only
  std::atomic<int> accepted_{0};
  std::atomic<int> ended_{0};
  std::thread thread_;
};

}  // namespace proxy_test
