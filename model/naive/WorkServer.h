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
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "model/zk/client/ZooKeeper.h"
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
};

class WorkServer final : public sim::Node {
 public:
  static constexpr const char* master_path = "/master";

  WorkServer(sim::Simulation& sim, std::string name, std::int64_t cid, WorkServerConfig config);
  bool isMaster() const { return masterData_ && masterData_->name == serverData_.name; }

 protected:
  void on_start() override;
  void on_stop() override;

 private:
  sim::Task<void> run();
  sim::Task<void> watchMaster();
  sim::Task<void> takeMaster();
  sim::Task<void> releaseLater();
  sim::Task<bool> checkMaster();
  sim::Task<void> handleDataDeleted();

  WorkServerConfig config_;
  RunningData serverData_;
  std::optional<RunningData> masterData_;
  std::unique_ptr<zk::ZooKeeper> zk_;
  std::unique_ptr<sim::Queue<zk::WatchedEvent>> events_;
  std::uint64_t takes_ = 0;  // masterships won, to release the right one
};

}  // namespace naive
