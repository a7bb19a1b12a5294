#include "live/interrupt_cleanup.h"

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <iostream>
#include <mutex>
#include <set>
#include <thread>
#include <unistd.h>

#include "live/child_process.h"
#include "live/network_slot.h"

namespace live {

namespace {

// Never destroyed: the cleanup thread may run while the main thread is already in exit().
struct Registry {
  std::mutex mutex;
  std::set<std::filesystem::path> folders;
  std::set<int> slots;
};
Registry& registry() {
  static Registry* instance = new Registry;
  return *instance;
}

std::atomic<int> wake_fd{-1};            // the pipe's write end, for the handler
std::atomic<pid_t> wake_owner{0};        // the process whose cleanup thread reads that pipe
std::atomic<bool> cleaning{false};       // a signal's cleanup has begun: the process is ending
std::mutex start_mutex;

void remove_registered() {
  Registry& entries = registry();
  std::set<std::filesystem::path> folders;
  std::set<int> slots;
  {
    std::lock_guard lock(entries.mutex);
    folders.swap(entries.folders);
    slots.swap(entries.slots);
  }
  for (int slot : slots) {
    remove_network_slot_links(slot);
    std::error_code ignored;
    std::filesystem::remove_all(network_slot_folder(slot), ignored);
    std::cerr << "electsim: interrupted: removed network slot " << slot << " (namespaces, links and bridge)\n";
  }
  for (const std::filesystem::path& folder : folders) {
    std::error_code ignored;
    std::filesystem::remove_all(folder, ignored);
    std::cerr << "electsim: interrupted: removed " << folder.string() << "\n";
  }
}

void cleanup_thread(int read_fd) {
  int signal_number = 0;
  while (true) {
    ssize_t count = ::read(read_fd, &signal_number, sizeof signal_number);
    if (count == static_cast<ssize_t>(sizeof signal_number)) break;
    if (count < 0 && errno == EINTR) continue;
    return;  // the pipe is gone: nothing to wait for
  }
  cleaning.store(true);
  // The handler killed the children; the main thread may have started one since.
  kill_registered_children();
  remove_registered();
  kill_registered_children();
  std::cerr.flush();
  // The signal's default action ends the whole process (raise(3) aims it at this thread).
  std::signal(signal_number, SIG_DFL);
  ::raise(signal_number);
  std::_Exit(128 + signal_number);  // not reached unless the signal is blocked here
}

// atexit: the main thread reached the end while a signal's cleanup runs; the cleanup ends the process.
void wait_for_cleanup() {
  while (cleaning.load()) ::pause();
}

void start_cleanup_thread() {
  {
    // Once per process: a forked child inherits the pipe but not the thread, and must not wake its
    // parent's (which would clean up and end the parent).
    std::lock_guard lock(start_mutex);
    if (wake_owner.load() != ::getpid()) {
      // What a parent registered before forking is the parent's to remove, not this process's.
      {
        std::lock_guard entries(registry().mutex);
        registry().folders.clear();
        registry().slots.clear();
      }
      static bool exit_hook = false;
      if (!exit_hook) exit_hook = std::atexit(wait_for_cleanup) == 0;
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) == 0) {  // else no cleanup thread: the handler ends the process at once
        std::thread(cleanup_thread, fds[0]).detach();
        wake_fd.store(fds[1]);
        wake_owner.store(::getpid());
      }
    }
  }
  // What is registered needs the handler from now on, not only from the first child's start: a
  // signal while the ensemble's folder and namespaces are being made must remove them too.
  install_cleanup_on_signals();
}

}  // namespace

void register_cleanup_folder(const std::filesystem::path& folder) {
  start_cleanup_thread();
  std::lock_guard lock(registry().mutex);
  registry().folders.insert(folder);
}

void unregister_cleanup_folder(const std::filesystem::path& folder) {
  std::lock_guard lock(registry().mutex);
  registry().folders.erase(folder);
}

void register_cleanup_network_slot(int slot) {
  start_cleanup_thread();
  std::lock_guard lock(registry().mutex);
  registry().slots.insert(slot);
}

void unregister_cleanup_network_slot(int slot) {
  std::lock_guard lock(registry().mutex);
  registry().slots.erase(slot);
}

bool hand_signal_to_cleanup(int signal_number) noexcept {
  int fd = wake_fd.load();
  if (fd < 0 || wake_owner.load() != ::getpid()) return false;  // getpid(2) is async-signal-safe
  cleaning.store(true);
  ssize_t written = ::write(fd, &signal_number, sizeof signal_number);
  return written == static_cast<ssize_t>(sizeof signal_number);
}

}  // namespace live
