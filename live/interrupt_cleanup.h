// InterruptCleanup: what this process made that a SIGINT or SIGTERM must not leave behind: the
// ensembles' temp folders and the network slots (namespaces, veth links, bridge), removed before
// the signal ends the process (docs/live-mode.md, "Leftovers").
//
// The signal handler of child_process.h kills every child's process group (kill(2) is
// async-signal-safe) but cannot remove folders or run `ip netns del` (neither is allowed in a
// handler: signal-safety(7)). It writes the signal's number to a pipe instead; a thread of this
// file, blocked reading that pipe, then removes everything registered here, kills any child started
// meanwhile, and ends the process by the signal's default action (the shell sees "killed by
// SIGINT", as before). Until it has, an atexit handler keeps the main thread from ending the
// process with the cleanup half done.
//
// Used where a run cannot stop gracefully: `electsim conformance`, and `electsim live` after its
// first signal (the first one stops the run, which then cleans up and reports as at a normal end).
// kill -9 leaves everything: `electsim live --cleanup` and the next run's start remove it
// (live/leftovers.h).
#pragma once

#include <filesystem>

namespace live {

// A folder this process made; removed (remove_all) by a signal's cleanup until unregistered.
void register_cleanup_folder(const std::filesystem::path& folder);
void unregister_cleanup_folder(const std::filesystem::path& folder);

// A network slot this process took (live/network_slot.h): its links, then its folder.
void register_cleanup_network_slot(int slot);
void unregister_cleanup_network_slot(int slot);

// From a signal handler: wakes the cleanup thread, which will end the process with `signal_number`.
// False when there is no cleanup thread (nothing was ever registered): the caller ends the process.
// Async-signal-safe.
bool hand_signal_to_cleanup(int signal_number) noexcept;

}  // namespace live
