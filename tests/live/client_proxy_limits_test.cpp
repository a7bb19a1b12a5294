// live::ClientProxy's limits (docs/live-mode.md): the clients open at once, a closed handle's
// release, and one warning per client that opens too many connections. No JVM needed.
#include <gtest/gtest.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <poll.h>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <vector>

#include "live/client_proxy.h"
#include "tests/live/client_proxy_test_support.h"

namespace {

using namespace proxy_test;

TEST(ClientProxy, ReleaseRefusesNewConnectionsAndLetsTheOpenOneFinish) {
  // A closed handle (zookeeper_close): what it sent still reaches the server, then its ports refuse.
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  std::uint16_t port = proxy_port(proxy, client, 0);
  Socket socket = connect_to(port);
  ASSERT_GE(socket.fd(), 0);
  expect_echo(socket.fd(), "before the close");

  proxy.release(client);
  expect_echo(socket.fd(), "after the release, on the open connection");
  int error = 0;
  Socket again = connect_to(port, &error);
  EXPECT_LT(again.fd(), 0);
  EXPECT_EQ(error, ECONNREFUSED) << std::strerror(error);
  EXPECT_NO_THROW(proxy.release(client));  // idempotent
}

TEST(ClientProxy, ClientsMaxCountsOnlyTheClientsOpenAtOnce) {
  // A long live run replaces expired sessions (Curator makes a new handle after each) and restarted
  // instances: the limit is on the clients open at once, not on every client the run ever made.
  // clients_max listening sockets, plus a few: raise the soft limit where the hard one allows.
  rlimit files{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &files), 0);
  rlim_t wanted = 2 * static_cast<rlim_t>(live::ClientProxy::clients_max) + 64;
  if (files.rlim_cur < wanted) {
    if (files.rlim_max != RLIM_INFINITY && files.rlim_max < wanted) GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is below " << wanted;
    files.rlim_cur = wanted;
    ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &files), 0);
  }
  live::ClientProxy proxy;
  std::uint16_t server = unused_port();
  std::vector<int> clients;
  for (int index = 0; index < live::ClientProxy::clients_max; index++) clients.push_back(proxy.add_client({server}));
  EXPECT_THROW(proxy.add_client({server}), std::runtime_error);
  proxy.release(clients[0]);
  int replacement = -1;
  EXPECT_NO_THROW(replacement = proxy.add_client({server}));
  EXPECT_EQ(replacement, live::ClientProxy::clients_max);
  EXPECT_THROW(proxy.add_client({server}), std::runtime_error);
  proxy.crash(clients[1]);
  EXPECT_NO_THROW(proxy.add_client({server}));
  EXPECT_THROW(proxy.add_client({server}), std::runtime_error);
}


TEST(ClientProxy, SaysOnceThatAClientHasTooManyConnections) {
  // A client whose handshake always times out reconnects at once, hundreds of times a second: one
  // line on stderr, not one per refused connection (live mode once wrote ~700 lines a second).
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  std::uint16_t port = proxy_port(proxy, client, 0);
  testing::internal::CaptureStderr();
  std::vector<Socket> sockets;
  for (int index = 0; index < live::ClientProxy::links_per_client_max + 8; index++) sockets.push_back(connect_to(port));
  // Each refused one is reset: wait until the accepted ones all reached the server and the rest were seen.
  bool settled = eventually([&] { return server.accepted() == live::ClientProxy::links_per_client_max; });
  // The refused ones are readable (their reset); the forwarded ones stay quiet (nothing was sent).
  auto refused = [&] {
    int count = 0;
    for (Socket& socket : sockets) {
      pollfd polled{socket.fd(), POLLIN, 0};
      count += ::poll(&polled, 1, 0) > 0 ? 1 : 0;
    }
    return count;
  };
  bool all_refused = eventually([&] { return refused() >= 8; });
  std::string said = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(settled);
  EXPECT_TRUE(all_refused);
  std::size_t lines = 0;
  for (std::size_t at = said.find("connections at once"); at != std::string::npos; at = said.find("connections at once", at + 1)) lines++;
  EXPECT_EQ(lines, 1u) << said;
}

}  // namespace
