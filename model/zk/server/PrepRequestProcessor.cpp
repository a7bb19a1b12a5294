#include "model/zk/server/PrepRequestProcessor.h"

#include <cstdio>
#include <iterator>
#include <set>
#include <utility>

#include "sim/assert.h"

namespace zk {

namespace {

// KeeperException: thrown by a check, caught by pRequest2Txn (or by the multi loop for one op),
// which turns the write into an ErrorTxn carrying the code.
struct KeeperException {
  Code code;
};

void throwIfError(Code code) {
  if (code != Code::ok) throw KeeperException{code};
}

// ZooDefs.Perms, for the one ACL electsim models.
enum class Perm { read, write, create, remove };

// ZooKeeperServer.checkACL. Every node is world-open (OPEN_ACL_UNSAFE) except /zookeeper/config,
// which addConfigNode makes READ_ACL_UNSAFE (ZOOKEEPER-2014): no client may write under it.
void checkACL(std::string_view path, Perm perm) {
  if (path == DataTree::configZookeeper && perm != Perm::read) throw KeeperException{Code::no_auth};
}

// validatePathForCreate: the parent path, as path.substring(0, lastSlash) ("" for a top-level node).
std::string validatePathForCreate(std::string_view path) {
  const std::size_t lastSlash = path.rfind('/');
  if (lastSlash == std::string_view::npos || path.find('\0') != std::string_view::npos) {
    throw KeeperException{Code::bad_arguments};
  }
  return std::string(path.substr(0, lastSlash));
}

// getParentPathAndValidate: as above, and the four system nodes can never be deleted. The path
// itself is not validated: a malformed one simply names no node (NONODE).
std::string getParentPathAndValidate(std::string_view path) {
  const std::size_t lastSlash = path.rfind('/');
  if (lastSlash == std::string_view::npos || path.find('\0') != std::string_view::npos ||
      DataTree::isSpecialPath(path)) {
    throw KeeperException{Code::bad_arguments};
  }
  return std::string(path.substr(0, lastSlash));
}

// checkAndIncVersion: BADVERSION unless the expected version is -1 ("any") or the current one.
// The increment wraps like Java's int (no undefined behaviour at INT_MAX).
std::int32_t checkAndIncVersion(std::int32_t currentVersion, std::int32_t expectedVersion) {
  if (expectedVersion != -1 && expectedVersion != currentVersion) throw KeeperException{Code::bad_version};
  return static_cast<std::int32_t>(static_cast<std::uint32_t>(currentVersion) + 1U);
}

// String.format(Locale.ENGLISH, "%010d", cversion): ten digits, zero-padded, a sign if negative.
std::string sequentialSuffix(std::int32_t cversion) {
  char text[16];
  const int length = std::snprintf(text, sizeof text, "%010d", cversion);
  ELECTSIM_ASSERT(length >= 10 && length < static_cast<int>(sizeof text));
  return std::string(text, static_cast<std::size_t>(length));
}

}  // namespace

PrepRequestProcessor::PrepRequestProcessor(const DataTree& tree, SessionValidator& sessions)
    : tree_(tree), sessions_(sessions) {}

bool PrepRequestProcessor::isValidPath(std::string_view path) {
  if (path.empty() || path.front() != '/') return false;
  if (path.size() == 1) return true;
  if (path.back() == '/') return false;
  // Components between slashes: none empty ("//"), none "." or "..", no NUL anywhere.
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view component = path.substr(start, end - start);
    if (component.empty() || component == "." || component == "..") return false;
    if (component.find('\0') != std::string_view::npos) return false;
    start = end + 1;
  }
  return true;
}

// ---- outstanding changes ----

std::optional<ChangeRecord> PrepRequestProcessor::getOutstandingChange(std::string_view path) const {
  auto newest = outstandingChangesForPath_.find(path);
  if (newest == outstandingChangesForPath_.end()) return std::nullopt;
  return outstandingChanges_.at(newest->second);
}

// getRecordForPath: the newest pending record, else the committed node; NONODE if neither exists
// or the newest record deletes the node.
ChangeRecord PrepRequestProcessor::getRecordForPath(std::string_view path) const {
  std::optional<ChangeRecord> record = getOutstandingChange(path);
  if (!record) {
    const DataNode* node = tree_.getNode(path);
    if (node != nullptr) {
      record = ChangeRecord{-1, std::string(path), node->stat, static_cast<std::int32_t>(node->children.size()), node->data};
    }
  }
  if (!record || !record->stat) throw KeeperException{Code::no_node};
  return std::move(*record);
}

