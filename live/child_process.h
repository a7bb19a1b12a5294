// ChildProcess: one real process that live mode starts (a ZooKeeper server JVM, or a forked client),
// in its own process group, with a guarantee that it does not outlive electsim.
//
// Three layers make sure no child is left behind:
//  - the destructor kills the whole process group (kill -9) and reaps it (normal exit, exceptions);
//  - a SIGINT/SIGTERM handler kills every registered group, then lets the signal end electsim (once
//    live/interrupt_cleanup.h has removed the run's folders and network namespaces);
//  - PR_SET_PDEATHSIG(SIGKILL) in each child: the kernel kills it when electsim dies in any other way
//    (kill -9 of electsim itself, a crash).
#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <string>
#include <sys/types.h>
#include <vector>

namespace live {

class ChildProcess {
 public:
  // Starts `argv[0]` (a path) with `argv`, in `working_directory`, stdout and stderr appended to
  // `log_file`, stdin from /dev/null.
  static ChildProcess exec(const std::vector<std::string>& argv, const std::filesystem::path& working_directory,
                           const std::filesystem::path& log_file);
  // Forks and runs `body` in the child, which then _exits with its return value. The child is
  // forked from a process that may have threads: `body` must only use what is safe after fork
  // (it may start its own threads, as the ZooKeeper C client does).
  static ChildProcess fork(const std::function<int()>& body);

  ChildProcess() = default;
  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();

  bool running() const { return pid_ > 0; }
  pid_t pid() const { return pid_; }
  // kill -9 of the process group, then waitpid: what `crash` and `power_off` do to a server.
  void kill();
  // SIGSTOP / SIGCONT of the process group: a `pause`. The process keeps its sockets open.
  void stop();
  void resume();

 private:
  explicit ChildProcess(pid_t pid);
  pid_t pid_ = 0;  // also the process group id (setpgid(0, 0) in the child)
};

// Installs the SIGINT/SIGTERM handler once (idempotent). ChildProcess calls it on first use.
void install_cleanup_on_signals();

// kill -9 of every registered child's process group. Async-signal-safe (the signal handler's first step).
void kill_registered_children() noexcept;

// How many children are registered (started and not yet killed); for tests.
int live_children_count();

}  // namespace live
