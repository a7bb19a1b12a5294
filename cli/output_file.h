// An output file of a command (a trace, a diagram): opened before anything runs, appearing under
// its name whole or not at all (harness/atomic_file.h). A failure to write is bad input:
// UsageError "<command>: cannot write the <what> file: ...".
#pragma once

#include <optional>
#include <string>

#include "harness/atomic_file.h"

namespace cli {

// Opens `file` at `path`; leaves it empty when `path` is (the option was not given).
void open_output_file(const std::string& command, const std::string& what, const std::string& path, std::optional<harness::AtomicFile>& file);
// Commits `file` if it is open.
void commit_output_file(const std::string& command, const std::string& what, std::optional<harness::AtomicFile>& file);

}  // namespace cli
