#include "cli/output_file.h"

#include "cli/command.h"

namespace cli {

void open_output_file(const std::string& command, const std::string& what, const std::string& path, std::optional<harness::AtomicFile>& file) {
  if (path.empty()) return;
  try {
    file.emplace(path);
  } catch (const harness::FileWriteError& error) {
    throw UsageError(command + ": cannot write the " + what + " file: " + std::string(error.what()));
  }
}

void commit_output_file(const std::string& command, const std::string& what, std::optional<harness::AtomicFile>& file) {
  if (!file) return;
  try {
    file->commit();
  } catch (const harness::FileWriteError& error) {
    throw UsageError(command + ": cannot write the " + what + " file: " + std::string(error.what()));
  }
}

}  // namespace cli
