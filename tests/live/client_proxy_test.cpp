// live::ClientProxy (docs/live-mode.md): the per-client loopback forwarder that lets live mode crash,
// pause and partition in-process ZooKeeper clients. Against small echo servers; no JVM needed.
// Timing: waits poll with generous deadlines (a loaded 2-core machine); only "nothing arrives" uses
// a fixed window, and it can only make a broken proxy pass, never a working one fail.
#include <gtest/gtest.h>

#include <algorithm>
#include <arpa/inet.h>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/socket.h>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "live/client_proxy.h"
#include "tests/live/client_proxy_test_support.h"

namespace {

using namespace proxy_test;

TEST(ClientProxy, ConnectStringListsOneLoopbackPortPerServer) {
  live::ClientProxy proxy;
  EchoServer first;
  EchoServer second;
  int client = proxy.add_client({first.port(), second.port()});
  EXPECT_EQ(client, 0);
  EXPECT_EQ(proxy.add_client({first.port()}), 1);
  std::vector<std::uint16_t> ports = ports_of(proxy.connect_string(client));
  ASSERT_EQ(ports.size(), 2u);
  std::set<std::uint16_t> distinct{ports[0], ports[1], first.port(), second.port(), proxy_port(proxy, 1, 0)};
  EXPECT_EQ(distinct.size(), 5u);
  EXPECT_EQ(proxy.connect_string(client), "127.0.0.1:" + std::to_string(ports[0]) + ",127.0.0.1:" + std::to_string(ports[1]));
}

TEST(ClientProxy, ForwardsBothWaysAndCountsTheBytes) {
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  Socket socket = connect_to(proxy_port(proxy, client, 0));
  ASSERT_GE(socket.fd(), 0);
  expect_echo(socket.fd(), "hello");
  expect_echo(socket.fd(), "world, again");
  EXPECT_EQ(proxy.bytes_forwarded(client), 2u * (5 + 12));
  EXPECT_EQ(server.accepted(), 1);
}

TEST(ClientProxy, CarriesMoreThanItsBuffersBothWays) {
  // 4 MiB each way through 256 KiB buffers: backpressure, partial writes, nothing lost or reordered.
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  Socket socket = connect_to(proxy_port(proxy, client, 0));
  ASSERT_GE(socket.fd(), 0);
  std::string data(4 * 1024 * 1024, '\0');
  for (std::size_t index = 0; index < data.size(); index++) data[index] = static_cast<char>('a' + (index * 7 + index / 4093) % 26);
  std::thread writer([&] { send_all(socket.fd(), data); });
  std::string back = receive(socket.fd(), data.size(), std::chrono::seconds(60));
  writer.join();
  EXPECT_EQ(back.size(), data.size());
  EXPECT_TRUE(back == data);
  EXPECT_EQ(proxy.bytes_forwarded(client), 2 * data.size());
}

TEST(ClientProxy, ServerCloseReachesTheClientAfterItsData) {
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  Socket socket = connect_to(proxy_port(proxy, client, 0));
  ASSERT_GE(socket.fd(), 0);
  send_all(socket.fd(), "bye!");
  EXPECT_EQ(receive(socket.fd(), 4), "bye!");
  EXPECT_TRUE(sees_close(socket.fd()));
}

TEST(ClientProxy, ClientCloseReachesTheServer) {
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  {
    Socket socket = connect_to(proxy_port(proxy, client, 0));
    ASSERT_GE(socket.fd(), 0);
    expect_echo(socket.fd(), "ping");
  }
  EXPECT_TRUE(eventually([&] { return server.ended() == 1; }));
}

TEST(ClientProxy, ARefusedServerEndsTheClientsConnection) {
  // A server that is down: the client's connection to the proxy is accepted, then ends.
  live::ClientProxy proxy;
  int client = proxy.add_client({unused_port()});
  Socket socket = connect_to(proxy_port(proxy, client, 0));
  ASSERT_GE(socket.fd(), 0);
  EXPECT_TRUE(sees_close(socket.fd()));
  EXPECT_EQ(proxy.bytes_forwarded(client), 0u);
}

TEST(ClientProxy, CrashResetsBothSidesAndRefusesNewConnections) {
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  std::uint16_t port = proxy_port(proxy, client, 0);
  Socket socket = connect_to(port);
  ASSERT_GE(socket.fd(), 0);
  expect_echo(socket.fd(), "before the crash");
  ASSERT_EQ(server.accepted(), 1);

  proxy.crash(client);
  // The resets are sent before crash() returns; a second is for the echo thread to be scheduled.
  EXPECT_TRUE(eventually([&] { return server.ended() == 1; }, std::chrono::seconds(1)));
  EXPECT_TRUE(sees_close(socket.fd(), std::chrono::seconds(1)));
  int error = 0;
  Socket again = connect_to(port, &error);
  EXPECT_LT(again.fd(), 0);
  EXPECT_EQ(error, ECONNREFUSED) << std::strerror(error);

  EXPECT_NO_THROW(proxy.crash(client));  // idempotent
  EXPECT_NO_THROW(proxy.set_paused(client, true));
  EXPECT_EQ(proxy.connect_string(client), "127.0.0.1:" + std::to_string(port));
}

TEST(ClientProxy, PauseHoldsEveryByteAndResumeDeliversThem) {
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  std::uint16_t port = proxy_port(proxy, client, 0);
  Socket socket = connect_to(port);
  ASSERT_GE(socket.fd(), 0);
  expect_echo(socket.fd(), "one");
  std::uint64_t before = proxy.bytes_forwarded(client);

  proxy.set_paused(client, true);
  send_all(socket.fd(), "two");
  // A connection made while paused is accepted (by the kernel) but not carried to the server.
  Socket during = connect_to(port);
  ASSERT_GE(during.fd(), 0);
  send_all(during.fd(), "three");
  EXPECT_TRUE(silent(socket.fd()));
  EXPECT_TRUE(silent(during.fd()));
  EXPECT_EQ(proxy.bytes_forwarded(client), before);
  EXPECT_EQ(server.accepted(), 1);
  EXPECT_EQ(server.ended(), 0);

  proxy.set_paused(client, false);
  EXPECT_EQ(receive(socket.fd(), 3), "two");
  EXPECT_EQ(receive(during.fd(), 5), "three");
  EXPECT_EQ(server.accepted(), 2);
  expect_echo(socket.fd(), "four");
}

TEST(ClientProxy, PausedClientPushesBackOnItsSender) {
  // While paused the proxy reads nothing, so a sender fills the kernel buffers and then blocks, as
  // it would toward a stopped process. On resume everything it managed to send arrives.
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  Socket socket = connect_to(proxy_port(proxy, client, 0));
  ASSERT_GE(socket.fd(), 0);
  expect_echo(socket.fd(), "warm up");
  proxy.set_paused(client, true);
  ASSERT_EQ(::fcntl(socket.fd(), F_SETFL, O_NONBLOCK), 0);
  std::string sent;
  std::string chunk(16 * 1024, 'x');
  constexpr std::size_t limit = 256u * 1024 * 1024;  // far beyond any loopback buffering
  while (sent.size() < limit) {
    for (std::size_t index = 0; index < chunk.size(); index++) chunk[index] = static_cast<char>('a' + (sent.size() + index) % 23);
    ssize_t written = ::send(socket.fd(), chunk.data(), chunk.size(), MSG_NOSIGNAL);
    if (written < 0) {
      ASSERT_TRUE(errno == EAGAIN || errno == EWOULDBLOCK) << std::strerror(errno);
      // Kernel memory may still be settling: the buffers are full when it stays unwritable a while.
      pollfd polled{socket.fd(), POLLOUT, 0};
      if (::poll(&polled, 1, static_cast<int>(silence_window.count())) == 0) break;
      continue;
    }
    sent.append(chunk.data(), static_cast<std::size_t>(written));
  }
  ASSERT_LT(sent.size(), limit) << "the paused proxy kept reading";
  ASSERT_EQ(::fcntl(socket.fd(), F_SETFL, 0), 0);
  proxy.set_paused(client, false);
  std::string back = receive(socket.fd(), sent.size(), std::chrono::seconds(60));
  EXPECT_EQ(back.size(), sent.size());
  EXPECT_TRUE(back == sent);
}

TEST(ClientProxy, CutSilencesOneServerAndLeavesTheOtherWorking) {
  live::ClientProxy proxy;
  EchoServer first;
  EchoServer second;
  int client = proxy.add_client({first.port(), second.port()});
  Socket to_first = connect_to(proxy_port(proxy, client, 0));
  Socket to_second = connect_to(proxy_port(proxy, client, 1));
  ASSERT_GE(to_first.fd(), 0);
  ASSERT_GE(to_second.fd(), 0);
  expect_echo(to_first.fd(), "a");
  expect_echo(to_second.fd(), "b");

  proxy.set_cut(client, 0, true);
  send_all(to_first.fd(), "held");
  Socket new_to_first = connect_to(proxy_port(proxy, client, 0));  // accepted, not connected onward
  ASSERT_GE(new_to_first.fd(), 0);
  send_all(new_to_first.fd(), "new");
  expect_echo(to_second.fd(), "still working");
  Socket new_to_second = connect_to(proxy_port(proxy, client, 1));
  ASSERT_GE(new_to_second.fd(), 0);
  expect_echo(new_to_second.fd(), "new link");
  EXPECT_TRUE(silent(to_first.fd()));
  EXPECT_TRUE(silent(new_to_first.fd()));
  EXPECT_EQ(first.accepted(), 1);
  EXPECT_EQ(second.accepted(), 2);

  // A pause and its end leave the cut in place.
  proxy.set_paused(client, true);
  proxy.set_paused(client, false);
  EXPECT_TRUE(silent(to_first.fd()));
  expect_echo(to_second.fd(), "after the pause");

  proxy.set_cut(client, 0, false);
  EXPECT_EQ(receive(to_first.fd(), 4), "held");
  EXPECT_EQ(receive(new_to_first.fd(), 3), "new");
  EXPECT_EQ(first.accepted(), 2);
  EXPECT_EQ(first.ended(), 0);
}

TEST(ClientProxy, ConnectionsAbandonedDuringACutNeverReachTheServer) {
  // The C client keeps retrying during a partition: more abandoned attempts than the per-client
  // limit must neither use up the limit nor reach the server when the cut heals.
  live::ClientProxy proxy;
  EchoServer server;
  int client = proxy.add_client({server.port()});
  std::uint16_t port = proxy_port(proxy, client, 0);
  proxy.set_cut(client, 0, true);
  for (int attempt = 0; attempt < 2 * live::ClientProxy::links_per_client_max; attempt++) {
    Socket abandoned = connect_to(port);
    ASSERT_GE(abandoned.fd(), 0);
    send_all(abandoned.fd(), "connect request");
  }
  Socket last = connect_to(port);
  ASSERT_GE(last.fd(), 0);
  send_all(last.fd(), "last");
  EXPECT_TRUE(silent(last.fd()));  // held, not refused
  proxy.set_cut(client, 0, false);
  EXPECT_EQ(receive(last.fd(), 4), "last");
  EXPECT_EQ(server.accepted(), 1);
}

TEST(ClientProxy, ClientsAreIndependent) {
  live::ClientProxy proxy;
  EchoServer server;
  int first = proxy.add_client({server.port()});
  int second = proxy.add_client({server.port()});
  Socket from_first = connect_to(proxy_port(proxy, first, 0));
  Socket from_second = connect_to(proxy_port(proxy, second, 0));
  ASSERT_GE(from_first.fd(), 0);
  ASSERT_GE(from_second.fd(), 0);
  expect_echo(from_first.fd(), "1234");
  expect_echo(from_second.fd(), "12345678");
  EXPECT_EQ(proxy.bytes_forwarded(first), 8u);
  EXPECT_EQ(proxy.bytes_forwarded(second), 16u);

  proxy.set_paused(first, true);
  send_all(from_first.fd(), "waiting");
  expect_echo(from_second.fd(), "not paused");
  EXPECT_TRUE(silent(from_first.fd()));

  proxy.crash(first);
  EXPECT_TRUE(sees_close(from_first.fd()));
  EXPECT_TRUE(eventually([&] { return server.ended() == 1; }));
  expect_echo(from_second.fd(), "not crashed");
  Socket again = connect_to(proxy_port(proxy, second, 0));
  ASSERT_GE(again.fd(), 0);
  expect_echo(again.fd(), "new connection");
  EXPECT_EQ(proxy.bytes_forwarded(first), 8u);
}

TEST(ClientProxy, DestructionClosesEveryConnection) {
  EchoServer server;
  Socket socket;
  {
    live::ClientProxy proxy;
    int client = proxy.add_client({server.port()});
    socket = connect_to(proxy_port(proxy, client, 0));
    ASSERT_GE(socket.fd(), 0);
    expect_echo(socket.fd(), "last words");
    proxy.set_paused(client, true);  // a paused link is closed too
  }
  EXPECT_TRUE(sees_close(socket.fd()));
  EXPECT_TRUE(eventually([&] { return server.ended() == 1; }));
}

TEST(ClientProxy, BadNumbersThrow) {
  live::ClientProxy proxy;
  EXPECT_THROW(proxy.crash(0), std::invalid_argument);
  EXPECT_THROW(proxy.connect_string(0), std::invalid_argument);
  EXPECT_THROW(proxy.add_client({}), std::invalid_argument);
  EXPECT_THROW(proxy.add_client({0}), std::invalid_argument);
  EXPECT_THROW(proxy.add_client(std::vector<live::Endpoint>(live::ClientProxy::servers_max + 1, live::Endpoint(2181))), std::invalid_argument);
  EXPECT_THROW(proxy.add_client({live::Endpoint("not-an-address", 2181)}), std::invalid_argument);
  int client = proxy.add_client({unused_port(), unused_port()});
  EXPECT_THROW(proxy.crash(-1), std::invalid_argument);
  EXPECT_THROW(proxy.crash(client + 1), std::invalid_argument);
  EXPECT_THROW(proxy.set_paused(client + 1, true), std::invalid_argument);
  EXPECT_THROW(proxy.set_cut(client, 2, true), std::invalid_argument);
  EXPECT_THROW(proxy.set_cut(client, -1, true), std::invalid_argument);
  EXPECT_THROW(proxy.set_cut(client + 1, 0, true), std::invalid_argument);
  EXPECT_THROW(proxy.bytes_forwarded(client + 1), std::invalid_argument);
  EXPECT_NO_THROW(proxy.set_cut(client, 1, true));
  try {
    proxy.crash(7);
    FAIL() << "no exception";
  } catch (const std::invalid_argument& error) {
    EXPECT_STREQ(error.what(), "live mode: client proxy: no client 7 (1 registered)");
  }
}

TEST(ClientProxy, RefusesMoreThanItsClientLimit) {
  // 1024 clients of one server each: 1024 listening sockets, within the usual descriptor limit.
  live::ClientProxy proxy;
  std::uint16_t port = unused_port();
  int added = 0;
  try {
    for (; added < live::ClientProxy::clients_max; added++) proxy.add_client({port});
  } catch (const std::runtime_error& error) {
    GTEST_SKIP() << "out of descriptors after " << added << " clients: " << error.what();
  }
  EXPECT_THROW(proxy.add_client({port}), std::runtime_error);
}

}  // namespace
