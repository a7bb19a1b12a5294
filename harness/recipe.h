// What each recipe (the application on top of ZooKeeper, or Elasticsearch) contributes to a run:
// its instances, its own faults, the properties its real system promises, how to tell whether it
// has a leader now, and what it reports at the end.
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "harness/scenario.h"
#include "properties/Property.h"

namespace harness {

class Cluster;

class RecipeDriver {
 public:
  virtual ~RecipeDriver() = default;

  // Adds the instance nodes (registered as i1..iN, or es1..esN) to the cluster.
  virtual void build(Cluster& cluster) = 0;
  // Starts instance `name` (first start); by default the node's start().
  virtual void startInstance(Cluster& cluster, const std::string& name);
  // A recipe fault (disable, enable, shutdown, set_sharding_total_count); false if not handled.
  virtual bool applyFault(Cluster& cluster, const Fault& fault);
  // Properties the real system promises, checked by default (SCENARIO-FORMAT.md).
  virtual std::vector<std::string> promisedProperties() const = 0;
  // A property this recipe knows how to judge (beyond the ZooKeeper-level ones), or null.
  virtual std::unique_ptr<properties::Property> makeProperty(std::string_view name, Cluster& cluster);
  // Ground truth for eventual-leader: a description of the one leader there is now, or nothing.
  virtual std::optional<std::string> leaderNow(Cluster& cluster) const = 0;
  // Whether anyone could lead now (some contender is up): eventual-leader cannot be judged when the
  // faults left nobody to elect. By default true.
  virtual bool hasCandidates(Cluster& cluster) const;
  // How long a leader may take (derived from the timeouts), counted from the moment ZooKeeper has an
  // established leader after the last fault, or from the last fault for recipes without ZooKeeper.
  // By default zero: the ZooKeeper leader is the leader.
  virtual sim::Duration leaderBound(const Scenario& scenario) const;
  // Adds the recipe's part of `final` (final.jobs for ElasticJob).
  virtual void reportFinal(Cluster& cluster, nlohmann::ordered_json& final) const;
};

std::unique_ptr<RecipeDriver> makeRecipeDriver(const Scenario& scenario);

// The ZooKeeper-level time to a leader after faults stop: the notification backoff a LOOKING
// server may be in (`backoff`; by default the longest, 60 s; the runner passes what the servers'
// LOOKING times allow, see EventualLeader::lookingBackoffBound), then a discovery and a sync
// (initLimit and syncLimit ticks), plus two ticks of slack.
sim::Duration zookeeper_leader_bound(const Scenario& scenario, std::optional<sim::Duration> backoff = std::nullopt);

// For a recipe whose instances hold ephemerals through ZooKeeper clients, once the ensemble serves:
// a dead holder's session expires (session timeout, rounded up to the next expiry bucket and
// relayed by a follower: two ticks), while, in parallel, a client cut off for longer finishes its
// connect attempt (connectTimeout = T/n), pauses up to a second and connects, with a second of
// spin after a full lap; then a round of requests. Recipe-specific retries and delays come on top.
sim::Duration zookeeper_client_bound(const Scenario& scenario);

}  // namespace harness
