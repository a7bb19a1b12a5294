// What live runs leave behind and who removes it (docs/live-mode.md, "Leftovers"): owner files,
// the network slots' names, the sweep of a gone process's folders, and the signal's cleanup. No JVM,
// no namespace (live_cleanup.sh does those, as root). Also where a refused key is in a file.
#include <gtest/gtest.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sys/wait.h>
#include <unistd.h>

#include "live/child_process.h"
#include "live/interrupt_cleanup.h"
#include "live/leftovers.h"
#include "live/network_slot.h"
#include "live/owner_file.h"
#if ELECTSIM_LIVE
#include "live/scenario_position.h"
#endif

namespace {

namespace fs = std::filesystem;

// A folder under the temp folder named like an ensemble's, removed at the end of the test.
class TempFolder {
 public:
  explicit TempFolder(const std::string& prefix) {
    std::string pattern = (fs::temp_directory_path() / (prefix + "XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
    path_ = pattern;
  }
  ~TempFolder() {
    std::error_code ignored;
    fs::remove_all(path_, ignored);
  }
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// The PID of a process that has just exited and been reaped.
pid_t gone_pid() {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return pid;
}

TEST(OwnerFile, TellsTheRunningOwnerFromAGoneOneAndAReusedPid) {
  TempFolder folder("electsim-live-unit-");
  EXPECT_EQ(live::folder_owner(folder.path()), live::FolderOwner::unknown);  // no owner file (kept, or being written)
  live::write_owner_file(folder.path());
  EXPECT_EQ(live::folder_owner(folder.path()), live::FolderOwner::alive);
  std::ofstream(folder.path() / "owner") << gone_pid() << " 1\n";
  EXPECT_EQ(live::folder_owner(folder.path()), live::FolderOwner::gone);
  // This process's PID with another start time: the PID was reused, the owner is gone.
  std::ofstream(folder.path() / "owner") << ::getpid() << " " << live::process_start_ticks(::getpid()) + 1 << "\n";
  EXPECT_EQ(live::folder_owner(folder.path()), live::FolderOwner::gone);
  // An owner file of an older electsim: the PID alone.
  std::ofstream(folder.path() / "owner") << ::getpid() << "\n";
  EXPECT_EQ(live::folder_owner(folder.path()), live::FolderOwner::alive);
}

TEST(OwnerFile, AZombieIsGone) {
  // Killed with kill -9 and not yet reaped by its parent: its leftovers are leftovers already.
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  bool zombie = false;
  for (int attempt = 0; attempt < 200 && !zombie; attempt++) {
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string text;
    std::getline(stat, text);
    zombie = text.find(") Z ") != std::string::npos;
    if (!zombie) ::usleep(10'000);
  }
  ASSERT_TRUE(zombie);
  EXPECT_FALSE(live::process_alive(child, 0));
  int status = 0;
  ::waitpid(child, &status, 0);
}

TEST(NetworkSlot, NamesItsNamespacesLinksAndBridgeAndReadsThemBack) {
  EXPECT_EQ(live::slot_namespace_name(12, 3), "electsim-12-3");
  EXPECT_EQ(live::slot_veth_name(12, 3), "electsim-12v3");
  EXPECT_EQ(live::slot_bridge_name(12), "electsim-br12");
  EXPECT_EQ(live::slot_of_namespace("electsim-12-3"), 12);
  EXPECT_EQ(live::slot_of_namespace("electsim-0-9"), 0);
  EXPECT_EQ(live::slot_of_link("electsim-12v3"), 12);
  EXPECT_EQ(live::slot_of_link("electsim-br199"), 199);
  // Not electsim's: left alone by every sweep.
  for (const char* name : {"electsim-0-10", "electsim-0-0", "electsim-200-1", "electsim-01-1", "electsim-x-1", "electsim", "eth0"}) {
    EXPECT_FALSE(live::slot_of_namespace(name).has_value()) << name;
  }
  for (const char* name : {"electsim-br200", "electsim-brx", "electsim-1v0", "electsim-1v10", "electsim-br", "docker0"}) {
    EXPECT_FALSE(live::slot_of_link(name).has_value()) << name;
  }
}

TEST(Leftovers, RemovesOnlyTheFoldersOfGoneProcesses) {
  TempFolder gone("electsim-live-unit-");
  TempFolder running("electsim-live-unit-");
  TempFolder kept("electsim-live-unit-");
  std::ofstream(gone.path() / "owner") << gone_pid() << " 1\n";
  fs::create_directories(gone.path() / "zk1" / "data");
  live::write_owner_file(running.path());
  live::LeftoverSweep sweep = live::remove_leftovers();
  EXPECT_FALSE(fs::exists(gone.path()));
  EXPECT_TRUE(fs::exists(running.path()));
  EXPECT_TRUE(fs::exists(kept.path()));
  EXPECT_NE(std::find(sweep.removed.begin(), sweep.removed.end(), "folder " + gone.path().string()), sweep.removed.end());
  for (const std::string& item : sweep.removed) EXPECT_EQ(item.find(running.path().string()), std::string::npos) << item;
}

TEST(InterruptCleanup, ASignalRemovesTheRegisteredFoldersThenEndsTheProcess) {
  // conformance, or live's second signal: the handler kills the children and cannot remove folders
  // itself; the cleanup thread does, then the signal ends the process (status: killed by SIGTERM).
  TempFolder folder("electsim-live-unit-");
  std::ofstream(folder.path() / "zoo.cfg") << "tickTime=2000\n";
  // This process has a cleanup thread too: the child's signal must wake its own, never this one's
  // (which would remove this process's folder and end it).
  TempFolder ours("electsim-live-unit-");
  live::register_cleanup_folder(ours.path());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    live::register_cleanup_folder(folder.path());
    live::install_cleanup_on_signals();
    ::raise(SIGTERM);
    for (int waited = 0; waited < 1000; waited++) ::usleep(10'000);  // the cleanup ends us well before
    ::_exit(0);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFSIGNALED(status)) << "exit status " << (WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  EXPECT_EQ(WTERMSIG(status), SIGTERM);
  EXPECT_FALSE(fs::exists(folder.path()));
  EXPECT_TRUE(fs::exists(ours.path()));
  live::unregister_cleanup_folder(ours.path());
}

#if ELECTSIM_LIVE
TEST(ScenarioPosition, FindsKeysListItemsAndTheFirstItemWithAValue) {
  const std::string yaml =
      "name: s\n"                                          // 1
      "zookeeper: {servers: 10, tick_time: 1500us}\n"      // 2
      "faults:\n"                                          // 3
      "  - {at: 1s, crash: zk1}\n"                         // 4
      "  - after: {event: zk.state, node: zk1}\n"          // 5
      "    crash: zk1\n"                                   // 6
      "  - after:\n"                                       // 7
      "      event: zab.proposal_sent\n"                   // 8
      "      node: zk2\n"                                  // 9
      "    crash: zk2\n";                                  // 10
  auto at = [&](std::string_view path, std::string_view value = {}) {
    std::optional<live::FilePosition> position = live::find_key_position(yaml, path, value);
    return position ? std::to_string(position->line) + ":" + std::to_string(position->column) : std::string("none");
  };
  EXPECT_EQ(at("name"), "1:1");
  EXPECT_EQ(at("zookeeper.servers"), "2:13");
  EXPECT_EQ(at("zookeeper.tick_time"), "2:26");
  EXPECT_EQ(at("faults[1].after"), "5:5");
  EXPECT_EQ(at("faults[0]"), "4:5");
  EXPECT_EQ(at("faults[*].after.event", "zab.proposal_sent"), "8:7");
  EXPECT_EQ(at("faults[*].after.event"), "5:13");
  EXPECT_EQ(at("zookeeper.version"), "none");  // not written: a default
  EXPECT_EQ(at("faults[7].after"), "none");
  EXPECT_EQ(at("faults[*].after.event", "zab.ack_sent"), "none");
  EXPECT_FALSE(live::find_key_position("a: [", "a").has_value());  // does not parse
}
#endif

}  // namespace