bool PrepRequestProcessor::recordExists(std::string_view path) const {
  if (std::optional<ChangeRecord> record = getOutstandingChange(path)) return record->stat.has_value();
  return tree_.getNode(path) != nullptr;
}

void PrepRequestProcessor::addChangeRecord(ChangeRecord record) {
  ELECTSIM_ASSERT(record.zxid > 0);
  ELECTSIM_ASSERT(outstandingChanges_.empty() || outstandingChanges_.rbegin()->second.zxid <= record.zxid);
  ELECTSIM_ASSERT(outstandingChanges_.size() < outstanding_changes_max);
  const std::uint64_t sequence = nextChangeSequence_++;
  outstandingChangesForPath_[record.path] = sequence;
  outstandingChanges_.emplace(sequence, std::move(record));
}

void PrepRequestProcessor::applied(Zxid zxid) {
  while (!outstandingChanges_.empty() && outstandingChanges_.begin()->second.zxid <= zxid) {
    auto oldest = outstandingChanges_.begin();
    // Only if no newer write to the same path has replaced it as the path's newest record.
    auto newest = outstandingChangesForPath_.find(oldest->second.path);
    if (newest != outstandingChangesForPath_.end() && newest->second == oldest->first) {
      outstandingChangesForPath_.erase(newest);
    }
    outstandingChanges_.erase(oldest);
  }
  ELECTSIM_ASSERT(outstandingChangesForPath_.size() <= outstandingChanges_.size());
}

void PrepRequestProcessor::reset() {
  outstandingChanges_.clear();
  outstandingChangesForPath_.clear();
}

// getPendingChanges: the newest records of every op's path and of its parent before the multi,
// so a failed multi can put them back (ZOOKEEPER-1624: the parent's record carries the cversion
// that the next sequential name is taken from).
PrepRequestProcessor::PendingChanges PrepRequestProcessor::getPendingChanges(const std::vector<Request>& ops) const {
  PendingChanges pending;
  for (const Request& op : ops) {
    if (auto newest = outstandingChangesForPath_.find(op.path); newest != outstandingChangesForPath_.end()) {
      pending.emplace(op.path, newest->second);
    }
    const std::size_t lastSlash = op.path.rfind('/');
    if (lastSlash == std::string::npos || op.path.find('\0') != std::string::npos) continue;
    const std::string parentPath = op.path.substr(0, lastSlash);
    if (auto newest = outstandingChangesForPath_.find(parentPath); newest != outstandingChangesForPath_.end()) {
      pending.emplace(parentPath, newest->second);
    }
  }
  return pending;
}

// rollbackPendingChanges: drop every record the multi made (they are the newest, all with its
// zxid), then make the saved records the newest again. Java skips saved records older than the
// first outstanding one (applied meanwhile); here that is "no longer in the list".
void PrepRequestProcessor::rollbackPendingChanges(Zxid zxid, const PendingChanges& pendingChanges) {
  while (!outstandingChanges_.empty() && outstandingChanges_.rbegin()->second.zxid == zxid) {
    auto newest = std::prev(outstandingChanges_.end());
    outstandingChangesForPath_.erase(newest->second.path);
    outstandingChanges_.erase(newest);
  }
  for (const auto& [path, sequence] : pendingChanges) {
    if (outstandingChanges_.contains(sequence)) outstandingChangesForPath_[path] = sequence;
  }
}

void PrepRequestProcessor::checkSession(const Request& request) {
  throwIfError(sessions_.checkSession(request.sessionId, request.owner));
}

// ---- one write ----

Txn PrepRequestProcessor::pRequest2Txn(const Request& request, Zxid zxid, std::int64_t timeMs) {
  ELECTSIM_ASSERT(zxid > lastZxid_);  // zks.getNextZxid() only grows, within and across epochs
  lastZxid_ = zxid;
  Txn txn;
  txn.header = TxnHeader{request.sessionId, request.cxid, zxid, timeMs, request.type};
  try {
    switch (request.type) {
      case OpCode::create:
        txn.body = pRequest2TxnCreate(request, txn.header);
        break;
      case OpCode::delete_node:
        txn.body = pRequest2TxnDelete(request, txn.header);
        break;
      case OpCode::set_data:
        txn.body = pRequest2TxnSetData(request, txn.header);
        break;
      case OpCode::check:
        txn.body = pRequest2TxnCheck(request);
        break;
      case OpCode::multi:
        txn.body = pRequest2TxnMulti(request, txn.header);  // its ops fail one by one, never the multi
        break;
      case OpCode::create_session:
        // The caller's session tracker tracks the session and records its owner (trackSession,
        // setOwner): the txn only replicates the session and its timeout.
        ELECTSIM_ASSERT(request.timeoutMs > 0);
        txn.body = CreateSessionTxn{request.timeoutMs};
        break;
      case OpCode::close_session:
        txn.body = pRequest2TxnCloseSession(request, txn.header);
        break;
      default:
        ELECTSIM_ASSERT_MSG(false, "pRequest2Txn: not a write");
    }
  } catch (const KeeperException& exception) {
    // The zxid is spent: the error txn is proposed, committed and applied like any other.
    txn.header.type = OpCode::error;
    txn.body = ErrorTxn{exception.code};
  }
  return txn;
}

