#include "model/elasticjob/ZookeeperRegistryCenter.h"

#include <algorithm>
#include <functional>

#include "model/curator/LeaderLatch.h"
#include "model/elasticjob/ElasticJobExceptions.h"
#include "model/elasticjob/RegExceptionHandler.h"
#include "sim/concat.h"

namespace elasticjob {

namespace {

curator::CuratorFrameworkConfig curatorConfig(const ZookeeperConfiguration& config) {
  curator::CuratorFrameworkConfig result;
  // new ExponentialBackoffRetry(base, maxRetries, maxSleep)
  result.baseSleepTime = config.baseSleepTimeMilliseconds;
  result.maxRetries = config.maxRetries;
  result.maxSleep = config.maxSleepTimeMilliseconds;
  // "if (0 != zkConfig.getSessionTimeoutMilliseconds()) builder.sessionTimeoutMs(...)"
  if (config.sessionTimeoutMilliseconds > sim::Duration::zero()) result.sessionTimeout = config.sessionTimeoutMilliseconds;
  if (config.connectionTimeoutMilliseconds > sim::Duration::zero()) result.connectionTimeout = config.connectionTimeoutMilliseconds;
  result.zookeeperFactory = config.zookeeperFactory;
  return result;
}

zk::Op toCuratorOp(const TransactionOperation& operation, const std::string& path) {
  switch (operation.type) {
    case TransactionOperation::Type::CHECK_EXISTS: return zk::Op::check(path, -1);
    case TransactionOperation::Type::ADD: return zk::Op::create(path, operation.value, zk::CreateMode::persistent);
    case TransactionOperation::Type::UPDATE: return zk::Op::setData(path, operation.value, -1);
    case TransactionOperation::Type::DELETE: return zk::Op::remove(path, -1);
  }
  ELECTSIM_UNREACHABLE();
}

}  // namespace

ZookeeperRegistryCenter::ZookeeperRegistryCenter(sim::Node& node, ZookeeperConfiguration config, std::uint64_t seed)
    : node_(node),
      config_(std::move(config)),
      namespacePath_("/" + config_.nameSpace),
      client_(std::make_unique<curator::CuratorFramework>(node, config_.serverLists, curatorConfig(config_), seed)),
      stateQueue_(node.sim(), state_queue_max) {
  ELECTSIM_ASSERT(!config_.serverLists.empty());
  ELECTSIM_ASSERT(!config_.nameSpace.empty() && config_.nameSpace.find('/') == std::string::npos);
  client_->getConnectionStateListenable().addListener([this](curator::ConnectionState state) { onConnectionStateChanged(state); });
}

ZookeeperRegistryCenter::~ZookeeperRegistryCenter() {
  caches_.clear();  // before the client they use
}

sim::Task<bool> ZookeeperRegistryCenter::init() {
  client_->start();
  node_.spawn(dispatchConnectionStates());
  bool connected = co_await client_->blockUntilConnected(config_.maxSleepTimeMilliseconds * config_.maxRetries);
  if (!connected) {
    co_await client_->close();
    co_return false;  // KeeperException.OperationTimeoutException
  }
  co_return true;
}

sim::Task<void> ZookeeperRegistryCenter::close() {
  for (CacheEntry& entry : caches_) entry.cache->close();
  co_await node_.sim().sleep(500ms);  // waitForCacheClose
  co_await client_->close();
}

std::string ZookeeperRegistryCenter::toFullPath(std::string_view key) const {
  ELECTSIM_ASSERT(!key.empty() && key.front() == '/');
  if (key == "/") return namespacePath_;  // the namespace root (opCheckExists("/"))
  return sim::concat({namespacePath_, key});
}

std::string_view ZookeeperRegistryCenter::fullPathView(std::string_view key) const {
  ELECTSIM_ASSERT(!key.empty() && key.front() == '/');
  if (key == "/") return namespacePath_;
  fullPathScratch_.assign(namespacePath_);
  fullPathScratch_.append(key);
  return fullPathScratch_;
}

std::string ZookeeperRegistryCenter::fromFullPath(std::string_view path) const {
  ELECTSIM_ASSERT(path.starts_with(namespacePath_));
  return std::string(pathWithoutNamespace(path, namespacePath_.size()));
}

zk::SessionId ZookeeperRegistryCenter::getSessionId() {
  if (!client_->getZookeeperClient().started()) return 0;
  return client_->getZookeeperClient().getZooKeeper().getSessionId();
}

zk::Zxid ZookeeperRegistryCenter::getLastZxid() {
  if (!client_->getZookeeperClient().started()) return 0;
  return client_->getZookeeperClient().getZooKeeper().lastZxid();
}

// ---- reads ----

const ZookeeperRegistryCenter::CacheEntry* ZookeeperRegistryCenter::findCuratorCache(std::string_view key) const {
  for (const CacheEntry& entry : caches_) {
    if (!entry.evicted && key.starts_with(entry.key)) return &entry;
  }
  return nullptr;
}

sim::Eager<std::optional<std::string>> ZookeeperRegistryCenter::get(std::string key) {
  if (const std::string* cached = getCachedOnly(key)) return std::optional<std::string>(*cached);
  return getDirectly(std::move(key));
}

const std::string* ZookeeperRegistryCenter::getCachedOnly(std::string_view key) const {
  const CacheEntry* entry = findCuratorCache(key);
  return entry != nullptr ? dataIn(*entry, fullPathView(key)) : nullptr;
}

const std::string* ZookeeperRegistryCenter::getCachedOnly(std::string_view key, std::string_view fullPath) const {
  const CacheEntry* entry = findCuratorCache(key);
  return entry != nullptr ? dataIn(*entry, fullPath) : nullptr;
}

const std::string* ZookeeperRegistryCenter::dataIn(const CacheEntry& entry, std::string_view fullPath) {
  const curator::ChildData* inCache = entry.cache->find(fullPath);
  return inCache != nullptr ? &inCache->data : nullptr;
}

sim::Task<std::optional<std::string>> ZookeeperRegistryCenter::getDirectly(std::string key) {
  zk::DataResult result = co_await client_->getData(toFullPath(key));
  if (result.code == zk::Code::ok) co_return std::move(result.data);
  RegExceptionHandler::handleException(result.code, "getDirectly " + key);
  co_return std::nullopt;
}

sim::Task<std::vector<std::string>> ZookeeperRegistryCenter::getChildrenKeys(std::string key) {
  zk::ChildrenResult result = co_await client_->getChildren(toFullPath(key));
  if (result.code != zk::Code::ok) {
    RegExceptionHandler::handleException(result.code, "getChildrenKeys " + key);
    co_return std::vector<std::string>{};
  }
  // result.sort(Comparator.reverseOrder()): String.compareTo, descending. Java compares UTF-16 code
  // units and we compare bytes; the orders agree for ASCII names.
  std::sort(result.children.begin(), result.children.end(), std::greater<>());
  co_return std::move(result.children);
}

sim::Task<bool> ZookeeperRegistryCenter::isExisted(std::string key) {
  zk::StatResult result = co_await client_->checkExists(toFullPath(key));
  if (result.code == zk::Code::ok) co_return true;
  if (result.code != zk::Code::no_node) RegExceptionHandler::handleException(result.code, "isExisted " + key);
  co_return false;
}

// ---- writes ----

sim::Task<zk::Code> ZookeeperRegistryCenter::persist(std::string key, std::string value) {
  bool existed = co_await isExisted(key);
  if (!existed) {
    curator::CreateOptions options;
    options.mode = zk::CreateMode::persistent;
    options.creatingParentsIfNeeded = true;
    zk::CreateResult created = co_await client_->create(toFullPath(key), std::move(value), options);
    RegExceptionHandler::handleException(created.code, "persist " + key);
    co_return created.code;
  }
  co_return co_await update(std::move(key), std::move(value));
}

sim::Task<zk::Code> ZookeeperRegistryCenter::update(std::string key, std::string value) {
  std::string path = toFullPath(key);
  std::vector<zk::Op> ops;
  ops.push_back(zk::Op::check(path, -1));
  ops.push_back(zk::Op::setData(path, std::move(value), -1));
  zk::MultiResult result = co_await client_->transaction(std::move(ops));
  RegExceptionHandler::handleException(result.code, "update " + key);
  co_return result.code;
}

sim::Task<zk::Code> ZookeeperRegistryCenter::persistEphemeral(std::string key, std::string value) {
  // One try block in Java: a swallowed failure of the delete skips the create.
  bool existed = co_await isExisted(key);
  if (existed) {
    curator::DeleteOptions options;
    options.deletingChildrenIfNeeded = true;
    zk::Code deleted = co_await client_->deleteNode(toFullPath(key), options);
    if (deleted != zk::Code::ok) {
      RegExceptionHandler::handleException(deleted, "persistEphemeral(delete) " + key);
      co_return deleted;
    }
  }
  curator::CreateOptions options;
  options.mode = zk::CreateMode::ephemeral;
  options.creatingParentsIfNeeded = true;
  zk::CreateResult created = co_await client_->create(toFullPath(key), std::move(value), options);
  RegExceptionHandler::handleException(created.code, "persistEphemeral " + key);
  co_return created.code;
}

sim::Task<zk::Code> ZookeeperRegistryCenter::remove(std::string key) {
  curator::DeleteOptions options;
  options.deletingChildrenIfNeeded = true;
  zk::Code deleted = co_await client_->deleteNode(toFullPath(key), options);
  RegExceptionHandler::handleException(deleted, "remove " + key);
  co_return deleted;
}

sim::Task<zk::MultiResult> ZookeeperRegistryCenter::executeInTransaction(std::vector<TransactionOperation> operations) {
  ELECTSIM_ASSERT(!operations.empty());
  std::vector<zk::Op> ops;
  ops.reserve(operations.size());
  for (const TransactionOperation& operation : operations) ops.push_back(toCuratorOp(operation, toFullPath(operation.key)));
  co_return co_await client_->transaction(std::move(ops));
}

sim::Task<void> ZookeeperRegistryCenter::executeInLeader(std::string key, LeaderExecutionCallback& callback) {
  // try (LeaderLatch latch = new LeaderLatch(client, key)) { latch.start(); latch.await();
  // callback.execute(); }: the latch's id is "" and close() is SILENT. The unique_ptr closes the
  // latch on every way out, as try-with-resources does.
  auto latch = std::make_unique<curator::LeaderLatch>(*client_, toFullPath(key));
  latch->start();
  bool leads = co_await latch->await();
  // await() throws EOFException when the latch is not STARTED; nothing closes it meanwhile, except
  // the client closing under it, which is a RegException (handleException's rethrow) in Java.
  if (!leads) throw RegException(zk::Code::session_expired, "executeInLeader await " + key);
  try {
    co_await callback.execute();
  } catch (const RegException&) {
    throw;
  } catch (const ElasticJobException& error) {
    throw RegException(error);  // catch (final Exception ex) { handleException(ex); }
  }
  latch->close();
}

// ---- caches and listeners ----

void ZookeeperRegistryCenter::addCacheData(const std::string& cachePath) {
  ELECTSIM_ASSERT(caches_.size() < caches_max);
  ELECTSIM_ASSERT(getRawCache(cachePath) == nullptr);
  auto cache = std::make_unique<curator::CuratorCache>(*client_, toFullPath(cachePath));
  cache->start();
  caches_.push_back(CacheEntry{cachePath + "/", std::move(cache)});
}

void ZookeeperRegistryCenter::evictCacheData(const std::string& cachePath) {
  auto found = std::find_if(caches_.begin(), caches_.end(),
                            [&](const CacheEntry& entry) { return !entry.evicted && entry.key == cachePath + "/"; });
  if (found == caches_.end()) return;
  found->cache->close();
  found->evicted = true;
}

curator::CuratorCache* ZookeeperRegistryCenter::getRawCache(const std::string& cachePath) {
  for (CacheEntry& entry : caches_) {
    if (!entry.evicted && entry.key == cachePath + "/") return entry.cache.get();
  }
  return nullptr;
}

void ZookeeperRegistryCenter::watch(const std::string& key, DataChangedEventListener& listener, JobNotifyExecutor& executor) {
  curator::CuratorCache* cache = getRawCache(key);
  ELECTSIM_ASSERT_MSG(cache != nullptr, "no cache for " + key);
  DataChangedEventListener* target = &listener;
  JobNotifyExecutor* notify = &executor;
  curator::CuratorCacheListener cacheListener;
  cacheListener.event = [this, target, notify](curator::CuratorCacheListener::Type curatorType, const curator::SharedChildData& oldData,
                                               const curator::SharedChildData& newData) {
    if (!oldData && !newData) return;
    DataChangedEvent::Type type = DataChangedEvent::Type::IGNORED;
    switch (curatorType) {
      case curator::CuratorCacheListener::Type::NODE_CREATED: type = DataChangedEvent::Type::ADDED; break;
      case curator::CuratorCacheListener::Type::NODE_CHANGED: type = DataChangedEvent::Type::UPDATED; break;
      case curator::CuratorCacheListener::Type::NODE_DELETED: type = DataChangedEvent::Type::DELETED; break;
    }
    const curator::SharedChildData& data = type == DataChangedEvent::Type::DELETED ? oldData : newData;
    ELECTSIM_ASSERT(data);
    if (data->path.empty()) return;
    ELECTSIM_ASSERT(data->path.starts_with(namespacePath_));
    // Curator queues the whole listener on the executor (addListener(listener, executor)), so the
    // DataChangedEvent is made when the work runs; what waits in the queue is the cache's ChildData.
    notify->execute(*target, type, data, namespacePath_.size());
  };
  std::uint64_t id = cache->addListener(std::move(cacheListener));
  dataListeners_.push_back(DataListenerEntry{key, id});
}

void ZookeeperRegistryCenter::removeDataListeners(const std::string& key) {
  curator::CuratorCache* cache = getRawCache(key);
  for (const DataListenerEntry& entry : dataListeners_) {
    if (entry.key == key && cache != nullptr) cache->removeListener(entry.id);
  }
  std::erase_if(dataListeners_, [&key](const DataListenerEntry& entry) { return entry.key == key; });
}

void ZookeeperRegistryCenter::addConnectionStateChangedEventListener(const std::string& key, ConnectionStateChangedEventListener& listener) {
  connStateListeners_.push_back(ConnStateListenerEntry{key, &listener});
}

void ZookeeperRegistryCenter::removeConnStateListener(const std::string& key) {
  std::erase_if(connStateListeners_, [&key](const ConnStateListenerEntry& entry) { return entry.key == key; });
}

void ZookeeperRegistryCenter::onConnectionStateChanged(curator::ConnectionState newState) {
  RegistryCenterState state = RegistryCenterState::CONNECTED;
  switch (newState) {
    case curator::ConnectionState::connected: state = RegistryCenterState::CONNECTED; break;
    case curator::ConnectionState::lost:
    case curator::ConnectionState::suspended: state = RegistryCenterState::UNAVAILABLE; break;
    case curator::ConnectionState::reconnected: state = RegistryCenterState::RECONNECTED; break;
    case curator::ConnectionState::read_only: ELECTSIM_ASSERT_MSG(false, "Illegal registry center connection state: READ_ONLY");
  }
  bool queued = stateQueue_.push(state);
  ELECTSIM_ASSERT(queued);
}

sim::Task<void> ZookeeperRegistryCenter::dispatchConnectionStates() {
  while (true) {
    RegistryCenterState state = co_await stateQueue_.pop();
    // Each listener registered when the state is taken, if still registered at its turn.
    std::vector<ConnectionStateChangedEventListener*> listeners;
    for (const ConnStateListenerEntry& entry : connStateListeners_) listeners.push_back(entry.listener);
    for (ConnectionStateChangedEventListener* listener : listeners) {
      bool registered = std::any_of(connStateListeners_.begin(), connStateListeners_.end(),
                                    [listener](const ConnStateListenerEntry& entry) { return entry.listener == listener; });
      if (!registered) continue;
      try {
        co_await listener->onStateChanged(state);
      } catch (const ElasticJobException& error) {
        // ConnectionStateManager.processEvents logs a listener's exception and goes on.
        node_.sim().trace().emit(node_.id(), "job.error", {{"job", ""}, {"where", "ConnectionStateListener"}, {"message", error.what()}});
      }
    }
  }
}

}  // namespace elasticjob
