#include "live/server_network.h"

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <utility>
#include <spawn.h>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

#include "live/interrupt_cleanup.h"
#include "live/network_slot.h"
#include "sim/assert.h"

extern char** environ;

namespace live {

namespace {

constexpr int subnet_second_octet = 213;  // 10.213.K.0/24: private, and unlikely to be in use here

void must(const std::vector<std::string>& argv, const std::string& input = "") {
  CommandResult result = run_command(argv, input);
  if (result.exit_status == 0) return;
  std::string command;
  for (const std::string& word : argv) command += (command.empty() ? "" : " ") + word;
  throw std::runtime_error("live mode: network namespaces: `" + command + "` failed (exit " + std::to_string(result.exit_status) +
                           "): " + result.error_output);
}

}  // namespace

std::filesystem::path find_admin_tool(const std::string& name) {
  std::vector<std::filesystem::path> folders;
  if (const char* path = std::getenv("PATH")) {
    std::string text = path;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find(':', start);
      if (end == std::string::npos) end = text.size();
      if (end > start) folders.emplace_back(text.substr(start, end - start));
      start = end + 1;
    }
  }
  folders.emplace_back("/usr/sbin");
  folders.emplace_back("/sbin");
  for (const auto& folder : folders) {
    std::filesystem::path candidate = folder / name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return {};
}

CommandResult run_command(const std::vector<std::string>& argv, const std::string& input) {
  ELECTSIM_ASSERT(!argv.empty());
  std::filesystem::path program = find_admin_tool(argv[0]);
  if (program.empty()) return CommandResult{127, argv[0] + ": not found", ""};
  // Three pipes: stdin, stdout, stderr. Whatever fails to open is closed again.
  int pipes[3][2] = {{-1, -1}, {-1, -1}, {-1, -1}};
  auto close_all = [&] {
    for (auto& ends : pipes) {
      for (int& fd : ends) {
        if (fd >= 0) ::close(fd);
        fd = -1;
      }
    }
  };
  for (auto& ends : pipes) {
    if (::pipe2(ends, O_CLOEXEC) != 0) {
      close_all();
      return CommandResult{-1, "pipe failed", ""};
    }
  }
  int (&to_child)[2] = pipes[0];
  int (&from_stdout)[2] = pipes[1];
  int (&from_stderr)[2] = pipes[2];
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, to_child[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_stdout[1], STDOUT_FILENO);
  posix_spawn_file_actions_adddup2(&actions, from_stderr[1], STDERR_FILENO);
  std::vector<std::string> words = argv;
  words[0] = program.string();
  std::vector<char*> raw;
  for (std::string& word : words) raw.push_back(word.data());
  raw.push_back(nullptr);
  pid_t pid = 0;
  int spawned = ::posix_spawn(&pid, raw[0], &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(std::exchange(to_child[0], -1));
  ::close(std::exchange(from_stdout[1], -1));
  ::close(std::exchange(from_stderr[1], -1));
  CommandResult result;
  if (spawned == 0) {
    // The inputs are rulesets of a few hundred bytes: far below a pipe's capacity, so writing all of
    // it before reading the outputs cannot deadlock.
    std::size_t written = 0;
    while (written < input.size()) {
      ssize_t count = ::write(to_child[1], input.data() + written, input.size() - written);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) break;
      written += static_cast<std::size_t>(count);
    }
  }
  ::close(std::exchange(to_child[1], -1));
  // Both outputs at once (poll): a command that fills one pipe while we wait on the other would
  // otherwise block for ever.
  std::string* targets[2] = {&result.output, &result.error_output};
  int sources[2] = {from_stdout[0], from_stderr[0]};
  char buffer[4096];
  while (sources[0] >= 0 || sources[1] >= 0) {
    pollfd polled[2] = {{sources[0], POLLIN, 0}, {sources[1], POLLIN, 0}};
    if (::poll(polled, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    for (int index = 0; index < 2; index++) {
      if (sources[index] < 0 || polled[index].revents == 0) continue;
      ssize_t count = ::read(sources[index], buffer, sizeof buffer);
      if (count < 0 && errno == EINTR) continue;
      if (count <= 0) {
        sources[index] = -1;
        continue;
      }
      targets[index]->append(buffer, static_cast<std::size_t>(count));
    }
  }
  close_all();
  if (spawned != 0) return CommandResult{127, argv[0] + ": cannot start", ""};
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  while (!result.error_output.empty() && result.error_output.back() == '\n') result.error_output.pop_back();
  return result;
}

std::optional<std::string> ServerNetwork::unavailable_reason() {
  if (::geteuid() != 0) return "network namespaces need root";
  if (find_admin_tool("ip").empty()) return "network namespaces need `ip` (Debian package iproute2)";
  if (find_admin_tool("nft").empty()) return "network namespaces need `nft` (Debian package nftables)";
  return std::nullopt;
}

ServerNetwork::ServerNetwork(int servers) : servers_(servers) {
  ELECTSIM_ASSERT(servers >= 1 && servers <= 9);
  if (auto reason = unavailable_reason()) throw std::runtime_error("live mode: " + *reason);
  delivered_.assign(static_cast<std::size_t>(servers), std::vector<bool>(static_cast<std::size_t>(servers), true));
  powered_off_.assign(static_cast<std::size_t>(servers), false);
  applied_.assign(static_cast<std::size_t>(servers), "");
  slot_ = take_network_slot(slot_folder_);
  register_cleanup_network_slot(slot_);
  try {
    remove_network_slot_links(slot_);  // leftovers of a run whose slot folder was removed by hand
    std::string bridge = slot_bridge_name(slot_);
    must({"ip", "link", "add", bridge, "type", "bridge"});
    must({"ip", "addr", "add", gateway() + "/24", "dev", bridge});
    must({"ip", "link", "set", bridge, "up"});
    for (int sid = 1; sid <= servers_; sid++) {
      std::string space = namespace_name(sid);
      std::string veth = slot_veth_name(slot_, sid);
      must({"ip", "netns", "add", space});
      must({"ip", "link", "add", veth, "type", "veth", "peer", "name", "eth0", "netns", space});
      must({"ip", "link", "set", veth, "master", bridge, "up"});
      must({"ip", "-n", space, "addr", "add", host(sid) + "/24", "dev", "eth0"});
      must({"ip", "-n", space, "link", "set", "eth0", "up"});
      must({"ip", "-n", space, "link", "set", "lo", "up"});
      apply_rules(sid);
    }
  } catch (...) {
    remove_everything();
    throw;
  }
}

ServerNetwork::~ServerNetwork() { remove_everything(); }

void ServerNetwork::remove_everything() noexcept {
  if (slot_ < 0) return;
  try {
    remove_network_slot_links(slot_);
    std::error_code ignored;
    std::filesystem::remove_all(slot_folder_, ignored);
    unregister_cleanup_network_slot(slot_);
  } catch (...) {
    // A destructor: what could not be removed is swept by the next run that takes this slot.
  }
  slot_ = -1;
}

std::string ServerNetwork::host(int sid) const {
  ELECTSIM_ASSERT(sid >= 1 && sid <= servers_);
  return "10." + std::to_string(subnet_second_octet) + "." + std::to_string(slot_) + "." + std::to_string(sid);
}

std::string ServerNetwork::gateway() const {
  return "10." + std::to_string(subnet_second_octet) + "." + std::to_string(slot_) + ".254";
}

std::string ServerNetwork::namespace_name(int sid) const {
  ELECTSIM_ASSERT(sid >= 1 && sid <= servers_);
  return slot_namespace_name(slot_, sid);
}

std::vector<std::string> ServerNetwork::exec_prefix(int sid) const {
  return {find_admin_tool("ip").string(), "netns", "exec", namespace_name(sid)};
}

void ServerNetwork::set_links(const std::vector<std::vector<bool>>& delivered) {
  ELECTSIM_ASSERT(delivered.size() == static_cast<std::size_t>(servers_));
  for (const auto& row : delivered) ELECTSIM_ASSERT(row.size() == static_cast<std::size_t>(servers_));
  delivered_ = delivered;
  for (int sid = 1; sid <= servers_; sid++) apply_rules(sid);
}

void ServerNetwork::set_powered_off(int sid, bool powered_off) {
  ELECTSIM_ASSERT(sid >= 1 && sid <= servers_);
  powered_off_[static_cast<std::size_t>(sid - 1)] = powered_off;
  apply_rules(sid);
}

void ServerNetwork::apply_rules(int sid) {
  auto index = static_cast<std::size_t>(sid - 1);
  std::string dropped;
  for (int peer = 1; peer <= servers_; peer++) {
    if (peer == sid || delivered_[index][static_cast<std::size_t>(peer - 1)]) continue;
    dropped += (dropped.empty() ? "" : ", ") + host(peer);
  }
  std::string policy = powered_off_[index] ? "drop" : "accept";
  std::string table = "table inet electsim {\n"
                      "  chain output {\n"
                      "    type filter hook output priority 0; policy " + policy + ";\n" +
                      (dropped.empty() ? "" : "    ip daddr { " + dropped + " } drop\n") +
                      "  }\n"
                      "  chain input {\n"
                      "    type filter hook input priority 0; policy " + policy + ";\n"
                      "  }\n"
                      "}\n";
  if (table == applied_[index]) return;
  // Declaring the table first makes the delete valid the first time too; nft applies the whole
  // input as one transaction, so the namespace never runs without its rules.
  must({"ip", "netns", "exec", namespace_name(sid), find_admin_tool("nft").string(), "-f", "-"},
       "table inet electsim\ndelete table inet electsim\n" + table);
  applied_[index] = table;
}

}  // namespace live
