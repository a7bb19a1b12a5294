// Leftovers: what live runs whose electsim process is gone left on this machine, and their removal
// (`electsim live --cleanup`, and the start of every `live` and `conformance` run; docs/live-mode.md).
//
// An electsim killed with kill -9 (or whose cleanup was cut short) runs no destructor: its ensemble
// folder /tmp/electsim-live-XXXXXX, its network slot /tmp/electsim-net/slot-K and the slot's
// namespaces `electsim-K-sid`, veth links `electsim-Kvsid` and bridge `electsim-brK` stay. (Its
// JVMs do not: PR_SET_PDEATHSIG, live/child_process.h.) Ownership is by the folders' owner files
// (live/owner_file.h): only what a gone process owned is removed, never a running run's. A namespace,
// link or bridge without its slot folder belongs to no run (the folder is made before them and
// removed after them) and is removed too. A folder without an owner file (kept with
// ELECTSIM_LIVE_KEEP=1, or being made this instant) is left alone. A user other than root sweeps
// only its own folders, and reports the namespaces, links and bridges left (only root removes them).
#pragma once

#include <ostream>
#include <string>
#include <vector>

namespace live {

struct LeftoverSweep {
  std::vector<std::string> removed;      // "namespace electsim-0-1", "folder /tmp/electsim-live-Ab12Cd", ...
  std::vector<std::string> not_removed;  // the same, with why: "namespace electsim-0-1 (needs root)"
};

// Finds and removes every leftover of a gone electsim process. Never throws.
LeftoverSweep remove_leftovers();

// One line per item: "`command`: removed a gone run's namespace electsim-0-1" on `removed_out`,
// "`command`: cannot remove a gone run's namespace electsim-0-1 (needs root)" on `problems_out`.
void print_sweep(const LeftoverSweep& sweep, const std::string& command, std::ostream& removed_out, std::ostream& problems_out);

}  // namespace live