// pRequest2TxnCreate, in Java's check order (§2.2 of the digest).
CreateTxn PrepRequestProcessor::pRequest2TxnCreate(const Request& request, const TxnHeader& header) {
  const bool ephemeral = is_ephemeral(request.mode);
  // validateCreateRequest: an ephemeral needs a global session; anything else any live session.
  if (ephemeral) {
    throwIfError(sessions_.checkGlobalSession(request.sessionId, request.owner));
  } else {
    checkSession(request);
  }
  const std::string parentPath = validatePathForCreate(request.path);
  ChangeRecord parentRecord = getRecordForPath(parentPath);
  checkACL(parentPath, Perm::create);
  // The suffix is the parent's cversion including creates still in flight, so two sequential
  // creates prepared back to back get consecutive numbers; a create that fails below never
  // reaches addChangeRecord, so it does not use a number up.
  const std::int32_t parentCVersion = parentRecord.stat->cversion;
  std::string path = request.path;
  if (is_sequential(request.mode)) path += sequentialSuffix(parentCVersion);
  if (!isValidPath(path)) throw KeeperException{Code::bad_arguments};
  if (recordExists(path)) throw KeeperException{Code::node_exists};
  if (parentRecord.stat->ephemeral_owner != 0) throw KeeperException{Code::no_children_for_ephemerals};
  const std::int32_t newCversion = parentCVersion + 1;
  CreateTxn txn{path, request.data, ephemeral, newCversion};

  parentRecord.zxid = header.zxid;
  parentRecord.childCount++;
  parentRecord.stat->cversion = newCversion;
  parentRecord.stat->pzxid = header.zxid;
  addChangeRecord(std::move(parentRecord));
  const SessionId owner = ephemeral ? request.sessionId : 0;
  addChangeRecord(ChangeRecord{header.zxid, path, DataTree::createStat(header.zxid, header.time, owner), 0, request.data});
  return txn;
}

DeleteTxn PrepRequestProcessor::pRequest2TxnDelete(const Request& request, const TxnHeader& header) {
  checkSession(request);
  const std::string parentPath = getParentPathAndValidate(request.path);
  ChangeRecord parentRecord = getRecordForPath(parentPath);
  checkACL(parentPath, Perm::remove);
  const ChangeRecord nodeRecord = getRecordForPath(request.path);
  checkAndIncVersion(nodeRecord.stat->version, request.version);
  if (nodeRecord.childCount > 0) throw KeeperException{Code::not_empty};

  // The parent loses a child and its pzxid moves; its cversion does not (it counts creations).
  parentRecord.zxid = header.zxid;
  parentRecord.childCount--;
  parentRecord.stat->pzxid = header.zxid;
  addChangeRecord(std::move(parentRecord));
  addChangeRecord(ChangeRecord{header.zxid, request.path, std::nullopt, -1, {}});
  return DeleteTxn{request.path};
}

SetDataTxn PrepRequestProcessor::pRequest2TxnSetData(const Request& request, const TxnHeader& header) {
  checkSession(request);
  if (!isValidPath(request.path)) throw KeeperException{Code::bad_arguments};
  ChangeRecord nodeRecord = getRecordForPath(request.path);
  checkACL(request.path, Perm::write);
  const std::int32_t newVersion = checkAndIncVersion(nodeRecord.stat->version, request.version);

  nodeRecord.zxid = header.zxid;
  nodeRecord.stat->version = newVersion;
  nodeRecord.stat->mtime = header.time;
  nodeRecord.stat->mzxid = header.zxid;
  nodeRecord.data = request.data;
  addChangeRecord(std::move(nodeRecord));
  return SetDataTxn{request.path, request.data, newVersion};
}

