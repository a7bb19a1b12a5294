#include "harness/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <iostream>

namespace harness {

namespace {

// Unique among the threads of this process (explore writes failure files from several) and among
// processes writing into one directory (shards of a sweep): ".NAME.tmp-PID-N" beside the file.
constexpr std::string_view temporary_marker = ".tmp-";

std::filesystem::path temporary_beside(const std::filesystem::path& path) {
  static std::atomic<std::uint64_t> counter{0};
  std::string name = "." + path.filename().string() + std::string(temporary_marker) + std::to_string(::getpid()) + "-" +
                     std::to_string(counter.fetch_add(1));
  return path.parent_path() / name;
}

// The writer's process id in a name temporary_beside made, or 0 for any other name.
pid_t temporary_owner(const std::string& name) {
  std::size_t marker = name.rfind(temporary_marker);
  if (name.empty() || name[0] != '.' || marker == std::string::npos) return 0;
  std::size_t first = marker + temporary_marker.size();
  std::size_t dash = name.find('-', first);
  if (dash == std::string::npos || dash == first || dash - first > 9) return 0;
  std::string digits = name.substr(first, dash - first);
  if (digits.find_first_not_of("0123456789") != std::string::npos) return 0;
  return static_cast<pid_t>(std::stol(digits));
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

// `path` with every symlink on its last component followed (a dangling one to the file it names).
std::filesystem::path follow_symlinks(std::filesystem::path path) {
  for (int hops = 0; hops < 40; hops++) {
    std::error_code error;
    if (!std::filesystem::is_symlink(std::filesystem::symlink_status(path, error))) return path;
    std::filesystem::path target = std::filesystem::read_symlink(path, error);
    if (error) fail(path, error.message());
    path = target.is_absolute() ? target : path.parent_path() / target;
  }
  fail(path, "too many levels of symbolic links");
}

}  // namespace

AtomicFile::AtomicFile(std::filesystem::path path) : path_(std::move(path)) {
  if (path_ == "-" || path_ == "/dev/stdout") {
    mode_ = Mode::standard_output;
    stream_ = &std::cout;
    return;
  }
  if (path_.filename().empty()) fail(path_, "not a file name");
  std::error_code error;
  std::filesystem::file_status status = std::filesystem::status(path_, error);  // follows symlinks
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    if (std::filesystem::is_directory(status)) fail(path_, "is a directory");
    // A device, a FIFO or a socket (or /proc's links to one): written through, never replaced.
    mode_ = Mode::through;
    destination_ = path_;
    out_.open(path_, std::ios::binary | std::ios::out);
    if (!out_) fail(path_, std::strerror(errno));
    return;
  }
  destination_ = follow_symlinks(path_);
  if (destination_.filename().empty()) fail(path_, "not a file name");
  struct stat existing {};
  if (::stat(destination_.c_str(), &existing) == 0) {
    if (::access(destination_.c_str(), W_OK) != 0) fail(path_, std::strerror(errno));
    keep_attributes_ = true;
    mode_bits_ = existing.st_mode & 07777;
    owner_ = existing.st_uid;
    group_ = existing.st_gid;
  }
  temporary_ = temporary_beside(destination_);
  out_.open(temporary_, std::ios::binary | std::ios::trunc);
  if (!out_) fail(path_, std::strerror(errno));
}

AtomicFile::~AtomicFile() {
  if (!committed_) discard();
}

void AtomicFile::discard() noexcept {
  if (mode_ != Mode::replace) return;
  out_.close();
  std::error_code ignored;
  std::filesystem::remove(temporary_, ignored);
}

void AtomicFile::commit() {
  if (committed_) return;
  if (mode_ != Mode::replace) {
    stream_->flush();
    bool written = static_cast<bool>(*stream_);
    int saved = errno;
    if (mode_ == Mode::through) out_.close();
    if (!written || (mode_ == Mode::through && out_.fail())) fail(path_, saved != 0 ? std::strerror(saved) : "write error");
    committed_ = true;
    return;
  }
  out_.flush();
  bool written = static_cast<bool>(out_);
  out_.close();
  if (!written || out_.fail()) {
    int saved = errno;
    discard();
    fail(path_, saved != 0 ? std::strerror(saved) : "write error");
  }
  // The replaced file keeps its mode and owner (chown is best effort: only root can give a file away).
  if (keep_attributes_) {
    if (::chmod(temporary_.c_str(), static_cast<mode_t>(mode_bits_)) != 0) {
      std::string reason = std::strerror(errno);
      discard();
      fail(path_, reason);
    }
    [[maybe_unused]] int ignored = ::chown(temporary_.c_str(), static_cast<uid_t>(owner_), static_cast<gid_t>(group_));
  }
  // The data reaches the disk before the name does, so a power cut cannot leave an empty file.
  if (!sync_path(temporary_, false)) {
    std::string reason = std::strerror(errno);
    discard();
    fail(path_, reason);
  }
  std::error_code error;
  std::filesystem::rename(temporary_, destination_, error);
  if (error) {
    discard();
    fail(path_, error.message());
  }
  committed_ = true;
  std::filesystem::path directory = destination_.parent_path().empty() ? std::filesystem::path(".") : destination_.parent_path();
  sync_path(directory, true);  // best effort: the rename is done either way
}

void remove_stale_temporaries(const std::filesystem::path& directory) noexcept {
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    pid_t owner = temporary_owner(entry.path().filename().string());
    if (owner <= 0 || owner == ::getpid() || ::kill(owner, 0) == 0 || errno != ESRCH) continue;
    std::error_code ignored;
    std::filesystem::remove(entry.path(), ignored);
  }
}

void write_file_atomically(const std::filesystem::path& path, std::string_view content) {
  AtomicFile file(path);
  file.stream().write(content.data(), static_cast<std::streamsize>(content.size()));
  file.commit();
}

}  // namespace harness
