#include "model/zk/server/DataTree.h"

#include <algorithm>
#include <utility>
#include <variant>

#include "sim/assert.h"
#include "sim/random.h"

namespace zk {

namespace {

// A path split the way Java does it: path.substring(0, lastSlash) and the rest. A top-level node's
// parent is "" (the root's second name in Java's `nodes` map).
struct PathParts {
  std::string_view parent;
  std::string_view child;
};

PathParts splitPath(std::string_view path) {
  const std::size_t lastSlash = path.rfind('/');
  ELECTSIM_ASSERT_MSG(lastSlash != std::string_view::npos, std::string(path));
  return {path.substr(0, lastSlash), path.substr(lastSlash + 1)};
}

// DataTree.createNode/deleteNode: `parentName.equals("") ? "/" : parentName` for the child watches.
std::string watchPathOfParent(std::string_view parent) { return parent.empty() ? std::string("/") : std::string(parent); }

std::string childPath(std::string_view parent, std::string_view child) {
  std::string path(parent == "/" ? "" : parent);
  path += '/';
  path += child;
  return path;
}

template <typename T, typename Variant>
const T& bodyAs(const Variant& body) {
  const T* typed = std::get_if<T>(&body);
  ELECTSIM_ASSERT_MSG(typed != nullptr, "txn body does not match its header type");
  return *typed;
}

void syncDerivedStat(DataNode& node) {
  node.stat.data_length = static_cast<std::int32_t>(node.data.size());
  node.stat.num_children = static_cast<std::int32_t>(node.children.size());
}

}  // namespace

Stat DataTree::copyStat(const DataNode& node) {
  Stat stat = node.stat;
  stat.cversion = node.stat.cversion * 2 - node.stat.num_children;
  return stat;
}

DataTree::DataTree() {
  // DataTree(): the root, /zookeeper and /zookeeper/quota, then addConfigNode(). They are put into
  // the map directly, not created, so the root's stored cversion stays 0 (a client sees -1: one
  // child, no create) and every other stat field is 0.
  DataNode root;
  root.children.insert("zookeeper");
  DataNode proc;
  proc.children.insert("quota");
  proc.children.insert("config");
  DataNode config;
  // addConfigNode: setACL(configZookeeper, READ_ACL_UNSAFE, -1) leaves aversion at -1
  // (ZOOKEEPER-2014: the reconfig node is read-only for clients).
  config.stat.aversion = -1;
  nodes_.emplace(rootZookeeper, std::move(root));
  nodes_.emplace(procZookeeper, std::move(proc));
  nodes_.emplace(quotaZookeeper, DataNode{});
  nodes_.emplace(configZookeeper, std::move(config));
  for (auto& [path, node] : nodes_) syncDerivedStat(node);
  ELECTSIM_ASSERT(nodes_.size() == 4);
}

Stat DataTree::createStat(Zxid zxid, std::int64_t time, SessionId ephemeralOwner) {
  ELECTSIM_ASSERT(zxid >= 0);
  Stat stat;
  stat.czxid = zxid;
  stat.mzxid = zxid;
  stat.pzxid = zxid;
  stat.ctime = time;
  stat.mtime = time;
  stat.version = 0;
  stat.cversion = 0;
  stat.aversion = 0;
  stat.ephemeral_owner = ephemeralOwner;
  return stat;
}

bool DataTree::isSpecialPath(std::string_view path) {
  return path == rootZookeeper || path == procZookeeper || path == quotaZookeeper || path == configZookeeper;
}

const DataNode* DataTree::getNode(std::string_view path) const {
  if (path.empty()) path = rootZookeeper;
  auto found = nodes_.find(path);
  return found == nodes_.end() ? nullptr : &found->second;
}

DataNode* DataTree::findNode(std::string_view path) { return const_cast<DataNode*>(std::as_const(*this).getNode(path)); }

// ---- reads ----

Code DataTree::getData(std::string_view path, std::optional<WatcherId> watcher, std::string* data, Stat* stat) {
  const DataNode* node = getNode(path);
  if (node == nullptr) return Code::no_node;
  if (stat != nullptr) *stat = copyStat(*node);
  if (data != nullptr) *data = node->data;
  if (watcher) dataWatches_.addWatch(std::string(path), *watcher);
  return Code::ok;
}

Code DataTree::exists(std::string_view path, std::optional<WatcherId> watcher, Stat* stat) {
  // statNode: the watch goes in before the lookup, so a missing node is watched for its creation.
  if (watcher) dataWatches_.addWatch(std::string(path), *watcher);
  const DataNode* node = getNode(path);
  if (node == nullptr) return Code::no_node;
  if (stat != nullptr) *stat = copyStat(*node);
  return Code::ok;
}

Code DataTree::getChildren(std::string_view path, std::optional<WatcherId> watcher, std::vector<std::string>* children,
                           Stat* stat) {
  const DataNode* node = getNode(path);
  if (node == nullptr) return Code::no_node;
  if (stat != nullptr) *stat = copyStat(*node);
  if (children != nullptr) children->assign(node->children.begin(), node->children.end());
  if (watcher) childWatches_.addWatch(std::string(path), *watcher);
  return Code::ok;
}

// ---- writes ----

Code DataTree::createNode(const std::string& path, const std::string& data, SessionId ephemeralOwner,
                          std::int32_t parentCVersion, Zxid zxid, std::int64_t time, Stat* outputStat,
                          std::vector<FiredWatch>* fired) {
  const PathParts parts = splitPath(path);
  ELECTSIM_ASSERT_MSG(!parts.child.empty(), path);  // prep's validatePath rejects "/a/"
  DataNode* parent = findNode(parts.parent);
  if (parent == nullptr) return Code::no_node;
  if (nodes_.contains(path)) return Code::node_exists;
  // prep refuses NOCHILDRENFOREPHEMERALS against the same order of txns, so this cannot happen.
  ELECTSIM_ASSERT_MSG(parent->stat.ephemeral_owner == 0, path);

  if (parentCVersion == -1) parentCVersion = parent->stat.cversion + 1;
  // Only forwards: replaying a create over a fuzzy snapshot must not move cversion/pzxid back.
  if (parentCVersion > parent->stat.cversion) {
    parent->stat.cversion = parentCVersion;
    parent->stat.pzxid = zxid;
  }
  const bool added = parent->children.emplace(parts.child).second;
  ELECTSIM_ASSERT(added);
  syncDerivedStat(*parent);

  DataNode child;
  child.data = data;
  child.stat = createStat(zxid, time, ephemeralOwner);
  syncDerivedStat(child);
  if (outputStat != nullptr) *outputStat = copyStat(child);
  nodes_.emplace(path, std::move(child));
  if (ephemeralOwner != 0) {
    const bool registered = ephemerals_[ephemeralOwner].insert(path).second;
    ELECTSIM_ASSERT(registered);
  }

  dataWatches_.triggerWatch(path, EventType::node_created, nullptr, fired);
  childWatches_.triggerWatch(watchPathOfParent(parts.parent), EventType::node_children_changed, nullptr, fired);
  return Code::ok;
}

Code DataTree::deleteNode(const std::string& path, Zxid zxid, std::vector<FiredWatch>* fired) {
  ELECTSIM_ASSERT_MSG(!isSpecialPath(path), path);  // prep's getParentPathAndValidate refuses these
  const PathParts parts = splitPath(path);
  DataNode* parent = findNode(parts.parent);
  if (parent == nullptr) return Code::no_node;
  auto found = nodes_.find(path);
  // prep refuses NOTEMPTY against the same order of txns, so no subtree is ever orphaned.
  ELECTSIM_ASSERT_MSG(found == nodes_.end() || found->second.children.empty(), path);
  // DataTree.deleteNode: the parent's pzxid moves (only forwards) before the child is looked up, so
  // it moves even when the child is already gone (a fuzzy snapshot, or killSession's NoNode).
  // cversion is never touched by a delete (3.4+): it counts creations, so sequential suffixes are
  // never reused.
  if (auto child = parent->children.find(parts.child); child != parent->children.end()) parent->children.erase(child);
  syncDerivedStat(*parent);
  if (zxid > parent->stat.pzxid) parent->stat.pzxid = zxid;
  if (found == nodes_.end()) return Code::no_node;

  const SessionId owner = found->second.stat.ephemeral_owner;
  nodes_.erase(found);
  if (owner != 0) {
    // killSession has already taken the session's set out of the map; then there is nothing to do.
    auto paths = ephemerals_.find(owner);
    if (paths != ephemerals_.end()) {
      paths->second.erase(path);
      if (paths->second.empty()) ephemerals_.erase(paths);
    }
  }

  // A connection holding both a data and a child watch on the path hears NodeDeleted once.
  const WatcherSet processed = dataWatches_.triggerWatch(path, EventType::node_deleted, nullptr, fired);
  childWatches_.triggerWatch(path, EventType::node_deleted, &processed, fired);
  childWatches_.triggerWatch(watchPathOfParent(parts.parent), EventType::node_children_changed, nullptr, fired);
  return Code::ok;
}

Code DataTree::setData(const std::string& path, const std::string& data, std::int32_t version, Zxid zxid,
                       std::int64_t time, Stat* outputStat, std::vector<FiredWatch>* fired) {
  DataNode* node = findNode(path);
  if (node == nullptr) return Code::no_node;
  node->data = data;
  node->stat.mtime = time;
  node->stat.mzxid = zxid;
  node->stat.version = version;  // decided by prep (checkAndIncVersion), not incremented here
  syncDerivedStat(*node);
  if (outputStat != nullptr) *outputStat = copyStat(*node);
  // Always fires, even when the data is unchanged.
  dataWatches_.triggerWatch(path, EventType::node_data_changed, nullptr, fired);
  return Code::ok;
}

Code DataTree::setCversionPzxid(std::string_view path, std::int32_t newCversion, Zxid zxid) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);  // "a '/' at the end is ignored"
  DataNode* node = findNode(path);
  if (node == nullptr) return Code::no_node;
  if (newCversion == -1) newCversion = node->stat.cversion + 1;
  if (newCversion > node->stat.cversion) {
    node->stat.cversion = newCversion;
    node->stat.pzxid = zxid;
  }
  return Code::ok;
}

