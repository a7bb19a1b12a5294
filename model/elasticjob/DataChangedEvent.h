// The registry centre's listener vocabulary (elasticjob-registry-center-api, 3.0.2+):
// DataChangedEvent with ADDED / UPDATED / DELETED / IGNORED, DataChangedEventListener, the
// connection states ElasticJob sees (CONNECTED, UNAVAILABLE for SUSPENDED and LOST, RECONNECTED),
// ConnectionStateChangedEventListener, and LeaderExecutionCallback for executeInLeader.
//
// Java's listeners are plain methods run on some thread; here each is a coroutine, run by the
// coroutine that models that thread (the job's ListenerNotify executor, the state dispatcher).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "sim/eager.h"
#include "sim/task.h"

namespace elasticjob {

// Java makes one per listener call, with copies of the path and the data. Here the event views the
// cache's node, which the executor's work item keeps alive until the listener is done: a listener
// that keeps the key or the value past its onChange copies it.
struct DataChangedEvent {
  enum class Type : std::uint8_t { ADDED, UPDATED, DELETED, IGNORED };
  Type type = Type::IGNORED;
  std::string_view key;    // the path without the namespace, "/J/servers/10.0.0.1"
  std::string_view value;  // the new data, or the last known data of a DELETED node ("" for null)
};

std::string_view dataChangedEventTypeName(DataChangedEvent::Type type);

// A registry path as ElasticJob sees it: without the namespace's `namespaceLength` characters, and
// "/" for the namespace itself (Curator's namespace facade strips it). A view into `path`, or "/".
std::string_view pathWithoutNamespace(std::string_view path, std::size_t namespaceLength);

class DataChangedEventListener {
 public:
  virtual ~DataChangedEventListener() = default;
  // The event lives in the caller (the executor's work item) until the returned work is done. Most
  // events are filtered out by their path before any ZooKeeper call: that part answers at once, and
  // only the rest is a coroutine (sim/eager.h).
  virtual sim::Eager<void> onChange(const DataChangedEvent& event) = 0;
  // For the trace: the Java class name.
  virtual std::string_view name() const = 0;
};

// ConnectionStateChangedEventListener.State.
enum class RegistryCenterState : std::uint8_t { CONNECTED, UNAVAILABLE, RECONNECTED };
std::string_view registryCenterStateName(RegistryCenterState state);

class ConnectionStateChangedEventListener {
 public:
  virtual ~ConnectionStateChangedEventListener() = default;
  virtual sim::Task<void> onStateChanged(RegistryCenterState newState) = 0;
};

// LeaderExecutionCallback: run while holding the LeaderLatch of executeInLeader.
class LeaderExecutionCallback {
 public:
  virtual ~LeaderExecutionCallback() = default;
  virtual sim::Task<void> execute() = 0;
};

}  // namespace elasticjob
