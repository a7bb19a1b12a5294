#include "live/four_letter.h"

#include <arpa/inet.h>
#include <cerrno>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/assert.h"

namespace live {

std::string_view server_mode_name(ServerMode mode) {
  switch (mode) {
    case ServerMode::down: return "down";
    case ServerMode::no_answer: return "no-answer";
    case ServerMode::not_serving: return "not-serving";
    case ServerMode::leader: return "leader";
    case ServerMode::follower: return "follower";
    case ServerMode::observer: return "observer";
    case ServerMode::standalone: return "standalone";
  }
  ELECTSIM_UNREACHABLE();
}

ServerStatus parse_srvr(const std::string& answer) {
  ServerStatus status;
  if (answer.find("not currently serving requests") != std::string::npos) {
    status.mode = ServerMode::not_serving;
    return status;
  }
  auto line_value = [&](std::string_view key) -> std::optional<std::string> {
    std::size_t at = answer.find(key);
    if (at == std::string::npos) return std::nullopt;
    std::size_t begin = at + key.size();
    std::size_t end = answer.find('\n', begin);
    return answer.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
  };
  std::optional<std::string> mode = line_value("Mode: ");
  if (!mode) {
    status.mode = ServerMode::no_answer;  // an empty or cut answer: treat as silence
    return status;
  }
  if (mode->starts_with("leader")) status.mode = ServerMode::leader;
  else if (mode->starts_with("follower")) status.mode = ServerMode::follower;
  else if (mode->starts_with("observer")) status.mode = ServerMode::observer;
  else if (mode->starts_with("standalone")) status.mode = ServerMode::standalone;
  else status.mode = ServerMode::no_answer;
  if (std::optional<std::string> zxid = line_value("Zxid: ")) status.zxid = std::stoll(*zxid, nullptr, 16);
  return status;
}

namespace {

// A file descriptor closed on every path out.
struct Socket {
  int fd = -1;
  ~Socket() {
    if (fd >= 0) ::close(fd);
  }
};

bool wait_ready(int fd, short events, std::chrono::steady_clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
  if (left.count() <= 0) return false;
  pollfd polled{fd, events, 0};
  int ready = ::poll(&polled, 1, static_cast<int>(left.count()));
  return ready > 0;
}

}  // namespace

ServerStatus query_srvr(const Endpoint& server, std::chrono::milliseconds timeout) {
  ELECTSIM_ASSERT(server.port > 0);
  auto deadline = std::chrono::steady_clock::now() + timeout;
  Socket socket{::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)};
  if (socket.fd < 0) return ServerStatus{ServerMode::down, std::nullopt};
  sockaddr_in address = server.socket_address();
  if (::connect(socket.fd, reinterpret_cast<sockaddr*>(&address), sizeof address) < 0) {
    if (errno != EINPROGRESS) return ServerStatus{ServerMode::down, std::nullopt};
    if (!wait_ready(socket.fd, POLLOUT, deadline)) return ServerStatus{ServerMode::no_answer, std::nullopt};
    int error = 0;
    socklen_t length = sizeof error;
    ::getsockopt(socket.fd, SOL_SOCKET, SO_ERROR, &error, &length);
    if (error != 0) return ServerStatus{ServerMode::down, std::nullopt};
  }
  const char command[] = "srvr";
  if (::send(socket.fd, command, sizeof command - 1, MSG_NOSIGNAL) != static_cast<ssize_t>(sizeof command - 1)) {
    return ServerStatus{ServerMode::down, std::nullopt};
  }
  // The server writes the answer and closes (NIOServerCnxn.cleanupWriterSocket); read up to EOF.
  std::string answer;
  constexpr std::size_t answer_size_max = 64 * 1024;
  char buffer[4096];
  while (answer.size() < answer_size_max) {
    if (!wait_ready(socket.fd, POLLIN, deadline)) return ServerStatus{ServerMode::no_answer, std::nullopt};
    ssize_t got = ::recv(socket.fd, buffer, sizeof buffer, 0);
    if (got < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (got < 0) return ServerStatus{answer.empty() ? ServerMode::down : ServerMode::no_answer, std::nullopt};
    if (got == 0) break;
    answer.append(buffer, static_cast<std::size_t>(got));
  }
  return parse_srvr(answer);
}

}  // namespace live
