// The leader's validation of writes: org.apache.zookeeper.server.PrepRequestProcessor (3.8).
//
// A write becomes a Txn before it is proposed. It is validated against the committed DataTree
// overlaid with the outstanding changes (ZooKeeperServer.outstandingChanges): ChangeRecords of the
// writes already prepared but not yet applied, so a pipeline of writes is validated as if each had
// been applied in turn (two sequential creates in flight get consecutive suffixes; a delete sees
// the create before it). The caller allocates the zxid before validation; a write that fails
// becomes an error txn that still uses its zxid and is committed like any other.
//
// Not modelled: ACLs (except that /zookeeper/config is read-only, as addConfigNode makes it),
// quotas, containers, TTL nodes, reconfig, setACL, local sessions and the txn digest.
#pragma once

#include <boost/container/flat_map.hpp>
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "model/zk/server/DataTree.h"
#include "model/zk/server/Request.h"
#include "model/zk/types.h"

namespace zk {

// What PrepRequestProcessor asks of the leader's session tracker (SessionTracker in Java). Each
// check returns Code::ok, Code::session_expired (unknown, expired or closing) or Code::session_moved
// (another server owns the session's connection).
class SessionValidator {
 public:
  virtual ~SessionValidator() = default;
  virtual Code checkSession(SessionId id, std::uint64_t owner) = 0;
  // For ephemeral creates: a local session would have to be upgraded first.
  virtual Code checkGlobalSession(SessionId id, std::uint64_t owner) = 0;
  // After a closeSession is prepared every later checkSession on it fails (ZOOKEEPER-1208).
  virtual void setSessionClosing(SessionId id) = 0;
};

// ZooKeeperServer.ChangeRecord: a node as the writes prepared so far will leave it.
struct ChangeRecord {
  Zxid zxid = -1;  // the write that made this record; -1 for a record read from the tree
  std::string path;
  std::optional<Stat> stat;  // empty: the node is deleted by this write
  std::int32_t childCount = 0;
  std::string data;
};

class PrepRequestProcessor {
 public:
  // A leader applies what it proposes; this many changes in flight means applied() is never called.
  static constexpr std::size_t outstanding_changes_max = 1 << 20;

  PrepRequestProcessor(const DataTree& tree, SessionValidator& sessions);
  PrepRequestProcessor(const PrepRequestProcessor&) = delete;
  PrepRequestProcessor& operator=(const PrepRequestProcessor&) = delete;

  // pRequest / pRequestHelper: the txn for a write (create, delete, setData, check, multi,
  // createSession, closeSession). `zxid` was allocated by the caller (zks.getNextZxid()) before
  // validation; `timeMs` is the leader's clock, the header's time.
  Txn pRequest2Txn(const Request& request, Zxid zxid, std::int64_t timeMs);

  // The txn `zxid` was applied to the tree: its records, and older ones, are no longer needed
  // (ZooKeeperServer.processTxn's cleanup of outstandingChanges).
  void applied(Zxid zxid);
  // The leader stopped: nothing it prepared is pending any more.
  void reset();
  std::size_t outstandingChanges() const { return outstandingChanges_.size(); }
  // The newest record for a path, if a pending write touched it (for tests).
  std::optional<ChangeRecord> getOutstandingChange(std::string_view path) const;

  // PathUtils.validatePath: absolute, no trailing '/', no empty, "." or ".." component, no NUL.
  static bool isValidPath(std::string_view path);

 private:
  using PendingChanges = std::map<std::string, std::uint64_t, std::less<>>;  // path → record sequence

  CreateTxn pRequest2TxnCreate(const Request& request, const TxnHeader& header);
  DeleteTxn pRequest2TxnDelete(const Request& request, const TxnHeader& header);
  SetDataTxn pRequest2TxnSetData(const Request& request, const TxnHeader& header);
  CheckVersionTxn pRequest2TxnCheck(const Request& request);
  CloseSessionTxn pRequest2TxnCloseSession(const Request& request, const TxnHeader& header);
  MultiTxn pRequest2TxnMulti(const Request& request, const TxnHeader& header);
  SubTxn pRequest2TxnOp(const Request& op, const TxnHeader& header);

  ChangeRecord getRecordForPath(std::string_view path) const;  // NONODE if missing or pending delete
  bool recordExists(std::string_view path) const;
  void addChangeRecord(ChangeRecord record);
  PendingChanges getPendingChanges(const std::vector<Request>& ops) const;
  void rollbackPendingChanges(Zxid zxid, const PendingChanges& pendingChanges);
  void checkSession(const Request& request);

  const DataTree& tree_;
  SessionValidator& sessions_;
  // outstandingChanges (a deque in Java) keyed by an insertion sequence, and
  // outstandingChangesForPath: each path's newest record, by sequence. Sorted arrays, not trees:
  // a handful of records are in flight, added at the back and applied from the front, and a
  // steady stream of writes then allocates no tree node per write (bench zk).
  boost::container::flat_map<std::uint64_t, ChangeRecord> outstandingChanges_;
  boost::container::flat_map<std::string, std::uint64_t, std::less<>> outstandingChangesForPath_;
  std::uint64_t nextChangeSequence_ = 0;
  Zxid lastZxid_ = 0;  // zxids are prepared in increasing order
};

}  // namespace zk
