// Files that are whole or absent: failure files, shrunk scenarios and traces are written to a
// temporary file beside their destination, flushed to disk, and renamed over it. A reader, or a
// crash, an interruption or a full disk halfway through, sees the old file (or none) or the whole
// new one, never a truncated scenario that would fail to replay.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace harness {

// Writing failed; what() names the file and the reason ("cannot write failures/x.yaml: No space left
// on device"). The destination is untouched and no temporary file is left behind.
class FileWriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Output streamed into a file: write to stream(), then commit(). Destroyed without a commit (an
// exception, an interrupted run), the temporary file is removed and the destination is untouched.
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);  // throws FileWriteError
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return out_; }
  const std::filesystem::path& path() const { return path_; }
  // Flushes, syncs and renames the temporary over the destination. Throws FileWriteError.
  void commit();

 private:
  void discard() noexcept;

  std::filesystem::path path_;
  std::filesystem::path temporary_;
  std::ofstream out_;
  bool committed_ = false;
};

// The whole of `content` into `path`, as above. Throws FileWriteError.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace harness
