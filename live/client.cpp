#include "live/client.h"

#include <zookeeper/zookeeper.h>

#include <cstdio>

#include "sim/assert.h"

namespace live {

namespace {

std::string event_type_name(int type) {
  if (type == ZOO_CREATED_EVENT) return "created";
  if (type == ZOO_DELETED_EVENT) return "deleted";
  if (type == ZOO_CHANGED_EVENT) return "changed";
  if (type == ZOO_CHILD_EVENT) return "child";
  if (type == ZOO_SESSION_EVENT) return "session";
  if (type == ZOO_NOTWATCHING_EVENT) return "not-watching";
  return "type " + std::to_string(type);
}

std::string state_name(int state) {
  if (state == ZOO_CONNECTED_STATE) return "connected";
  if (state == ZOO_CONNECTING_STATE) return "connecting";
  if (state == ZOO_ASSOCIATING_STATE) return "associating";
  if (state == ZOO_EXPIRED_SESSION_STATE) return "expired";
  if (state == ZOO_AUTH_FAILED_STATE) return "auth-failed";
  if (state == 0) return "closed";
  return "state " + std::to_string(state);
}

int create_flags(NodeMode mode) {
  switch (mode) {
    case NodeMode::persistent: return ZOO_PERSISTENT;
    case NodeMode::persistent_sequential: return ZOO_PERSISTENT_SEQUENTIAL;
    case NodeMode::ephemeral: return ZOO_EPHEMERAL;
    case NodeMode::ephemeral_sequential: return ZOO_EPHEMERAL_SEQUENTIAL;
  }
  ELECTSIM_UNREACHABLE();
}

// The C client logs to stderr at INFO by default, a line per connect attempt, and an error per
// refused reconnect of a killed client: off, so the conformance table and live runs stay
// readable (what happens to the sessions is observed and traced instead). Once per process.
}  // namespace

void quiet_c_client_logging() {
  static std::once_flag done;
  std::call_once(done, [] { zoo_set_debug_level(static_cast<ZooLogLevel>(0)); });
}

std::string code_text(int code) { return zerror(code); }

LiveClient::LiveClient(const std::string& connect_string, Milliseconds requested_timeout) {
  ELECTSIM_ASSERT(requested_timeout.count() > 0);
  quiet_c_client_logging();
  handle_ = zookeeper_init(connect_string.c_str(), &LiveClient::watcher_callback, static_cast<int>(requested_timeout.count()),
                           nullptr, this, 0);
  if (handle_ == nullptr) throw std::runtime_error("live mode: zookeeper_init failed for " + connect_string);
}

LiveClient::~LiveClient() { close(); }

void LiveClient::close() {
  if (handle_ == nullptr) return;
  // zookeeper_close sends closeSession and waits for the completion thread: no callback runs after.
  zookeeper_close(handle_);
  handle_ = nullptr;
}

void LiveClient::push(Queued entry) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(entry));
  }
  arrived_.notify_all();
}

void LiveClient::watcher_callback(zhandle_t*, int type, int state, const char* path, void* context) {
  auto* client = static_cast<LiveClient*>(context);
  Queued entry;
  entry.is_event = true;
  entry.event = ClientEvent{Clock::now(), event_type_name(type), state_name(state), path != nullptr ? path : ""};
  client->push(std::move(entry));
}

void LiveClient::string_callback(int code, const char* value, const void* data) {
  const auto* context = static_cast<const RequestContext*>(data);
  Queued entry;
  entry.request = context->request;
  entry.completion.code = code;
  if (value != nullptr) entry.completion.data = value;
  context->client->push(std::move(entry));
}

void LiveClient::void_callback(int code, const void* data) {
  const auto* context = static_cast<const RequestContext*>(data);
  Queued entry;
  entry.request = context->request;
  entry.completion.code = code;
  context->client->push(std::move(entry));
}

void LiveClient::stat_callback(int code, const ::Stat*, const void* data) { void_callback(code, data); }

void LiveClient::data_callback(int code, const char* value, int length, const ::Stat* stat, const void* data) {
  const auto* context = static_cast<const RequestContext*>(data);
  Queued entry;
  entry.request = context->request;
  entry.completion.code = code;
  if (value != nullptr && length > 0) entry.completion.data.assign(value, static_cast<std::size_t>(length));
  if (stat != nullptr) {
    entry.completion.ephemeral_owner = stat->ephemeralOwner;
    entry.completion.czxid = stat->czxid;
  }
  context->client->push(std::move(entry));
}

