// ZKDatabase: the committedLog a leader syncs learners from.
#include <gtest/gtest.h>

#include <memory>

#include "model/zk/server/ZKDatabase.h"

namespace zk {
namespace {

std::shared_ptr<const Txn> createTxn(Zxid zxid) {
  TxnHeader header;
  header.session_id = 1;
  header.cxid = static_cast<std::int32_t>(zxid);
  header.zxid = zxid;
  header.type = OpCode::create;
  return std::make_shared<const Txn>(Txn{header, CreateTxn{"/n" + std::to_string(zxid), "", false, -1}});
}

TEST(ZKDatabase, TheCommittedLogKeepsCommitLogCountPlusOneTxns) {
  // ZKDatabase.addCommittedProposal removes the oldest when the log already holds more than
  // commitLogCount, then adds: 501 txns, so a learner 501 behind still gets a DIFF.
  ZKDatabase db;
  const Zxid first = (Zxid{1} << 32) + 1;
  for (Zxid zxid = first; zxid < first + 600; zxid++) db.processTxn(createTxn(zxid), nullptr);
  EXPECT_EQ(db.getCommittedLog().size(), ZKDatabase::commit_log_count + 1);
  EXPECT_EQ(db.getmaxCommittedLog(), first + 599);
  EXPECT_EQ(db.getminCommittedLog(), first + 599 - static_cast<Zxid>(ZKDatabase::commit_log_count));
}

}  // namespace
}  // namespace zk
