#include "live/forked_session.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <poll.h>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

#include "sim/assert.h"

namespace live {

namespace {

void write_all(int fd, const std::string& text) {
  std::size_t written = 0;
  while (written < text.size()) {
    ssize_t now = ::write(fd, text.data() + written, text.size() - written);
    if (now < 0 && errno == EINTR) continue;
    if (now <= 0) return;
    written += static_cast<std::size_t>(now);
  }
}

// One line from the child, or "" at the deadline or at EOF (the child died).
std::string read_line(int fd, Clock::time_point deadline) {
  std::string line;
  constexpr std::size_t line_size_max = 4096;
  while (line.size() < line_size_max) {
    auto left = std::chrono::duration_cast<Milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) return "";
    pollfd polled{fd, POLLIN, 0};
    int ready = ::poll(&polled, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return "";
    char byte = 0;
    ssize_t got = ::read(fd, &byte, 1);
    if (got <= 0) return "";
    if (byte == '\n') return line;
    line.push_back(byte);
  }
  return line;
}

}  // namespace

ForkedSession::ForkedSession(const std::string& connect_string, Milliseconds requested_timeout,
                             const std::string& ephemeral_path, Clock::time_point deadline) {
  int pipe_fds[2];
  if (::pipe2(pipe_fds, O_CLOEXEC) != 0) throw std::runtime_error(std::string("live mode: pipe: ") + std::strerror(errno));
  int read_end = pipe_fds[0];
  int write_end = pipe_fds[1];
  child_ = ChildProcess::fork([&]() -> int {
    ::close(read_end);
    LiveClient client(connect_string, requested_timeout);
    if (!client.wait_connected(deadline)) {
      write_all(write_end, "error not connected\n");
      return 1;
    }
    CreateOutcome created = client.create(ephemeral_path, "owner", NodeMode::ephemeral, deadline);
    if (created.code != 0) {
      write_all(write_end, "error create " + code_text(created.code) + "\n");
      return 1;
    }
    write_all(write_end, "ok " + std::to_string(client.negotiated_timeout().count()) + " " + created.path + "\n");
    // Wait to be killed: never close the session. pause() returns only for a handled signal.
    while (true) ::pause();
  });
  ::close(write_end);
  report_fd_ = read_end;
  std::string report = read_line(report_fd_, deadline);
  std::istringstream words(report);
  std::string status;
  long long negotiated = 0;
  words >> status;
  if (status != "ok") {
    child_.kill();
    ::close(report_fd_);
    report_fd_ = -1;
    throw std::runtime_error("live mode: the forked client failed: " + (report.empty() ? "no report before the deadline" : report));
  }
  words >> negotiated >> created_path_;
  negotiated_timeout_ = Milliseconds(negotiated);
  ELECTSIM_ASSERT(negotiated_timeout_.count() > 0);
}

ForkedSession::~ForkedSession() {
  child_.kill();
  if (report_fd_ >= 0) ::close(report_fd_);
}

Clock::time_point ForkedSession::kill() {
  ELECTSIM_ASSERT(child_.running());
  Clock::time_point at = Clock::now();
  child_.kill();
  return at;
}

}  // namespace live
