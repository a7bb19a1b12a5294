// Live mode's parts that need no JVM: the srvr parser, free ports, and the child-process cleanup.
#include <gtest/gtest.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <set>
#include <unistd.h>

#include "live/child_process.h"
#include "live/ensemble.h"
#include "live/four_letter.h"
#include "live/owner_file.h"

namespace {

TEST(FourLetter, ParsesALeadersSrvrAnswer) {
  // As ZooKeeper 3.8.0 answered here (StatCommand, srvr).
  live::ServerStatus status = live::parse_srvr(
      "Zookeeper version: 3.8.0-${mvngit.commit.id}, built on 2024-12-29 17:54 UTC\nLatency min/avg/max: 0/0.0/0\n"
      "Received: 1\nSent: 0\nConnections: 1\nOutstanding: 0\nZxid: 0x100000000\nMode: leader\nNode count: 5\n");
  EXPECT_EQ(status.mode, live::ServerMode::leader);
  ASSERT_TRUE(status.zxid.has_value());
  EXPECT_EQ(*status.zxid, std::int64_t{1} << 32);
}

TEST(FourLetter, ALookingServerIsNotServing) {
  EXPECT_EQ(live::parse_srvr("This ZooKeeper instance is not currently serving requests\n").mode, live::ServerMode::not_serving);
  EXPECT_EQ(live::parse_srvr("").mode, live::ServerMode::no_answer);
}

TEST(FourLetter, NothingListeningIsDown) {
  int port = live::free_loopback_ports(1).front();
  EXPECT_EQ(live::query_srvr(live::Endpoint(static_cast<std::uint16_t>(port)), std::chrono::milliseconds(200)).mode, live::ServerMode::down);
}

TEST(FreePorts, AreDistinct) {
  std::vector<int> ports = live::free_loopback_ports(9);
  EXPECT_EQ(std::set<int>(ports.begin(), ports.end()).size(), 9u);
}

TEST(ChildProcess, KillEndsTheWholeProcessGroupAndUnregisters) {
  int before = live::live_children_count();
  pid_t grandchild = 0;
  {
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    live::ChildProcess child = live::ChildProcess::fork([&] {
      pid_t inner = ::fork();  // a process the child starts, as a JVM starts threads and helpers
      if (inner == 0) {
        while (true) ::pause();
      }
      (void)!::write(fds[1], &inner, sizeof inner);
      while (true) ::pause();
      return 0;
    });
    ASSERT_EQ(::read(fds[0], &grandchild, sizeof grandchild), static_cast<ssize_t>(sizeof grandchild));
    ::close(fds[0]);
    ::close(fds[1]);
    EXPECT_EQ(live::live_children_count(), before + 1);
    EXPECT_EQ(::kill(grandchild, 0), 0);
  }  // the destructor kills the group
  EXPECT_EQ(live::live_children_count(), before);
  // The grandchild got SIGKILL with its group: gone, or a zombie its new parent has not reaped yet
  // (in a container, PID 1 may never reap it).
  auto dead = [grandchild] {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid, name, state;
    if (!(stat >> pid >> name >> state)) return true;
    return state == "Z" || state == "X";
  };
  for (int attempt = 0; attempt < 100 && !dead(); attempt++) ::usleep(10'000);
  EXPECT_TRUE(dead());
}


TEST(LiveEnsemble, WritesTheSessionTimeoutBoundsAndAnOwnerAndRemovesItsFolder) {
  // zoo.cfg gets the scenario's minSessionTimeout and maxSessionTimeout (they bound what the servers
  // negotiate); the folder names its owner, so a sweep after kill -9 can tell it is a leftover.
  live::LiveEnsembleConfig config;
  config.servers = 2;
  config.min_session_timeout = std::chrono::milliseconds(3000);
  config.max_session_timeout = std::chrono::milliseconds(50000);
  std::filesystem::path folder;
  {
    live::LiveEnsemble ensemble(config, live::Installation{});  // no server is started: no JVM needed
    folder = ensemble.folder();
    std::ifstream cfg(folder / "zk2" / "zoo.cfg");
    std::string text((std::istreambuf_iterator<char>(cfg)), std::istreambuf_iterator<char>());
    EXPECT_NE(text.find("\nminSessionTimeout=3000\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\nmaxSessionTimeout=50000\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\ntickTime=2000\n"), std::string::npos) << text;
    EXPECT_EQ(live::folder_owner(folder), live::FolderOwner::alive);
  }
  EXPECT_FALSE(std::filesystem::exists(folder));
  // Without the scenario's bounds, ZooKeeper's own defaults (2 and 20 ticks): nothing written.
  live::LiveEnsemble defaults(live::LiveEnsembleConfig{}, live::Installation{});
  std::ifstream cfg(defaults.folder() / "zk1" / "zoo.cfg");
  std::string text((std::istreambuf_iterator<char>(cfg)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.find("SessionTimeout"), std::string::npos) << text;
}

}  // namespace
