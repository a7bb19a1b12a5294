#include "model/naive/ZkClient.h"

#include "sim/random.h"

namespace naive {

ZkClient::ZkClient(sim::Node& owner, std::vector<sim::NodeId> servers, sim::Duration sessionTimeout, std::uint64_t seed,
                   std::shared_ptr<zk::ZookeeperFactory> factory)
    : owner_(owner),
      servers_(std::move(servers)),
      sessionTimeout_(sessionTimeout),
      seed_(seed),
      factory_(factory ? std::move(factory) : std::make_shared<zk::SimulatedZookeeperFactory>()),
      stateChanged_(owner.sim()),
      zkEvents_(owner.sim(), 1024),
      threads_(owner.sim(), owner.id()) {
  ELECTSIM_ASSERT(!servers_.empty());
  threads_.spawn(eventThread());
  connect();
}

ZkClient::~ZkClient() {
  // The ZkEventThread (and whatever listener it runs) first, then the handles and their threads.
  threads_.clear();
  handles_.clear();
}

void ZkClient::connect() {
  // ZkConnection.connect: a new ZooKeeper handle with ZkClient as its default watcher.
  std::size_t index = handles_.size() + 1;
  watched_.clear();
  handles_.push_back(factory_->newZooKeeper(
      owner_, servers_, sessionTimeout_, [this, index](const zk::WatchedEvent& event) { process(index, event); },
      sim::derive_seed(seed_, static_cast<std::uint64_t>(index))));
}

void ZkClient::process(std::size_t from, const zk::WatchedEvent& event) {
  if (from != instance()) return;  // a closed handle's leftovers
  if (event.type == zk::EventType::none) {
    // processStateChanged: the state first (waitUntilConnected wakes on it), then, on Expired,
    // reconnect() and, in process()'s finally block, fireAllEvents().
    currentState_ = event.state;
    stateChanged_.notify_all();
    if (event.state == zk::KeeperState::expired) {
      connect();
      for (const auto& [path, listeners] : dataListeners_) {
        if (!listeners.empty()) zkEvents_.push(path);
      }
    }
    return;
  }
  watched_.erase(event.path);  // the one-shot registration is used up
  // processDataOrChildChange: data listeners hear of created, changed and deleted.
  bool data_event = event.type == zk::EventType::node_created || event.type == zk::EventType::node_data_changed ||
                    event.type == zk::EventType::node_deleted;
  auto found = dataListeners_.find(event.path);
  if (data_event && found != dataListeners_.end() && !found->second.empty()) zkEvents_.push(event.path);
}

zk::Watcher ZkClient::watchFor(const std::string& path, bool force) {
  if (!force) {
    auto found = dataListeners_.find(path);
    if (found == dataListeners_.end() || found->second.empty()) return zk::Watcher{};  // hasListeners(path)
  }
  if (!watched_.insert(path).second) return zk::Watcher{};  // already in the handle's watcher set
  std::size_t index = instance();
  return [this, index](const zk::WatchedEvent& event) { process(index, event); };
}

void ZkClient::notRegistered(const std::string& path, std::size_t used) {
  if (used == instance()) watched_.erase(path);
}

sim::Task<void> ZkClient::waitUntilConnected() {
  while (!connected()) co_await stateChanged_.wait();
}

sim::Task<void> ZkClient::waitForRetry() {
  // Thread.yield(), "we give the event thread some time to update the status", then
  // waitUntilConnected(): the Disconnected queued with the failure is processed first.
  co_await owner_.sim().sleep(sim::Duration::zero());
  co_await waitUntilConnected();
}

sim::Task<zk::CreateResult> ZkClient::create(std::string path, std::string data, zk::CreateMode mode) {
  while (true) {
    zk::CreateResult result = co_await handle().create(path, data, mode);
    if (!retryable(result.code)) co_return result;
    co_await waitForRetry();
  }
}

sim::Task<zk::DataResult> ZkClient::readData(std::string path) {
  while (true) {
    std::size_t used = instance();
    zk::Watcher watcher = watchFor(path, false);
    bool watching = static_cast<bool>(watcher);
    zk::DataResult result = co_await handle().getData(path, std::move(watcher));
    if (watching && result.code != zk::Code::ok) notRegistered(path, used);  // getData watches only what exists
    if (!retryable(result.code)) co_return result;
    co_await waitForRetry();
  }
}

sim::Task<bool> ZkClient::exists(std::string path, bool watch) {
  while (true) {
    std::size_t used = instance();
    zk::Watcher watcher = watchFor(path, watch);
    bool watching = static_cast<bool>(watcher);
    zk::StatResult result = co_await handle().exists(path, std::move(watcher));
    if (watching && result.code != zk::Code::ok && result.code != zk::Code::no_node) notRegistered(path, used);
    if (!retryable(result.code)) co_return result.code == zk::Code::ok;
    co_await waitForRetry();
  }
}

sim::Task<bool> ZkClient::deleteNode(std::string path) {
  while (true) {
    zk::Code code = co_await handle().deleteNode(path);
    if (!retryable(code)) co_return code == zk::Code::ok;
    co_await waitForRetry();
  }
}

sim::Task<void> ZkClient::subscribeDataChanges(std::string path, IZkDataListener& listener) {
  dataListeners_[path].push_back(&listener);
  co_await exists(path, true);  // watchForData
}

sim::Task<void> ZkClient::eventThread() {
  // ZkEventThread: one ZkEvent at a time.
  while (true) {
    std::string path = co_await zkEvents_.pop();
    auto found = dataListeners_.find(path);
    if (found == dataListeners_.end()) continue;
    std::vector<IZkDataListener*> listeners = found->second;
    for (IZkDataListener* listener : listeners) co_await fireDataChangedEvents(path, *listener);
  }
}

sim::Task<void> ZkClient::fireDataChangedEvents(std::string path, IZkDataListener& listener) {
  co_await exists(path, true);  // reinstall watch
  zk::DataResult data = co_await readData(path);
  if (data.code == zk::Code::ok) {
    co_await listener.handleDataChange(path, data.data);
  } else if (data.code == zk::Code::no_node) {
    co_await listener.handleDataDeleted(path);
  }
}

}  // namespace naive
