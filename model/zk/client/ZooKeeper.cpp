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

// A read that may leave a watch. The registration is made first: it copies the path only for a
// watch, and the request then takes the path.
ClientCnxn::ReplyAwaiter submitRead(ClientCnxn& cnxn, OpCode type, WatchRegistration::Kind kind, std::string path, Watcher watcher) {
  WatchRegistration registration = watchFor(kind, path, std::move(watcher));
  ClientRequest request = makeRequest(type, std::move(path));
  request.watch = registration.kind != WatchRegistration::Kind::none;
  return cnxn.submitRequest(std::move(request), std::move(registration));
}
}  // namespace

sim::Task<CreateResult> SimulatedZooKeeper::create(std::string path, std::string data, CreateMode mode) {
  ClientRequest request = makeRequest(OpCode::create, std::move(path));
  request.data = std::move(data);
  request.mode = mode;
  ClientReply reply = co_await cnxn_->submitRequest(std::move(request));
  co_return CreateResult{reply.err, std::move(reply.path)};
}

sim::Task<Code> SimulatedZooKeeper::deleteNode(std::string path, std::int32_t version) {
  ClientRequest request = makeRequest(OpCode::delete_node, std::move(path));
  request.version = version;
  ClientReply reply = co_await cnxn_->submitRequest(std::move(request));
  co_return reply.err;
}

sim::Task<StatResult> SimulatedZooKeeper::exists(std::string path, Watcher watcher) {
  ClientReply reply = co_await submitRead(*cnxn_, OpCode::exists, WatchRegistration::Kind::exists, std::move(path), std::move(watcher));
  co_return StatResult{reply.err, reply.stat};
}

sim::Task<DataResult> SimulatedZooKeeper::getData(std::string path, Watcher watcher) {
  ClientReply reply = co_await submitRead(*cnxn_, OpCode::get_data, WatchRegistration::Kind::data, std::move(path), std::move(watcher));
  co_return DataResult{reply.err, std::move(reply.data), reply.stat};
}

sim::Task<ChildrenResult> SimulatedZooKeeper::getChildren(std::string path, Watcher watcher) {
  ClientReply reply = co_await submitRead(*cnxn_, OpCode::get_children, WatchRegistration::Kind::child, std::move(path), std::move(watcher));
  co_return ChildrenResult{reply.err, std::move(reply.children), reply.stat};
}

sim::Task<Code> SimulatedZooKeeper::addWatch(std::string basePath, Watcher watcher, AddWatchMode mode) {
  // ZooKeeper.addWatch: an AddWatchRegistration keeps the watcher once the server answers OK. An
  // empty watcher re-adds the server's watch only: the caller holds an equal watcher already
  // (ZKWatchManager's sets would collapse the two).
  ClientRequest request = makeRequest(OpCode::add_watch, basePath);
  request.add_watch_mode = mode;
  const auto kind = mode == AddWatchMode::persistent ? WatchRegistration::Kind::persistent : WatchRegistration::Kind::persistent_recursive;
  ClientReply reply = co_await cnxn_->submitRequest(std::move(request), watchFor(kind, basePath, std::move(watcher)));
  co_return reply.err;
}

sim::Task<StatResult> SimulatedZooKeeper::setData(std::string path, std::string data, std::int32_t version) {
  ClientRequest request = makeRequest(OpCode::set_data, std::move(path));
  request.data = std::move(data);
  request.version = version;
  ClientReply reply = co_await cnxn_->submitRequest(std::move(request));
  co_return StatResult{reply.err, reply.stat};
}

sim::Task<MultiResult> SimulatedZooKeeper::multi(std::vector<Op> ops) {
  ClientRequest request = makeRequest(OpCode::multi, "");
  for (Op& op : ops) {
    ClientRequest sub = makeRequest(op.type, std::move(op.path));
    sub.data = std::move(op.data);
    sub.mode = op.mode;
    sub.version = op.version;
    request.ops.push_back(std::move(sub));
  }
  ClientReply reply = co_await cnxn_->submitRequest(std::move(request));
  co_return makeMultiResult(reply.err, std::move(reply.results));
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
