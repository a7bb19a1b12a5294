// Network slots: which 10.213.K.0/24 a live run's server namespaces use, and the names of what it
// makes there (live/server_network.h), so runs side by side do not collide and what a killed run
// left can be found and removed (live/leftovers.h).
//
// A slot K is a folder /tmp/electsim-net/slot-K, taken with mkdir (atomic: two runs never get the
// same one) and holding an owner file (live/owner_file.h). Slot K's run makes namespaces
// `electsim-K-sid`, veth links `electsim-Kvsid` (the other end, eth0, inside the namespace) and a
// bridge `electsim-brK`. The folder is made before them and removed after them, so a namespace,
// link or bridge without its slot folder belongs to no running electsim.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace live {

inline constexpr int network_slots_max = 200;
inline constexpr int network_slot_servers_max = 9;  // sids 1..9 (live_servers_max)

std::filesystem::path network_slots_folder();  // /tmp/electsim-net, whatever $TMPDIR says
std::filesystem::path network_slot_folder(int slot);
std::string slot_bridge_name(int slot);
std::string slot_namespace_name(int slot, int sid);
std::string slot_veth_name(int slot, int sid);

// What a slot's name is: the slot of `electsim-K-sid`, `electsim-KvN` or `electsim-brK`, or nothing
// for a name electsim does not make.
std::optional<int> slot_of_namespace(const std::string& name);
std::optional<int> slot_of_link(const std::string& name);

// Holds an exclusive flock(2) on /tmp/electsim-net/lock while alive: taking a slot and sweeping
// leftovers hold it, so a sweep never removes a slot another run is taking over at that moment.
class NetworkSlotsLock {
 public:
  NetworkSlotsLock();
  ~NetworkSlotsLock();
  NetworkSlotsLock(const NetworkSlotsLock&) = delete;
  NetworkSlotsLock& operator=(const NetworkSlotsLock&) = delete;

 private:
  int fd_ = -1;
};

// Takes a free slot for this process (its folder in `folder`); a slot whose owner is gone is
// cleaned and reused. Throws std::runtime_error when all are taken.
int take_network_slot(std::filesystem::path& folder);

// Deletes what a run in `slot` made, whether or not it exists (errors ignored): the namespaces
// first (their veth ends go with them), then the links and the bridge. Not the folder.
void remove_network_slot_links(int slot);

}  // namespace live
