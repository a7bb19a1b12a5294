#include "live/owner_file.h"

#include <cerrno>
#include <csignal>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace live {

namespace {

constexpr const char* owner_file_name = "owner";

// /proc/PID/stat after the command name: "(comm)" may hold spaces and parentheses, so the fields
// are counted from the last ')' (proc(5)). Field 3 is the state, field 22 the start time.
struct ProcessStat {
  char state = '?';
  unsigned long long start_ticks = 0;
};

bool read_stat(pid_t pid, ProcessStat& stat) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(file, text)) return false;
  std::size_t name_end = text.rfind(')');
  if (name_end == std::string::npos) return false;
  std::istringstream fields(text.substr(name_end + 1));
  std::string field;
  for (int number = 3; number <= 22 && fields >> field; number++) {
    if (number == 3) stat.state = field.empty() ? '?' : field[0];
    if (number == 22) {
      try {
        stat.start_ticks = std::stoull(field);
      } catch (...) {
        return false;
      }
      return true;
    }
  }
  return false;
}

}  // namespace

unsigned long long process_start_ticks(pid_t pid) {
  ProcessStat stat;
  return read_stat(pid, stat) ? stat.start_ticks : 0;
}

bool process_alive(pid_t pid, unsigned long long start_ticks) {
  if (pid <= 0) return false;
  if (::kill(pid, 0) != 0 && errno == ESRCH) return false;
  ProcessStat stat;
  // No /proc (or another user's process we may not read): kill(2) said it exists.
  if (!read_stat(pid, stat)) return true;
  if (stat.state == 'Z' || stat.state == 'X') return false;  // killed, waiting to be reaped
  return start_ticks == 0 || stat.start_ticks == start_ticks;
}

void write_owner_file(const std::filesystem::path& folder) {
  pid_t self = ::getpid();
  std::ofstream owner(folder / owner_file_name);
  owner << self << " " << process_start_ticks(self) << "\n";
  owner.close();
  if (!owner) throw std::runtime_error("live mode: cannot write " + (folder / owner_file_name).string());
}

FolderOwner folder_owner(const std::filesystem::path& folder) {
  std::ifstream owner(folder / owner_file_name);
  long long pid = 0;
  if (!(owner >> pid) || pid <= 0) return FolderOwner::unknown;
  unsigned long long start_ticks = 0;
  if (!(owner >> start_ticks)) start_ticks = 0;  // written by an electsim before the start time was kept
  return process_alive(static_cast<pid_t>(pid), start_ticks) ? FolderOwner::alive : FolderOwner::gone;
}

}  // namespace live