void DataTree::killSession(SessionId session, Zxid zxid, const std::vector<std::string>& pathsInTxn,
                           std::vector<FiredWatch>* fired) {
  ELECTSIM_ASSERT(session != 0);
  // ephemerals.remove(session) first: deleteNode then finds no set to update for this session.
  std::set<std::string, std::less<>> local;
  if (auto owned = ephemerals_.find(session); owned != ephemerals_.end()) {
    local = std::move(owned->second);
    ephemerals_.erase(owned);
  }
  // deleteNodes: the txn's list, in list order; a missing node is logged and ignored.
  for (const std::string& path : pathsInTxn) {
    deleteNode(path, zxid, fired);
    local.erase(path);
  }
  // Ephemerals this server holds that the leader did not list ("Unexpected extra paths under
  // session"): deleted as well, in path order (HashSet order in Java).
  for (const std::string& path : local) deleteNode(path, zxid, fired);
  ELECTSIM_ASSERT(!ephemerals_.contains(session));
}

template <typename Body>
ProcessTxnResult DataTree::processOp(OpCode type, const TxnHeader& header, const Body& body,
                                     std::vector<FiredWatch>* fired) {
  ProcessTxnResult rc;
  rc.type = type;
  switch (type) {
    case OpCode::create: {
      const CreateTxn& txn = bodyAs<CreateTxn>(body);
      ELECTSIM_ASSERT(!txn.ephemeral || header.session_id != 0);
      rc.path = txn.path;
      rc.error = createNode(txn.path, txn.data, txn.ephemeral ? header.session_id : 0, txn.parent_cversion,
                            header.zxid, header.time, &rc.stat, fired);
      if (rc.error == Code::node_exists) {
        // processTxn's snapshot-replay fixup: a create replayed over a fuzzy snapshot that already
        // holds a node of that name (deleted and re-created by another session meanwhile) must
        // still leave the parent's cversion and pzxid where the original create left them.
        const Code fixup = setCversionPzxid(splitPath(txn.path).parent, txn.parent_cversion, header.zxid);
        if (fixup != Code::ok) rc.error = fixup;
      }
      break;
    }
    case OpCode::delete_node: {
      const DeleteTxn& txn = bodyAs<DeleteTxn>(body);
      rc.path = txn.path;
      rc.error = deleteNode(txn.path, header.zxid, fired);
      break;
    }
    case OpCode::set_data: {
      const SetDataTxn& txn = bodyAs<SetDataTxn>(body);
      rc.path = txn.path;
      rc.error = setData(txn.path, txn.data, txn.version, header.zxid, header.time, &rc.stat, fired);
      break;
    }
    case OpCode::check:
      rc.path = bodyAs<CheckVersionTxn>(body).path;  // validated by prep; nothing to apply
      break;
    case OpCode::error:
      rc.error = bodyAs<ErrorTxn>(body).error;  // a failed write: it only moves lastProcessedZxid
      break;
    default:
      ELECTSIM_UNREACHABLE();
  }
  return rc;
}

