#include "model/es/EsConfig.h"

#include <cmath>
#include <stdexcept>

namespace es {

std::vector<std::string_view> EsBugs::enabled() const {
  std::vector<std::string_view> names;
  if (local_elect_2488) names.push_back("es-2488-local-elect");
  if (fifo_master_service) names.push_back("es-master-service-fifo");
  return names;
}

bool EsBugs::enable(std::string_view name) {
  if (name == "es-2488-local-elect") {
    local_elect_2488 = true;
    return true;
  }
  if (name == "es-master-service-fifo") {
    fifo_master_service = true;
    return true;
  }
  return false;
}

sim::Duration ClusterTasks::meanInterval() const {
  if (rate <= 0) return sim::Duration::max();
  return sim::Duration{static_cast<std::int64_t>(std::llround(1e9 / rate))};
}

sim::Duration EsConfig::stabilisationTime() const {
  // Worst case after the last heal, term by term:
  sim::Duration bound = faultDetectionTime();  // a follower of a stale master notices it is gone
  bound += commit_timeout + publish_timeout;   // a master blocked in a publication that cannot commit
  bound += faultDetectionTime();               // the master notices followers gone and steps down
  bound += joinTimeout();                      // a join request sent to a node that cannot answer
  bound += waitForJoinsTimeout();              // an elected node waiting for joins that do not come
  bound += ping_timeout * 4;                   // the ping rounds of the election that settles it
  bound += commit_timeout + publish_timeout;   // the new master's first publication
  return bound;
}

void EsConfig::validate() const {
  auto fail = [](const std::string& what) { throw std::invalid_argument(what); };
  if (nodes < 1 || nodes > 64) fail("nodes must be within 1..64");
  if (minimum_master_nodes == 0 || minimum_master_nodes < -1) fail("minimum_master_nodes must be -1 or at least 1");
  if (minimum_master_nodes > static_cast<int>(nodes)) fail("minimum_master_nodes must not exceed nodes");
  if (ping_timeout <= sim::Duration::zero()) fail("ping_timeout must be positive");
  if (commit_timeout <= sim::Duration::zero()) fail("commit_timeout must be positive");
  // ES: discovery.zen.commit_timeout must not be greater than discovery.zen.publish_timeout.
  if (commit_timeout > publish_timeout) fail("commit_timeout must not exceed publish_timeout");
  if (fd_ping_interval <= sim::Duration::zero()) fail("fd_ping_interval must be positive");
  if (fd_ping_timeout <= sim::Duration::zero()) fail("fd_ping_timeout must be positive");
  if (fd_ping_retries < 1) fail("fd_ping_retries must be at least 1");
  if (join_retry_attempts < 1) fail("join_retry_attempts must be at least 1");
  if (max_pings_from_another_master < 1) fail("max_pings_from_another_master must be at least 1");
  if (max_pending_cluster_states < 1) fail("max_pending_cluster_states must be at least 1");
  if (connect_timeout <= sim::Duration::zero()) fail("connect_timeout must be positive");
  if (cluster_tasks.rate < 0 || cluster_tasks.rate > 100000) fail("cluster_tasks.rate must be within 0..100000");  // the scenario format's limit
  if (cluster_tasks.rate > 0 && cluster_tasks.priorities.empty()) fail("cluster_tasks.priorities must not be empty");
  if (cluster_tasks.keys < 1) fail("cluster_tasks.keys must be at least 1");
}

}  // namespace es