void LiveClient::children_callback(int code, const struct String_vector* strings, const ::Stat*, const void* data) {
  const auto* context = static_cast<const RequestContext*>(data);
  Queued entry;
  entry.request = context->request;
  entry.completion.code = code;
  if (strings != nullptr) {
    for (int i = 0; i < strings->count; i++) entry.completion.children.emplace_back(strings->data[i]);
  }
  context->client->push(std::move(entry));
}

ReadOutcome LiveClient::get_data(const std::string& path, Clock::time_point deadline) {
  return request([&](RequestContext* context) { return zoo_aget(handle_, path.c_str(), 0, &LiveClient::data_callback, context); }, deadline);
}

ReadOutcome LiveClient::get_children(const std::string& path, Clock::time_point deadline) {
  return request([&](RequestContext* context) { return zoo_aget_children2(handle_, path.c_str(), 0, &LiveClient::children_callback, context); },
                 deadline);
}

void LiveClient::drain_locked() {
  while (!queue_.empty()) {
    Queued entry = std::move(queue_.front());
    queue_.pop_front();
    if (!entry.is_event) {
      completions_[entry.request] = entry.completion;
      continue;
    }
    if (entry.event.type == "session") connected_ = entry.event.state == "connected";
    events_.push_back(std::move(entry.event));
  }
}

template <typename Done>
bool LiveClient::drain_until(Done done, Clock::time_point deadline) {
  std::unique_lock lock(mutex_);
  while (true) {
    drain_locked();
    if (done()) return true;
    if (Clock::now() >= deadline) return false;
    arrived_.wait_until(lock, deadline, [&] { return !queue_.empty(); });
  }
}

bool LiveClient::wait_connected(Clock::time_point deadline) {
  return drain_until([&] { return connected_; }, deadline);
}

Milliseconds LiveClient::negotiated_timeout() const {
  ELECTSIM_ASSERT(handle_ != nullptr);
  return Milliseconds(zoo_recv_timeout(handle_));
}

std::int64_t LiveClient::session_id() const {
  ELECTSIM_ASSERT(handle_ != nullptr);
  return zoo_client_id(handle_)->client_id;
}

LiveClient::RequestContext* LiveClient::new_request() {
  contexts_.push_back(std::make_unique<RequestContext>(RequestContext{this, next_request_++}));
  return contexts_.back().get();
}

std::optional<LiveClient::Completion> LiveClient::wait_completion(std::uint64_t request, Clock::time_point deadline) {
  if (!drain_until([&] { return completions_.contains(request); }, deadline)) return std::nullopt;
  std::lock_guard lock(mutex_);
  Completion completion = completions_.at(request);
  completions_.erase(request);
  return completion;
}

template <typename Submit>
ReadOutcome LiveClient::request(Submit submit, Clock::time_point deadline) {
  ELECTSIM_ASSERT(handle_ != nullptr);
  RequestContext* context = new_request();
  ReadOutcome outcome;
  outcome.code = submit(context);
  if (outcome.code != ZOK) return outcome;
  std::optional<Completion> completion = wait_completion(context->request, deadline);
  if (completion) return *completion;
  outcome.code = ZOPERATIONTIMEOUT;
  return outcome;
}

CreateOutcome LiveClient::create(const std::string& path, const std::string& data, NodeMode mode, Clock::time_point deadline) {
  ReadOutcome outcome = request(
      [&](RequestContext* context) {
        return zoo_acreate(handle_, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE, create_flags(mode),
                           &LiveClient::string_callback, context);
      },
      deadline);
  return CreateOutcome{outcome.code, outcome.data};
}

int LiveClient::remove(const std::string& path, Clock::time_point deadline) {
  return request([&](RequestContext* context) { return zoo_adelete(handle_, path.c_str(), -1, &LiveClient::void_callback, context); }, deadline)
      .code;
}

int LiveClient::watch_exists(const std::string& path, Clock::time_point deadline) {
  return request(
             [&](RequestContext* context) {
               return zoo_awexists(handle_, path.c_str(), &LiveClient::watcher_callback, this, &LiveClient::stat_callback, context);
             },
             deadline)
      .code;
}

std::optional<ClientEvent> LiveClient::wait_event(const std::string& type, const std::string& path, Clock::time_point deadline) {
  std::optional<ClientEvent> found;
  drain_until(
      [&] {
        for (const ClientEvent& event : events_) {
          if (event.type == type && event.path == path) {
            found = event;
            return true;
          }
        }
        return false;
      },
      deadline);
  return found;
}

std::vector<ClientEvent> LiveClient::events() {
  std::lock_guard lock(mutex_);
  drain_locked();
  return events_;
}

}  // namespace live
