// org.apache.curator.framework.state.ConnectionState and the two ConnectionStateErrorPolicy
// implementations (Standard: SUSPENDED and LOST are errors; Session: only LOST is).
#pragma once

#include <cstdint>
#include <string_view>

namespace curator {

enum class ConnectionState : std::uint8_t { connected, suspended, reconnected, lost, read_only };

// ConnectionState.isConnected(): CONNECTED, RECONNECTED and READ_ONLY.
constexpr bool isConnected(ConnectionState state) {
  return state == ConnectionState::connected || state == ConnectionState::reconnected || state == ConnectionState::read_only;
}

// "CONNECTED", "SUSPENDED", ... as Curator prints them.
std::string_view connectionStateName(ConnectionState state);

enum class ConnectionStateErrorPolicy : std::uint8_t {
  standard,  // StandardConnectionStateErrorPolicy (the default)
  session,   // SessionConnectionStateErrorPolicy
};

// ConnectionStateErrorPolicy.isErrorState.
constexpr bool isErrorState(ConnectionStateErrorPolicy policy, ConnectionState state) {
  if (state == ConnectionState::lost) return true;
  return policy == ConnectionStateErrorPolicy::standard && state == ConnectionState::suspended;
}

}  // namespace curator