ProcessTxnResult DataTree::processMulti(const TxnHeader& header, const MultiTxn& txns, std::vector<FiredWatch>* fired) {
  ProcessTxnResult rc;
  rc.type = OpCode::multi;
  // All or nothing: prep turned the failing op into an ErrorTxn; if there is one, nothing is applied
  // and the other ops are reported as errors too: OK before the failure, RUNTIMEINCONSISTENCY after.
  const bool failed = std::any_of(txns.begin(), txns.end(), [](const SubTxn& sub) { return sub.type == OpCode::error; });
  bool postFailed = false;
  for (const SubTxn& sub : txns) {
    ELECTSIM_ASSERT(sub.type == OpCode::create || sub.type == OpCode::delete_node || sub.type == OpCode::set_data ||
                    sub.type == OpCode::check || sub.type == OpCode::error);
    if (sub.type == OpCode::error) postFailed = true;
    ProcessTxnResult subRc;
    if (failed && sub.type != OpCode::error) {
      subRc.type = OpCode::error;
      subRc.error = postFailed ? Code::runtime_inconsistency : Code::ok;
    } else {
      // Every op shares the multi's zxid, time and session.
      subRc = processOp(sub.type, header, sub.body, fired);
    }
    if (subRc.error != Code::ok && rc.error == Code::ok) rc.error = subRc.error;
    rc.multi.push_back(std::move(subRc));
  }
  ELECTSIM_ASSERT(rc.multi.size() == txns.size());
  return rc;
}

