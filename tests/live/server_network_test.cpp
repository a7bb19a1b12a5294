// ServerNetwork (live/server_network.h) without a JVM: sockets opened inside the servers' namespaces
// by threads that enter them (setns), and the cuts seen as silence (timeouts), not as errors.
// Skipped where namespaces cannot be made (not root, no ip or nft).
#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <fcntl.h>
#include <filesystem>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>

#include "live/endpoint.h"
#include "live/server_network.h"

namespace {

constexpr int port = 7777;

sockaddr_in address_of(const std::string& host, int port_number) {
  return live::Endpoint(host, static_cast<std::uint16_t>(port_number)).socket_address();
}

// Runs `make` on a thread inside the namespace (setns affects only that thread); the socket it
// makes stays in that namespace.
int socket_in(const std::string& space, const std::function<int()>& make) {
  int result = -1;
  std::thread([&] {
    int space_fd = ::open(("/run/netns/" + space).c_str(), O_RDONLY | O_CLOEXEC);
    if (space_fd < 0 || ::setns(space_fd, CLONE_NEWNET) != 0) return;
    ::close(space_fd);
    result = make();
  }).join();
  return result;
}

int listener(const std::string& host) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in address = address_of(host, port);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(fd, 16) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// A TCP connect from a socket made by `make_socket` (in some namespace) to host:port, 400 ms at
// most: true when it connected, false on a timeout (silence) or an error.
bool connects(int fd, const std::string& host) {
  ::fcntl(fd, F_SETFL, O_NONBLOCK);
  sockaddr_in address = address_of(host, port);
  int rc = ::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address);
  bool ok = rc == 0;
  if (rc != 0 && errno == EINPROGRESS) {
    pollfd wait{fd, POLLOUT, 0};
    if (::poll(&wait, 1, 400) == 1) {
      int error = 0;
      socklen_t length = sizeof error;
      ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &error, &length);
      ok = error == 0;
    }
  }
  ::close(fd);
  return ok;
}

int client_socket() { return ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0); }

}  // namespace

TEST(ServerNetwork, CutsLinksBetweenServersSilentlyAndPowersOff) {
  if (auto reason = live::ServerNetwork::unavailable_reason()) GTEST_SKIP() << *reason;
  std::string space_of_1;
  {
    live::ServerNetwork network(3);
    space_of_1 = network.namespace_name(1);
    EXPECT_TRUE(std::filesystem::exists("/run/netns/" + space_of_1));
    std::vector<int> listeners;
    for (int sid = 1; sid <= 3; sid++) {
      listeners.push_back(socket_in(network.namespace_name(sid), [&] { return listener(network.host(sid)); }));
      ASSERT_GE(listeners.back(), 0) << "listen on " << network.host(sid);
    }
    auto from = [&](int sid) { return socket_in(network.namespace_name(sid), client_socket); };

    EXPECT_TRUE(connects(from(1), network.host(2)));
    EXPECT_TRUE(connects(client_socket(), network.host(3))) << "electsim's own namespace reaches every server";

    // One-way loss 1 -> 2: TCP needs both ways, so 1 and 2 cannot connect either way, while 1 and 3
    // still can, and electsim still reaches both.
    std::vector<std::vector<bool>> delivered(3, std::vector<bool>(3, true));
    delivered[0][1] = false;
    network.set_links(delivered);
    EXPECT_FALSE(connects(from(1), network.host(2)));
    EXPECT_FALSE(connects(from(2), network.host(1)));
    EXPECT_TRUE(connects(from(1), network.host(3)));
    EXPECT_TRUE(connects(client_socket(), network.host(1)));
    EXPECT_TRUE(connects(client_socket(), network.host(2)));

    // Healed.
    delivered[0][1] = true;
    network.set_links(delivered);
    EXPECT_TRUE(connects(from(2), network.host(1)));

    // Powered off: nothing gets in or out, also from electsim; powered on again: reachable.
    network.set_powered_off(3, true);
    EXPECT_FALSE(connects(client_socket(), network.host(3)));
    EXPECT_FALSE(connects(from(1), network.host(3)));
    network.set_powered_off(3, false);
    EXPECT_TRUE(connects(from(1), network.host(3)));
    for (int fd : listeners) ::close(fd);
  }
  EXPECT_FALSE(std::filesystem::exists("/run/netns/" + space_of_1)) << "the destructor removes the namespaces";
}

TEST(ServerNetwork, RunCommandReportsTheExitStatusAndTheMessage) {
  live::CommandResult missing = live::run_command({"electsim-no-such-tool"});
  EXPECT_EQ(missing.exit_status, 127);
  if (live::find_admin_tool("ip").empty()) GTEST_SKIP() << "no ip";
  live::CommandResult bad = live::run_command({"ip", "link", "show", "electsim-no-such-link"});
  EXPECT_NE(bad.exit_status, 0);
  EXPECT_NE(bad.error_output.find("electsim-no-such-link"), std::string::npos) << bad.error_output;
}

#if ELECTSIM_LIVE
#include "harness/scenario_parser.h"
#include "live/live_platform.h"

// Which faults want a namespace per server: those between servers and a server's power-off; a cut
// between an instance and a server is the client proxy's, on loopback too.
TEST(ServerNetwork, TheFaultsBetweenServersAreTheOnesThatNeedNamespaces) {
  harness::Scenario scenario = harness::parse_scenario_text(R"(
name: t
recipe: leader-latch
duration: 60s
zookeeper: {servers: 3}
instances: {count: 2}
faults:
  - {at: 1s, isolate: i1}
  - {at: 2s, partition: [[i1, zk1], [zk2, zk3]]}
  - {at: 3s, partition: [[i1], [zk1, zk2, zk3, i2]]}
  - {at: 4s, isolate: zk3}
  - {at: 5s, drop: {from: zk1, to: zk2}}
  - {at: 6s, drop: {from: i1, to: zk2}}
  - {at: 7s, power_off: zk2}
  - {at: 8s, power_off: i2}
  - {at: 9s, heal: all}
)", "t.yaml");
  std::vector<std::string> faults = live::LivePlatform::serverNetworkFaults(scenario);
  ASSERT_EQ(faults.size(), 4u) << ::testing::PrintToString(faults);
  EXPECT_EQ(faults[0], "2s partition: separates servers from servers");
  EXPECT_EQ(faults[1], "4s isolate zk3: cuts a server from the other servers");
  EXPECT_EQ(faults[2], "5s drop zk1->zk2: one-way loss between servers");
  EXPECT_EQ(faults[3], "7s power_off zk2: a server without power (silence)");
  std::vector<std::string> skipped = live::LivePlatform::unsupportedFaults(scenario);
  if (live::ServerNetwork::unavailable_reason()) {
    EXPECT_EQ(skipped.size(), 3u) << "all but the power-off, which falls back to SIGSTOP";
  } else {
    EXPECT_TRUE(skipped.empty());
  }
}
#endif
