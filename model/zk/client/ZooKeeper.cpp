#include "model/zk/client/ZooKeeper.h"

namespace zk {

namespace {
ClientRequest makeRequest(OpCode type, std::string path) {
  ClientRequest request;
  request.type = type;
  request.path = std::move(path);
  return request;
}

WatchRegistration watchFor(WatchRegistration::Kind kind, const std::string& path, Watcher watcher) {
  WatchRegistration registration;
  if (!watcher) return registration;
  registration.kind = kind;
  registration.path = path;
  registration.watcher = std::move(watcher);
  return registration;
}

// A read that may leave a watch, awaited or with a callback (`reply...`). The registration is made
// first: it copies the path only for a watch, and the request then takes the path.
template <class... Callback>
auto submitRead(ClientCnxn& cnxn, OpCode type, WatchRegistration::Kind kind, std::string path, Watcher watcher, Callback&&... callback) {
  WatchRegistration registration = watchFor(kind, path, std::move(watcher));
  ClientRequest request = makeRequest(type, std::move(path));
  request.watch = registration.kind != WatchRegistration::Kind::none;
  return cnxn.submitRequest(std::move(request), std::move(registration), std::forward<Callback>(callback)...);
}

}  // namespace

void ZooKeeper::getData(std::string path, Watcher watcher, DataCallback callback) {
  (void)path, (void)watcher, (void)callback;
  ELECTSIM_ASSERT_MSG(false, "getData with a callback on a handle without callbacks (check hasCallbacks)");
}

void ZooKeeper::getChildren(std::string path, Watcher watcher, ChildrenCallback callback) {
  (void)path, (void)watcher, (void)callback;
  ELECTSIM_ASSERT_MSG(false, "getChildren with a callback on a handle without callbacks (check hasCallbacks)");
}

// Each call queues its request now and returns the reply to come with what the caller gets of it.

Async<CreateResult> SimulatedZooKeeper::create(std::string path, std::string data, CreateMode mode) {
  ClientRequest request = makeRequest(OpCode::create, std::move(path));
  request.data = std::move(data);
  request.mode = mode;
  return {cnxn_->submitRequest(std::move(request)), [](ClientReply&& reply) { return CreateResult{reply.err, reply.takePath()}; }};
}

Async<Code> SimulatedZooKeeper::deleteNode(std::string path, std::int32_t version) {
  ClientRequest request = makeRequest(OpCode::delete_node, std::move(path));
  request.version = version;
  return {cnxn_->submitRequest(std::move(request)), [](ClientReply&& reply) { return reply.err; }};
}

Async<StatResult> SimulatedZooKeeper::exists(std::string path, Watcher watcher) {
  return {submitRead(*cnxn_, OpCode::exists, WatchRegistration::Kind::exists, std::move(path), std::move(watcher)),
          [](ClientReply&& reply) { return StatResult{reply.err, reply.stat}; }};
}

Async<DataResult> SimulatedZooKeeper::getData(std::string path, Watcher watcher) {
  return {submitRead(*cnxn_, OpCode::get_data, WatchRegistration::Kind::data, std::move(path), std::move(watcher)), &DataResult::from};
}

Async<ChildrenResult> SimulatedZooKeeper::getChildren(std::string path, Watcher watcher) {
  return {submitRead(*cnxn_, OpCode::get_children, WatchRegistration::Kind::child, std::move(path), std::move(watcher)), &ChildrenResult::from};
}

void SimulatedZooKeeper::getData(std::string path, Watcher watcher, DataCallback callback) {
  submitRead(*cnxn_, OpCode::get_data, WatchRegistration::Kind::data, std::move(path), std::move(watcher), std::move(callback));
}

void SimulatedZooKeeper::getChildren(std::string path, Watcher watcher, ChildrenCallback callback) {
  submitRead(*cnxn_, OpCode::get_children, WatchRegistration::Kind::child, std::move(path), std::move(watcher), std::move(callback));
}

Async<Code> SimulatedZooKeeper::addWatch(std::string basePath, Watcher watcher, AddWatchMode mode) {
  // ZooKeeper.addWatch: an AddWatchRegistration keeps the watcher once the server answers OK. An
  // empty watcher re-adds the server's watch only: the caller holds an equal watcher already
  // (ZKWatchManager's sets would collapse the two).
  ClientRequest request = makeRequest(OpCode::add_watch, basePath);
  request.add_watch_mode = mode;
  const auto kind = mode == AddWatchMode::persistent ? WatchRegistration::Kind::persistent : WatchRegistration::Kind::persistent_recursive;
  return {cnxn_->submitRequest(std::move(request), watchFor(kind, basePath, std::move(watcher))), [](ClientReply&& reply) { return reply.err; }};
}

Async<StatResult> SimulatedZooKeeper::setData(std::string path, std::string data, std::int32_t version) {
  ClientRequest request = makeRequest(OpCode::set_data, std::move(path));
  request.data = std::move(data);
  request.version = version;
  return {cnxn_->submitRequest(std::move(request)), [](ClientReply&& reply) { return StatResult{reply.err, reply.stat}; }};
}

Async<MultiResult> SimulatedZooKeeper::multi(std::vector<Op> ops) {
  ClientRequest request = makeRequest(OpCode::multi, "");
  for (Op& op : ops) {
    ClientRequest sub = makeRequest(op.type, std::move(op.path));
    sub.data = std::move(op.data);
    sub.mode = op.mode;
    sub.version = op.version;
    request.ops.push_back(std::move(sub));
  }
  return {cnxn_->submitRequest(std::move(request)), [](ClientReply&& reply) { return makeMultiResult(reply.err, reply.takeResults()); }};
}

MultiResult makeMultiResult(Code code, std::vector<OpResult> results) {
  MultiResult result{code, std::move(results)};
  // The multi's outcome is its first failing op (a lost connection fails the whole call).
  if (result.code == Code::ok) {
    for (const OpResult& op : result.results) {
      if (op.err != Code::ok && op.err != Code::runtime_inconsistency) {
        result.code = op.err;
        break;
      }
    }
  }
  return result;
}

}  // namespace zk