ProcessTxnResult DataTree::processTxn(const Txn& txn, std::vector<FiredWatch>* fired) {
  const TxnHeader& header = txn.header;
  ELECTSIM_ASSERT(header.zxid > 0);
  ProcessTxnResult rc;
  switch (header.type) {
    case OpCode::multi:
      rc = processMulti(header, bodyAs<MultiTxn>(txn.body), fired);
      break;
    case OpCode::create_session:
      // No tree effect: the caller's session tracker records the session and its timeout.
      ELECTSIM_ASSERT(std::holds_alternative<CreateSessionTxn>(txn.body));
      rc.type = OpCode::create_session;
      break;
    case OpCode::close_session:
      rc.type = OpCode::close_session;
      killSession(header.session_id, header.zxid, bodyAs<CloseSessionTxn>(txn.body).paths_to_delete, fired);
      break;
    default:
      rc = processOp(header.type, header, txn.body, fired);
      break;
  }
  // Moved after the whole txn (a multi included), and only forwards, as in Java: a snapshot must
  // never claim a zxid whose changes it does not fully hold.
  if (header.zxid > lastProcessedZxid_) lastProcessedZxid_ = header.zxid;
  return rc;
}

// ---- watches ----

void DataTree::removeWatcher(WatcherId watcher) {
  dataWatches_.removeWatcher(watcher);
  childWatches_.removeWatcher(watcher);
}

void DataTree::addWatch(const std::string& basePath, WatcherId watcher, AddWatchMode mode) {
  const WatcherMode watcherMode = mode == AddWatchMode::persistent_recursive ? WatcherMode::persistent_recursive : WatcherMode::persistent;
  dataWatches_.addWatch(basePath, watcher, watcherMode);
  childWatches_.addWatch(basePath, watcher, watcherMode);
}

void DataTree::setWatches(Zxid relativeZxid, const std::vector<std::string>& dataPaths,
                          const std::vector<std::string>& existPaths, const std::vector<std::string>& childPaths,
                          const std::vector<std::string>& persistentPaths, const std::vector<std::string>& persistentRecursivePaths,
                          WatcherId watcher, std::vector<FiredWatch>* fired) {
  // A catch-up event goes to this connection only and consumes the watch: it is not re-registered.
  auto notify = [&](EventType type, const std::string& path, std::string_view table) {
    if (fired != nullptr) fired->push_back(FiredWatch{WatchedEvent{type, KeeperState::sync_connected, path}, {watcher}, table});
  };
  for (const std::string& path : dataPaths) {
    const DataNode* node = getNode(path);
    if (node == nullptr) {
      notify(EventType::node_deleted, path, "data");
    } else if (node->stat.mzxid > relativeZxid) {
      notify(EventType::node_data_changed, path, "data");
    } else {
      dataWatches_.addWatch(path, watcher);
    }
  }
  for (const std::string& path : existPaths) {
    if (getNode(path) != nullptr) {
      notify(EventType::node_created, path, "data");
    } else {
      dataWatches_.addWatch(path, watcher);
    }
  }
  for (const std::string& path : childPaths) {
    const DataNode* node = getNode(path);
    if (node == nullptr) {
      notify(EventType::node_deleted, path, "child");
    } else if (node->stat.pzxid > relativeZxid) {
      notify(EventType::node_children_changed, path, "child");
    } else {
      childWatches_.addWatch(path, watcher);
    }
  }
  for (const std::string& path : persistentPaths) addWatch(path, watcher, AddWatchMode::persistent);
  for (const std::string& path : persistentRecursivePaths) addWatch(path, watcher, AddWatchMode::persistent_recursive);
}

