#include "live/network_slot.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/file.h>
#include <unistd.h>

#include "live/owner_file.h"
#include "live/server_network.h"

namespace live {

namespace {

// A slot number as electsim writes it in a name: decimal, no leading zero, below network_slots_max.
std::optional<int> slot_number(const std::string& text) {
  if (text.empty() || text.size() > 3 || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  if (text.size() > 1 && text[0] == '0') return std::nullopt;
  int slot = std::stoi(text);
  if (slot >= network_slots_max) return std::nullopt;
  return slot;
}

bool is_sid(const std::string& text) {
  return text.size() == 1 && text[0] >= '1' && text[0] <= '0' + network_slot_servers_max;
}

}  // namespace

// Fixed, not under $TMPDIR: the namespaces, links and bridges are one set for the whole machine, so
// their slots must be too. Two runs with different $TMPDIR would otherwise both take slot 0, and one's
// sweep would take the other's namespaces for orphans (no slot folder where it looks).
std::filesystem::path network_slots_folder() { return "/tmp/electsim-net"; }
std::filesystem::path network_slot_folder(int slot) { return network_slots_folder() / ("slot-" + std::to_string(slot)); }
std::string slot_bridge_name(int slot) { return "electsim-br" + std::to_string(slot); }
std::string slot_namespace_name(int slot, int sid) { return "electsim-" + std::to_string(slot) + "-" + std::to_string(sid); }
std::string slot_veth_name(int slot, int sid) { return "electsim-" + std::to_string(slot) + "v" + std::to_string(sid); }

std::optional<int> slot_of_namespace(const std::string& name) {
  const std::string prefix = "electsim-";
  if (!name.starts_with(prefix)) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  std::size_t dash = rest.find('-');
  if (dash == std::string::npos || !is_sid(rest.substr(dash + 1))) return std::nullopt;
  return slot_number(rest.substr(0, dash));
}

std::optional<int> slot_of_link(const std::string& name) {
  const std::string bridge = "electsim-br";
  if (name.starts_with(bridge)) return slot_number(name.substr(bridge.size()));
  const std::string prefix = "electsim-";
  if (!name.starts_with(prefix)) return std::nullopt;
  std::string rest = name.substr(prefix.size());
  std::size_t v = rest.find('v');
  if (v == std::string::npos || !is_sid(rest.substr(v + 1))) return std::nullopt;
  return slot_number(rest.substr(0, v));
}

NetworkSlotsLock::NetworkSlotsLock() {
  std::filesystem::create_directories(network_slots_folder());
  std::filesystem::path path = network_slots_folder() / "lock";
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) throw std::runtime_error("live mode: cannot open " + path.string() + ": " + std::strerror(errno));
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno != EINTR) {
      int error = errno;
      ::close(fd_);
      throw std::runtime_error("live mode: cannot lock " + path.string() + ": " + std::strerror(error));
    }
  }
}

NetworkSlotsLock::~NetworkSlotsLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the lock
}

void remove_network_slot_links(int slot) {
  for (int sid = 1; sid <= network_slot_servers_max; sid++) {
    run_command({"ip", "netns", "del", slot_namespace_name(slot, sid)});
    run_command({"ip", "link", "del", slot_veth_name(slot, sid)});
  }
  run_command({"ip", "link", "del", slot_bridge_name(slot)});
}

int take_network_slot(std::filesystem::path& folder) {
  NetworkSlotsLock lock;
  for (int slot = 0; slot < network_slots_max; slot++) {
    std::filesystem::path candidate = network_slot_folder(slot);
    for (int attempt = 0; attempt < 2; attempt++) {
      std::error_code error;
      if (std::filesystem::create_directory(candidate, error)) {
        write_owner_file(candidate);
        folder = candidate;
        return slot;
      }
      // A slot whose owner died (electsim killed before its destructors ran) is cleaned and reused;
      // one without an owner file is being written by its owner right now.
      if (error || folder_owner(candidate) != FolderOwner::gone) break;
      remove_network_slot_links(slot);
      std::filesystem::remove_all(candidate, error);
    }
  }
  throw std::runtime_error("live mode: all " + std::to_string(network_slots_max) + " network slots under " +
                           network_slots_folder().string() + " are taken");
}

}  // namespace live
