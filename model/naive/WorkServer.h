// Source 002's application-level master election (its WorkServer and RunningData, written there on
// zkClient): every server races to create the ephemeral node /master holding its own RunningData;
// whoever creates it is master, the others watch it and race again when it is deleted (the master
// died, lost its session, or released it). The demo's master releases mastership after a while to
// show re-elections.
//
// The anti-jitter delay: when /master disappears, the server that held it races again at once,
// every other server only after 5 s, so a brief network jitter (or a release) hands mastership back
// to the same machine instead of a random one, and the slaves need not resynchronise. The bug switch
// naive-no-anti-jitter races everyone at once.
//
// As in the demo, on zkClient (ZkClient.h): every operation is retried until connected, a lost
// session is replaced by a new one (and the listener re-fired), handleDataDeleted runs on the
// ZkEventThread (the last master's takeMaster blocks it), and the delayed takeMaster and the
// release share the one thread of Executors.newScheduledThreadPool(1).
//
//   start()            subscribeDataChanges("/master", listener); takeMaster()
//   takeMaster()       create(/master, EPHEMERAL): masterData = us, release scheduled in 5 s;
//                      NodeExists: masterData = readData (taking again if it vanished meanwhile)
//   handleDataDeleted  masterData is us: takeMaster() now; else takeMaster() in 5 s
//   handleDataChange   nothing
//   release (5 s)      if checkMaster(): releaseMaster() = if checkMaster(): delete(/master)
//   checkMaster()      masterData = readData(/master); is it us? (no node: false)
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include "model/naive/ZkClient.h"
#include "sim/sync.h"

namespace naive {

using namespace std::chrono_literals;

// RunningData: the server's identity, stored as /master's data.
struct RunningData {
  std::int64_t cid = 0;
  std::string name;
};

struct WorkServerConfig {
  std::vector<sim::NodeId> servers;           // the ZooKeeper connect string
  sim::Duration session_timeout = 6s;
  sim::Duration anti_jitter_delay = 5s;       // how long the non-masters wait before racing
  sim::Duration release_after = 5s;           // the demo's master releases after holding this long (0: never)
  bool anti_jitter = true;                    // off: the bug switch naive-no-anti-jitter
  std::shared_ptr<zk::ZookeeperFactory> zookeeper_factory;  // null: simulated handles (live mode sets it)
};

class WorkServer final : public sim::Node, private IZkDataListener {
 public:
  static constexpr const char* master_path = "/master";

  WorkServer(sim::Simulation& sim, std::string name, std::int64_t cid, WorkServerConfig config);
  // The demo's belief: masterData (the last RunningData this server saw on /master, or its own
  // after winning the create) is this server.
  bool isMaster() const { return masterData_ && masterData_->name == serverData_.name; }
  // When this process last released /master (deleted it as master), if it has.
  std::optional<sim::Instant> lastReleased() const { return releasedAt_; }
  // Null while the node is down.
  ZkClient* zkClient() { return zkClient_.get(); }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  enum class Delayed : std::uint8_t { take_master, release };
  // Why takeMaster runs, traced with naive.master for naive-master-stable (with the instant this
  // server learned of its cause): start() races at once; handleDataDeleted races at once for the
  // last master (or everyone, without anti-jitter); the delay executor runs the others' take 5 s
  // after they saw the delete.
  enum class TakeReason : std::uint8_t { start, deleted, delayed };
  static const char* reasonName(TakeReason reason);
  struct Scheduled {
    Delayed task;
    sim::Instant submitted;  // for a take: when handleDataDeleted saw /master gone
  };

  sim::Task<void> run();
  sim::Task<void> takeMaster(TakeReason reason, sim::Instant cause);
  sim::Task<bool> checkMaster();
  sim::Task<void> releaseMaster();
  sim::Task<void> handleDataChange(std::string path, std::string data) override;
  sim::Task<void> handleDataDeleted(std::string path) override;
  // delayExector.schedule(task, delay, SECONDS) and its single thread.
  void schedule(Delayed task, sim::Duration delay);
  sim::Task<void> delayExecutor();

  WorkServerConfig config_;
  RunningData serverData_;
  std::optional<RunningData> masterData_;
  bool running_ = false;
  std::optional<sim::Instant> releasedAt_;
  std::unique_ptr<ZkClient> zkClient_;
  std::map<std::pair<sim::Instant, std::uint64_t>, Scheduled> scheduled_;  // (due, submission) -> task
  std::uint64_t submissions_ = 0;
  sim::Condition scheduleChanged_;
};

}  // namespace naive
