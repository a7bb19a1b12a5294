#include "model/curator/ConnectionState.h"

namespace curator {

std::string_view connectionStateName(ConnectionState state) {
  switch (state) {
    case ConnectionState::connected: return "CONNECTED";
    case ConnectionState::suspended: return "SUSPENDED";
    case ConnectionState::reconnected: return "RECONNECTED";
    case ConnectionState::lost: return "LOST";
    case ConnectionState::read_only: return "READ_ONLY";
  }
  return "UNKNOWN";
}

static_assert(isErrorState(ConnectionStateErrorPolicy::standard, ConnectionState::suspended));
static_assert(!isErrorState(ConnectionStateErrorPolicy::session, ConnectionState::suspended));
static_assert(isErrorState(ConnectionStateErrorPolicy::session, ConnectionState::lost));
static_assert(!isErrorState(ConnectionStateErrorPolicy::standard, ConnectionState::reconnected));

}  // namespace curator
