// ServerNetwork: one network namespace per real ZooKeeper server, so live mode can cut the links
// between servers the way the simulated network does (docs/live-mode.md).
//
// On loopback every server shares one network stack and nothing can separate two of them. Here each
// server sid gets its own namespace `electsim-K-sid` with one veth link to a bridge `electsim-brK`
// in electsim's own namespace, and the address 10.213.K.sid; electsim itself (the srvr poller and
// the client proxies) has 10.213.K.254 on the bridge. K (0..network_slots_max-1) is a slot taken for
// the run, so runs side by side do not collide.
//
// Faults are nftables rules in the sending server's namespace (its `output` hook), so a cut is
// silence, as on a real network: no reset, no ICMP, peers find out by their timeouts.
//  - set_links: packets from server a to server b are dropped where delivered[a][b] is false (a
//    partition is both directions, a one-way loss one);
//  - set_powered_off: every packet in and out of the server is dropped (a machine without power;
//    the JVM is then killed behind that wall, so even its sockets' FIN and RST are never seen).
//
// Needs root (or CAP_NET_ADMIN), `ip` (iproute2) and `nft` (nftables). unavailable_reason() says
// what is missing; the constructor throws with the failed command's message. The destructor deletes
// everything it made. A run killed before it could leaves its slot behind (live/network_slot.h):
// `electsim live --cleanup`, and every live or conformance run at its start, remove the slots whose
// owner is gone (live/leftovers.h); a signal's cleanup removes the running process's own
// (live/interrupt_cleanup.h).
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "live/network_slot.h"

namespace live {

class ServerNetwork {
 public:
  // Why namespaces cannot be made here (not root, no `ip`, no `nft`), or nullopt.
  static std::optional<std::string> unavailable_reason();

  explicit ServerNetwork(int servers);
  ~ServerNetwork();
  ServerNetwork(const ServerNetwork&) = delete;
  ServerNetwork& operator=(const ServerNetwork&) = delete;

  int servers() const { return servers_; }
  // "10.213.K.sid": the server's address, where it listens and where peers reach it.
  std::string host(int sid) const;
  // electsim's address on the bridge.
  std::string gateway() const;
  // The namespace's name, for `ip netns exec NAME`.
  std::string namespace_name(int sid) const;
  // argv prefix that runs a command inside the server's namespace: {ip, netns, exec, NAME}.
  std::vector<std::string> exec_prefix(int sid) const;

  // delivered[a - 1][b - 1]: whether packets sent by server a reach server b (the diagonal is
  // ignored). Only the servers whose rules change are touched.
  void set_links(const std::vector<std::vector<bool>>& delivered);
  void set_powered_off(int sid, bool powered_off);

 private:
  void apply_rules(int sid);
  void remove_everything() noexcept;

  int servers_;
  int slot_ = -1;
  std::filesystem::path slot_folder_;
  std::vector<std::vector<bool>> delivered_;
  std::vector<bool> powered_off_;
  std::vector<std::string> applied_;  // the ruleset each namespace has now
};

// Runs `argv` (argv[0] looked up in $PATH, then /usr/sbin and /sbin), with `input` on its stdin;
// returns its exit status and what it wrote on stdout and stderr. For `ip` and `nft`; not for long
// commands.
struct CommandResult {
  int exit_status = -1;
  std::string error_output;
  std::string output;
};
CommandResult run_command(const std::vector<std::string>& argv, const std::string& input = "");

// The absolute path of an administration tool (`ip`, `nft`), or empty.
std::filesystem::path find_admin_tool(const std::string& name);

}  // namespace live
