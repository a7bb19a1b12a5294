#include "live/leftovers.h"

#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <sys/stat.h>
#include <unistd.h>

#include "live/network_slot.h"
#include "live/owner_file.h"
#include "live/server_network.h"

namespace live {

namespace {

constexpr std::string_view ensemble_folder_prefix = "electsim-live-";

// One namespace, link or bridge electsim makes, as `ip` lists it.
struct NetworkObject {
  enum class Kind { namespace_, link };
  Kind kind;
  std::string name;
  int slot;
  friend bool operator<(const NetworkObject& a, const NetworkObject& b) {
    return std::tie(a.kind, a.name) < std::tie(b.kind, b.name);
  }
};

std::string describe(const NetworkObject& object) {
  if (object.kind == NetworkObject::Kind::namespace_) return "namespace " + object.name;
  return (object.name.starts_with("electsim-br") ? "bridge " : "link ") + object.name;
}

// `ip netns list`: "electsim-0-1 (id: 3)" or "electsim-0-1"; `ip -o link show`: "7: electsim-0v1@if2: <...>".
std::set<NetworkObject> network_objects() {
  std::set<NetworkObject> found;
  CommandResult spaces = run_command({"ip", "netns", "list"});
  std::istringstream space_lines(spaces.output);
  for (std::string line; std::getline(space_lines, line);) {
    std::string name = line.substr(0, line.find(' '));
    if (std::optional<int> slot = slot_of_namespace(name)) found.insert({NetworkObject::Kind::namespace_, name, *slot});
  }
  CommandResult links = run_command({"ip", "-o", "link", "show"});
  std::istringstream link_lines(links.output);
  for (std::string line; std::getline(link_lines, line);) {
    std::size_t start = line.find(": ");
    if (start == std::string::npos) continue;
    start += 2;
    std::size_t end = line.find_first_of(":@", start);
    std::string name = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (std::optional<int> slot = slot_of_link(name)) found.insert({NetworkObject::Kind::link, name, *slot});
  }
  return found;
}

// A user other than root sweeps only the folders it made: another user's are not its to remove (and
// the temp folder's sticky bit would refuse it anyway).
bool ours(const std::filesystem::path& folder) {
  if (::geteuid() == 0) return true;
  struct stat status {};
  return ::lstat(folder.c_str(), &status) == 0 && status.st_uid == ::geteuid();
}

// Removes a folder a gone run left, and says so in the sweep (or why it could not).
void remove_folder(const std::filesystem::path& folder, LeftoverSweep& sweep) {
  std::error_code removal;
  std::filesystem::remove_all(folder, removal);
  if (removal) {
    sweep.not_removed.push_back("folder " + folder.string() + " (" + removal.message() + ")");
  } else {
    sweep.removed.push_back("folder " + folder.string());
  }
}

void sweep_ensemble_folders(LeftoverSweep& sweep) {
  std::error_code error;
  std::filesystem::path temp = std::filesystem::temp_directory_path(error);
  if (error) return;
  std::vector<std::filesystem::path> gone;
  for (const auto& entry : std::filesystem::directory_iterator(temp, error)) {
    std::string name = entry.path().filename().string();
    if (!name.starts_with(ensemble_folder_prefix) || entry.is_symlink() || !entry.is_directory()) continue;
    if (!ours(entry.path())) continue;
    if (folder_owner(entry.path()) == FolderOwner::gone) gone.push_back(entry.path());
  }
  for (const std::filesystem::path& folder : gone) {
    remove_folder(folder, sweep);
  }
}

void sweep_network(LeftoverSweep& sweep) {
  if (find_admin_tool("ip").empty()) return;  // no namespaces were ever made with it here
  std::error_code error;
  if (!std::filesystem::is_directory(network_slots_folder(), error) && network_objects().empty()) return;
  if (::geteuid() != 0) {
    // Only root makes them (ServerNetwork), and only root can delete them: say what is left.
    for (const NetworkObject& object : network_objects()) {
      std::filesystem::path folder = network_slot_folder(object.slot);
      if (!std::filesystem::is_directory(folder, error) || folder_owner(folder) == FolderOwner::gone) {
        sweep.not_removed.push_back(describe(object) + " (needs root)");
      }
    }
    return;
  }
  std::optional<NetworkSlotsLock> lock;
  try {
    lock.emplace();
  } catch (const std::exception& failure) {
    sweep.not_removed.push_back(std::string("network slots: ") + failure.what());
    return;
  }
  // Slots: alive (leave), gone (remove), or no folder at all (what has its number is an orphan).
  std::map<int, FolderOwner> slots;
  for (int slot = 0; slot < network_slots_max; slot++) {
    std::filesystem::path folder = network_slot_folder(slot);
    if (std::filesystem::is_directory(folder, error)) slots[slot] = folder_owner(folder);
  }
  auto leftover = [&](int slot) {
    auto found = slots.find(slot);
    return found == slots.end() || found->second == FolderOwner::gone;
  };
  std::set<NetworkObject> before = network_objects();
  std::set<NetworkObject> targets;
  for (const NetworkObject& object : before) {
    if (leftover(object.slot)) targets.insert(object);
  }
  // Namespaces first: their veth ends (and the peers outside) go with them.
  for (const NetworkObject& object : targets) {
    if (object.kind == NetworkObject::Kind::namespace_) run_command({"ip", "netns", "del", object.name});
  }
  for (const NetworkObject& object : targets) {
    if (object.kind == NetworkObject::Kind::link) run_command({"ip", "link", "del", object.name});
  }
  std::set<NetworkObject> after = network_objects();
  for (const NetworkObject& object : targets) {
    if (after.count(object) == 0) {
      sweep.removed.push_back(describe(object));
    } else {
      sweep.not_removed.push_back(describe(object) + " (`ip` could not delete it)");
    }
  }
  for (const auto& [slot, owner] : slots) {
    if (owner != FolderOwner::gone) continue;
    std::filesystem::path folder = network_slot_folder(slot);
    remove_folder(folder, sweep);
  }
}

}  // namespace

LeftoverSweep remove_leftovers() {
  LeftoverSweep sweep;
  try {
    sweep_network(sweep);
    sweep_ensemble_folders(sweep);
  } catch (const std::exception& failure) {
    sweep.not_removed.push_back(std::string("leftovers: ") + failure.what());
  }
  return sweep;
}

void print_sweep(const LeftoverSweep& sweep, const std::string& command, std::ostream& removed_out, std::ostream& problems_out) {
  for (const std::string& item : sweep.removed) removed_out << command << ": removed a gone run's " << item << "\n";
  for (const std::string& item : sweep.not_removed) problems_out << command << ": cannot remove a gone run's " << item << "\n";
}

}  // namespace live
