// ForkedSession: a client session in a child process, for the one fault a client session cannot do
// to itself: dying without closing. The child opens a LiveClient, creates an ephemeral node, reports
// back through a pipe and waits; kill() is kill -9 of the child, so the servers see only the TCP
// connection close (no closeSession) and the session ends by expiry (SessionTrackerImpl).
#pragma once

#include <chrono>
#include <string>

#include "live/child_process.h"
#include "live/client.h"

namespace live {

class ForkedSession {
 public:
  // Forks, connects to `connect_string` with `requested_timeout`, creates `ephemeral_path`, and
  // returns once the child reported success; throws with the child's message otherwise.
  ForkedSession(const std::string& connect_string, Milliseconds requested_timeout, const std::string& ephemeral_path,
                Clock::time_point deadline);
  ~ForkedSession();
  ForkedSession(const ForkedSession&) = delete;
  ForkedSession& operator=(const ForkedSession&) = delete;

  Milliseconds negotiated_timeout() const { return negotiated_timeout_; }
  const std::string& created_path() const { return created_path_; }
  // kill -9 of the child; returns when it is gone.
  Clock::time_point kill();

 private:
  ChildProcess child_;
  int report_fd_ = -1;
  Milliseconds negotiated_timeout_{0};
  std::string created_path_;
};

}  // namespace live
