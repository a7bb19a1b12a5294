// Endpoint: where a real server listens, an IPv4 address and a port. On loopback (the default) every
// server is 127.0.0.1 with its own ports; with network namespaces (live/server_network.h) each server
// has its own address.
#pragma once

#include <arpa/inet.h>
#include <cstdint>
#include <netinet/in.h>
#include <stdexcept>
#include <string>

namespace live {

struct Endpoint {
  std::string host = "127.0.0.1";  // dotted IPv4
  std::uint16_t port = 0;

  Endpoint() = default;
  // A loopback port: implicit, so a list of ports is a list of loopback endpoints.
  Endpoint(std::uint16_t port_number) : port(port_number) {}  // NOLINT(google-explicit-constructor)
  Endpoint(std::string host_address, std::uint16_t port_number) : host(std::move(host_address)), port(port_number) {}

  std::string text() const { return host + ":" + std::to_string(port); }
  // Throws std::invalid_argument when `host` is not a dotted IPv4 address.
  sockaddr_in socket_address() const {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    if (::inet_pton(AF_INET, host.c_str(), &address.sin_addr) != 1) {
      throw std::invalid_argument("live mode: not an IPv4 address: " + host);
    }
    return address;
  }
};

}  // namespace live
