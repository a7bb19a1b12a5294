#include "live/child_process.h"

#include <array>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "live/interrupt_cleanup.h"
#include "sim/assert.h"

namespace live {

namespace {

// The registry the signal handler reads: plain atomics in a fixed array, since a signal handler may
// only touch lock-free state (and kill(2) is async-signal-safe). A limit on everything: a
// conformance run has at most a few servers plus one forked client at a time.
constexpr std::size_t children_max = 64;
std::array<std::atomic<pid_t>, children_max> registered_groups{};

void register_group(pid_t group) {
  for (auto& slot : registered_groups) {
    pid_t empty = 0;
    if (slot.compare_exchange_strong(empty, group)) return;
  }
  // No slot: kill the child at once rather than risk leaving it behind.
  ::kill(-group, SIGKILL);
  throw std::runtime_error("live mode: more than " + std::to_string(children_max) + " child processes at once");
}

void unregister_group(pid_t group) {
  for (auto& slot : registered_groups) {
    pid_t expected = group;
    if (slot.compare_exchange_strong(expected, 0)) return;
  }
}

extern "C" void kill_children_then_die(int signal_number) {
  kill_registered_children();
  // The folders and network namespaces the run made cannot be removed here (signal-safety(7)): the
  // cleanup thread does it, then ends the process by the signal (live/interrupt_cleanup.h).
  if (hand_signal_to_cleanup(signal_number)) return;
  // Default action of the signal, so the shell sees "killed by SIGINT" as usual.
  std::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
}

// In the child, before anything else: its own process group (so kill/stop reach the JVM's every
// thread and anything it starts), and death when the parent dies.
void become_managed_child(pid_t parent) {
  ::setpgid(0, 0);
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (::getppid() != parent) ::_exit(127);  // the parent died before prctl took effect
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

}  // namespace

void kill_registered_children() noexcept {
  for (auto& slot : registered_groups) {
    pid_t group = slot.load();
    if (group > 0) ::kill(-group, SIGKILL);
  }
}

void install_cleanup_on_signals() {
  static std::atomic<bool> installed{false};
  if (installed.exchange(true)) return;
  struct sigaction action {};
  action.sa_handler = kill_children_then_die;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND;
  ::sigaction(SIGINT, &action, nullptr);
  ::sigaction(SIGTERM, &action, nullptr);
}

int live_children_count() {
  int count = 0;
  for (const auto& slot : registered_groups) count += slot.load() > 0 ? 1 : 0;
  return count;
}

ChildProcess::ChildProcess(pid_t pid) : pid_(pid) {
  ELECTSIM_ASSERT(pid > 0);
  // Also in the parent: the child may not have run setpgid yet when we signal the group.
  ::setpgid(pid, pid);
  register_group(pid);
}

ChildProcess ChildProcess::exec(const std::vector<std::string>& argv, const std::filesystem::path& working_directory,
                                const std::filesystem::path& log_file) {
  ELECTSIM_ASSERT(!argv.empty());
  install_cleanup_on_signals();
  // Everything the child needs is prepared before fork: after it, only async-signal-safe calls.
  std::vector<char*> arguments;
  for (const auto& argument : argv) arguments.push_back(const_cast<char*>(argument.c_str()));
  arguments.push_back(nullptr);
  int log = ::open(log_file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (log < 0) throw std::runtime_error("live mode: cannot open " + log_file.string() + ": " + std::strerror(errno));
  int null_input = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(log);
    ::close(null_input);
    throw std::runtime_error(std::string("live mode: fork failed: ") + std::strerror(errno));
  }
  if (pid == 0) {
    become_managed_child(parent);
    ::dup2(null_input, 0);
    ::dup2(log, 1);
    ::dup2(log, 2);
    if (::chdir(working_directory.c_str()) != 0) ::_exit(126);
    ::execv(arguments[0], arguments.data());
    ::_exit(127);
  }
  ::close(log);
  ::close(null_input);
  return ChildProcess(pid);
}

ChildProcess ChildProcess::fork(const std::function<int()>& body) {
  install_cleanup_on_signals();
  pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error(std::string("live mode: fork failed: ") + std::strerror(errno));
  if (pid == 0) {
    become_managed_child(parent);
    int status = 1;
    try {
      status = body();
    } catch (...) {
      status = 1;
    }
    ::_exit(status);  // never return into the parent's stack (no destructors, no atexit)
  }
  return ChildProcess(pid);
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept : pid_(other.pid_) { other.pid_ = 0; }

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    kill();
    pid_ = other.pid_;
    other.pid_ = 0;
  }
  return *this;
}

ChildProcess::~ChildProcess() { kill(); }

void ChildProcess::kill() {
  if (pid_ <= 0) return;
  ::kill(-pid_, SIGKILL);
  ::kill(pid_, SIGKILL);  // in case the child had not joined its group yet
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  unregister_group(pid_);
  pid_ = 0;
}

void ChildProcess::stop() {
  ELECTSIM_ASSERT(pid_ > 0);
  ::kill(-pid_, SIGSTOP);
}

void ChildProcess::resume() {
  ELECTSIM_ASSERT(pid_ > 0);
  ::kill(-pid_, SIGCONT);
}

}  // namespace live