// ---- sessions ----

std::vector<std::string> DataTree::getEphemerals(SessionId session) const {
  auto owned = ephemerals_.find(session);
  if (owned == ephemerals_.end()) return {};
  return {owned->second.begin(), owned->second.end()};
}

std::vector<SessionId> DataTree::getSessions() const {
  std::vector<SessionId> sessions;
  sessions.reserve(ephemerals_.size());
  for (const auto& [session, paths] : ephemerals_) sessions.push_back(session);
  return sessions;
}

// ---- replicas ----

std::uint64_t DataTree::digest() const {
  auto fold = [](std::uint64_t hash, std::int64_t value) { return sim::mix64(hash ^ static_cast<std::uint64_t>(value)); };
  std::uint64_t hash = sim::stable_hash("electsim.zk.DataTree.digest");
  std::vector<const Nodes::value_type*> byPath;  // in path order, never the hash map's
  byPath.reserve(nodes_.size());
  for (const auto& entry : nodes_) byPath.push_back(&entry);
  std::sort(byPath.begin(), byPath.end(), [](const auto* a, const auto* b) { return a->first < b->first; });
  for (const auto* entry : byPath) {
    const auto& [path, node] = *entry;
    hash = sim::mix64(hash ^ sim::stable_hash(path));
    hash = sim::mix64(hash ^ sim::stable_hash(node.data));
    hash = fold(hash, node.stat.czxid);
    hash = fold(hash, node.stat.mzxid);
    hash = fold(hash, node.stat.pzxid);
    hash = fold(hash, node.stat.version);
    hash = fold(hash, node.stat.cversion);
    hash = fold(hash, node.stat.ephemeral_owner);
  }
  return hash;
}

DataTree DataTree::snapshot() const {
  DataTree copy = *this;
  copy.dataWatches_ = WatchManager{};
  copy.childWatches_ = WatchManager{};
  return copy;
}

void DataTree::checkInvariants() const {
  for (std::string_view system : {rootZookeeper, procZookeeper, quotaZookeeper, configZookeeper}) {
    ELECTSIM_ASSERT(nodes_.contains(system));
  }
  std::map<SessionId, std::set<std::string, std::less<>>> owners;
  std::size_t childrenTotal = 0;
  for (const auto& [path, node] : nodes_) {
    ELECTSIM_ASSERT_MSG(node.stat.num_children == static_cast<std::int32_t>(node.children.size()), path);
    ELECTSIM_ASSERT_MSG(node.stat.data_length == static_cast<std::int32_t>(node.data.size()), path);
    ELECTSIM_ASSERT_MSG(node.stat.czxid <= node.stat.mzxid, path);
    ELECTSIM_ASSERT_MSG(node.stat.czxid <= node.stat.pzxid, path);
    if (path != rootZookeeper) {
      const PathParts parts = splitPath(path);
      ELECTSIM_ASSERT_MSG(!parts.child.empty(), path);
      const DataNode* parent = getNode(parts.parent);
      ELECTSIM_ASSERT_MSG(parent != nullptr, path);
      ELECTSIM_ASSERT_MSG(parent->children.contains(parts.child), path);
    }
    for (const std::string& child : node.children) ELECTSIM_ASSERT_MSG(nodes_.contains(childPath(path, child)), path);
    childrenTotal += node.children.size();
    if (node.stat.ephemeral_owner != 0) {
      ELECTSIM_ASSERT_MSG(node.children.empty(), path);  // NOCHILDRENFOREPHEMERALS
      owners[node.stat.ephemeral_owner].insert(path);
    }
  }
  // Every node but the root is exactly one node's child: the map is one tree.
  ELECTSIM_ASSERT(childrenTotal + 1 == nodes_.size());
  ELECTSIM_ASSERT(owners == ephemerals_);
  dataWatches_.checkInvariants();
  childWatches_.checkInvariants();
}

}  // namespace zk
