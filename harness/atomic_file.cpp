#include "harness/atomic_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstring>

namespace harness {

namespace {

// Unique among the threads of this process (explore writes failure files from several) and among
// processes writing into one directory (shards of a sweep): ".NAME.tmp-PID-N" beside the file.
std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::string name = "." + path.filename().string() + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(counter.fetch_add(1));
  return path.parent_path() / name;
}

[[noreturn]] void fail(const std::filesystem::path& path, const std::string& reason) {
  throw FileWriteError("cannot write " + path.string() + ": " + reason);
}

// fsync of a file or directory by name; false with errno set on failure.
bool sync_path(const std::filesystem::path& path, bool directory) {
  int descriptor = ::open(path.c_str(), directory ? (O_RDONLY | O_DIRECTORY) : O_RDONLY);
  if (descriptor < 0) return false;
  bool synced = ::fsync(descriptor) == 0;
  int saved = errno;
  ::close(descriptor);
  errno = saved;
  return synced;
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)), temporary_(temporary_beside(path_)) {
  if (path_.filename().empty()) fail(path_, "not a file name");
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) fail(path_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  out_.close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFile::commit() {
  if (committed_) return;
  out_.flush();
  bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    int saved = errno;
    discard();
    fail(path_, saved != 0 ? std::strerror(saved) : "write error");
  }
  // The data reaches the disk before the name does, so a power cut cannot leave an empty file.
  if (!sync_path(temporary_, false)) {
    std::string reason = std::strerror(errno);
    discard();
    fail(path_, reason);
  }
  std::error_code error;
  std::filesystem::rename(temporary_, path_, error);
  if (error) {
    discard();
    fail(path_, error.message());
  }
  committed_ = true;
  std::filesystem::path directory = path_.parent_path().empty() ? std::filesystem::path(".") : path_.parent_path();
  sync_path(directory, true);  // best effort: the rename is done either way
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

}  // namespace harness