CheckVersionTxn PrepRequestProcessor::pRequest2TxnCheck(const Request& request) {
  checkSession(request);
  if (!isValidPath(request.path)) throw KeeperException{Code::bad_arguments};
  const ChangeRecord nodeRecord = getRecordForPath(request.path);
  checkACL(request.path, Perm::read);
  // As in Java, the txn carries checkAndIncVersion's result (current + 1); nothing reads it.
  return CheckVersionTxn{request.path, checkAndIncVersion(nodeRecord.stat->version, request.version)};
}

// closeSession: deliberately no checkSession, since the expirer is not the session's owner.
CloseSessionTxn PrepRequestProcessor::pRequest2TxnCloseSession(const Request& request, const TxnHeader& header) {
  const SessionId session = request.sessionId;
  // The committed ephemerals, minus pending deletes, plus pending ephemeral creates of the session,
  // in the order the writes were prepared (the newest record for a path decides).
  const std::vector<std::string> committed = tree_.getEphemerals(session);
  std::set<std::string> ephemerals(committed.begin(), committed.end());
  for (const auto& [sequence, record] : outstandingChanges_) {
    if (!record.stat) {
      ephemerals.erase(record.path);
    } else if (record.stat->ephemeral_owner == session) {
      ephemerals.insert(record.path);
    }
  }
  for (const std::string& path : ephemerals) {
    // With the digest on (the 3.8 default) the parent gets a record with the new pzxid, copied
    // from its newest record: its childCount is NOT decremented. A delete of that parent prepared
    // before this txn is applied therefore still sees the child and fails with NOTEMPTY.
    const std::string parentPath = getParentPathAndValidate(path);
    ChangeRecord parentRecord = getRecordForPath(parentPath);
    parentRecord.zxid = header.zxid;
    parentRecord.stat->pzxid = header.zxid;
    addChangeRecord(std::move(parentRecord));
    addChangeRecord(ChangeRecord{header.zxid, path, std::nullopt, 0, {}});
  }
  // Java lists a HashSet in its iteration order; electsim lists the paths sorted.
  CloseSessionTxn txn{std::vector<std::string>(ephemerals.begin(), ephemerals.end())};
  // From here on the session's writes fail with SESSIONEXPIRED (ZOOKEEPER-1208).
  sessions_.setSessionClosing(session);
  return txn;
}

SubTxn PrepRequestProcessor::pRequest2TxnOp(const Request& op, const TxnHeader& header) {
  switch (op.type) {
    case OpCode::create: return SubTxn{OpCode::create, pRequest2TxnCreate(op, header)};
    case OpCode::delete_node: return SubTxn{OpCode::delete_node, pRequest2TxnDelete(op, header)};
    case OpCode::set_data: return SubTxn{OpCode::set_data, pRequest2TxnSetData(op, header)};
    case OpCode::check: return SubTxn{OpCode::check, pRequest2TxnCheck(op)};
    default:
      // MultiOperationRecord only ever holds these four (the client cannot build anything else).
      ELECTSIM_ASSERT_MSG(false, "a multi op must be create, delete, setData or check");
  }
  ELECTSIM_UNREACHABLE();
}

// The multi case of pRequestHelper: one zxid for every op; each op is prepared against the changes
// of the ops before it. The first failure rolls the multi's changes back, becomes an ErrorTxn with
// its code, and every later op an ErrorTxn(RUNTIMEINCONSISTENCY) without being looked at. The
// header stays a multi; DataTree.processTxn then applies nothing.
MultiTxn PrepRequestProcessor::pRequest2TxnMulti(const Request& request, const TxnHeader& header) {
  const PendingChanges pendingChanges = getPendingChanges(request.ops);
  MultiTxn txns;
  txns.reserve(request.ops.size());
  bool failed = false;
  for (const Request& op : request.ops) {
    ELECTSIM_ASSERT(op.ops.empty());  // no nested multis
    if (failed) {
      txns.push_back(SubTxn{OpCode::error, ErrorTxn{Code::runtime_inconsistency}});
      continue;
    }
    // The ops of a multi are checked as the multi's session and owner.
    Request sub = op;
    sub.sessionId = request.sessionId;
    sub.cxid = request.cxid;
    sub.owner = request.owner;
    try {
      txns.push_back(pRequest2TxnOp(sub, header));
    } catch (const KeeperException& exception) {
      failed = true;
      txns.push_back(SubTxn{OpCode::error, ErrorTxn{exception.code}});
      rollbackPendingChanges(header.zxid, pendingChanges);
    }
  }
  ELECTSIM_ASSERT(txns.size() == request.ops.size());
  return txns;
}

}  // namespace zk
