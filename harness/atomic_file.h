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
//
// Atomic replacement is for regular files only. The destination is found first:
//   "-" or /dev/stdout          streamed to standard output (a pipe, a terminal, a file)
//   a device, a FIFO, a socket  written through, as it is (/dev/null discards, a FIFO's reader reads)
//   a symlink                   followed: its final target is written (replaced if it is a regular
//                               file, created if it does not exist); the link stays a link
//   a regular file              replaced, keeping its mode and owner; refused when this user could
//                               not write it (a rename would bypass its permissions)
class AtomicFile {
 public:
  explicit AtomicFile(std::filesystem::path path);  // throws FileWriteError
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;

  std::ostream& stream() { return *stream_; }
  const std::filesystem::path& path() const { return path_; }
  // Flushes; a replaced file is synced and renamed over the destination. Throws FileWriteError.
  void commit();

 private:
  enum class Mode { replace, through, standard_output };
  void discard() noexcept;

  std::filesystem::path path_;         // as given
  std::filesystem::path destination_;  // the file written: path_ with its symlinks followed
  std::filesystem::path temporary_;
  Mode mode_ = Mode::replace;
  std::ofstream out_;
  std::ostream* stream_ = &out_;
  bool keep_attributes_ = false;  // an existing file: its mode and owner pass to the new one
  unsigned mode_bits_ = 0;
  unsigned owner_ = 0;
  unsigned group_ = 0;
  bool committed_ = false;
};

// A writer killed with SIGKILL leaves its temporary beside the file it was writing. This removes,
// from `directory`, the temporaries of processes that are gone; those of a live process (a shard
// writing into the same folder now) and every other file are left alone. Best effort, no throw.
void remove_stale_temporaries(const std::filesystem::path& directory) noexcept;

// The whole of `content` into `path`, as above. Throws FileWriteError.
void write_file_atomically(const std::filesystem::path& path, std::string_view content);

}  // namespace harness
