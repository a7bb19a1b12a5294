// A ZooKeeper client process of the scenario's workload (clients.writers): it keeps one znode of
// its own, /workload/<name>, created once (ephemeral with clients.ephemeral_writes) and then
// rewritten every write_interval. It gives Zab something to replicate; each write's outcome is
// traced (workload.write), so a write acknowledged and later lost can be seen.
#pragma once

#include <memory>

#include "harness/scenario.h"
#include "model/zk/client/ZooKeeper.h"

namespace harness {

class WorkloadClient final : public sim::Node {
 public:
  // `factory` makes the ZooKeeper handles (null: simulated ones; live mode passes its own).
  WorkloadClient(sim::Simulation& sim, std::string name, std::vector<sim::NodeId> servers, ClientsConfig config,
                 std::shared_ptr<zk::ZookeeperFactory> factory);

 protected:
  void on_start() override;
  void on_stop() override;
  std::uint64_t state_digest(bool crashed, bool power_loss) const override;

 private:
  sim::Task<void> run();
  // Traces the mzxid of `path` this session saw, by its write ("write") or a read ("read").
  void seen(const std::string& path, zk::Zxid mzxid, const char* how);
  std::unique_ptr<zk::ZooKeeper> newZooKeeper(std::uint64_t seed);

  std::vector<sim::NodeId> servers_;
  ClientsConfig config_;
  std::shared_ptr<zk::ZookeeperFactory> factory_;
  std::unique_ptr<zk::ZooKeeper> zk_;
  std::int64_t writes_ = 0;  // survives restarts: the next value to write
};

}  // namespace harness
