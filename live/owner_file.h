// OwnerFile: which electsim process made a folder, recorded inside it, so that what a dead process
// left behind can be told from what a running one still uses (docs/live-mode.md, "Leftovers").
//
// Live mode makes folders that outlive a process killed with kill -9 (or by a second Ctrl-C): the
// ensemble's temp folder /tmp/electsim-live-XXXXXX and a network slot /tmp/electsim-net/slot-K.
// Each holds a file `owner`: "PID STARTTIME", the owner's process id and its start time in clock
// ticks since boot (field 22 of /proc/PID/stat, proc(5)). The start time tells a reused PID from the
// owner: a PID is recycled by the kernel once its process is gone, and another process with it would
// otherwise keep a dead run's leftovers forever. A zombie (killed, not yet reaped) counts as gone.
#pragma once

#include <filesystem>
#include <sys/types.h>

namespace live {

enum class FolderOwner {
  alive,    // the process that wrote `owner` still runs
  gone,     // it is gone (or its PID now belongs to another process): the folder is a leftover
  unknown,  // no readable `owner`: being written right now, or a folder kept on purpose
};

// Writes `folder`/owner for this process. Throws std::runtime_error when it cannot be written.
void write_owner_file(const std::filesystem::path& folder);

// Whose `folder` is (its `owner` file).
FolderOwner folder_owner(const std::filesystem::path& folder);

// Whether the process `pid` runs and, when `start_ticks` is not 0, started at that time.
bool process_alive(pid_t pid, unsigned long long start_ticks);

// The start time of `pid` in clock ticks since boot (/proc/PID/stat field 22), 0 when unknown.
unsigned long long process_start_ticks(pid_t pid);

}  // namespace live
