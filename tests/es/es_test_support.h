// Shared helpers of the Elasticsearch model tests: a cluster with its simulation, a trace recorder,
// and the three es-* properties attached.
#pragma once

#include <algorithm>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "model/es/EsCluster.h"
#include "properties/es_eventual_master.h"
#include "properties/es_single_master.h"
#include "properties/es_state_agreement.h"
#include "properties/es_task_order.h"
#include "sim/network.h"

namespace estest {

using namespace std::chrono_literals;

// Keeps every event of the given kinds as one line: "12.5s es2 es.master master=true ...".
class Recorder final : public sim::TraceSink {
 public:
  explicit Recorder(const sim::Simulation& sim) : sim_(sim) {}
  void on_event(const sim::TraceEvent& event) override {
    if (!event.kind.starts_with("es.") && !event.kind.starts_with("node.")) return;
    Line line{event.time, event.node, std::string(event.kind), {}};
    std::ostringstream text;
    for (const sim::TraceField& field : event.fields) {
      text << ' ' << field.key << '=';
      switch (field.value.type) {
        case sim::TraceValue::Type::text: text << field.value.text; break;
        case sim::TraceValue::Type::boolean: text << (field.value.integer != 0 ? "true" : "false"); break;
        case sim::TraceValue::Type::unsigned_integer: text << static_cast<std::uint64_t>(field.value.integer); break;
        case sim::TraceValue::Type::integer: text << field.value.integer; break;
      }
    }
    line.fields = text.str();
    lines.push_back(std::move(line));
  }
  struct Line {
    sim::Instant time;
    sim::NodeId node;
    std::string kind;
    std::string fields;
  };
  std::vector<Line> lines;

  std::size_t count(std::string_view kind, sim::NodeId node = sim::no_node, std::string_view contains = {}) const {
    return static_cast<std::size_t>(std::count_if(lines.begin(), lines.end(), [&](const Line& line) {
      return line.kind == kind && (node == sim::no_node || line.node == node) && (contains.empty() || line.fields.find(contains) != std::string::npos);
    }));
  }
  std::optional<sim::Instant> first(std::string_view kind, sim::NodeId node = sim::no_node, std::string_view contains = {}) const {
    for (const Line& line : lines) {
      if (line.kind == kind && (node == sim::no_node || line.node == node) && (contains.empty() || line.fields.find(contains) != std::string::npos)) {
        return line.time;
      }
    }
    return std::nullopt;
  }
  std::string dump(std::size_t max = 400) const {
    std::ostringstream out;
    std::size_t shown = 0;
    for (const Line& line : lines) {
      if (line.kind == "es.publish" || line.kind == "es.task") continue;
      if (shown++ >= max) break;
      out << sim::format_instant(line.time) << ' ' << (line.node == sim::no_node ? std::string("-") : sim_.node(line.node).name()) << ' '
          << line.kind << line.fields << '\n';
    }
    return out.str();
  }

 private:
  const sim::Simulation& sim_;
};

struct Cluster {
  sim::Simulation sim;
  es::EsCluster cluster;
  Recorder recorder;
  properties::EsSingleMaster singleMaster;
  properties::EsStateAgreement stateAgreement;
  properties::EsEventualMaster eventualMaster;
  properties::EsTaskOrder taskOrder;

  explicit Cluster(es::EsConfig config, std::uint64_t seed = 1)
      : sim(seed),
        cluster(sim, config),
        recorder(sim),
        singleMaster(sim),
        stateAgreement(sim),
        eventualMaster(sim, cluster.nodeIds(), cluster.config().stabilisationTime()),
        taskOrder(sim) {
    sim.network().set_latency(1ms, 5ms);
    sim.trace().add_sink(&recorder);
    sim.trace().add_sink(&singleMaster);
    sim.trace().add_sink(&stateAgreement);
    sim.trace().add_sink(&eventualMaster);
    sim.trace().add_sink(&taskOrder);
  }
  ~Cluster() {
    sim.trace().remove_sink(&recorder);
    sim.trace().remove_sink(&singleMaster);
    sim.trace().remove_sink(&stateAgreement);
    sim.trace().remove_sink(&eventualMaster);
    sim.trace().remove_sink(&taskOrder);
  }

  es::EsNode& node(std::size_t number) { return cluster.node(number); }
  sim::NodeId id(std::size_t number) { return cluster.node(number).id(); }
  std::optional<std::size_t> stableMaster() const {
    std::optional<sim::NodeId> master = cluster.stableMaster();
    if (!master) return std::nullopt;
    for (std::size_t i = 1; i <= cluster.size(); i++) {
      if (cluster.node(i).id() == *master) return i;
    }
    return std::nullopt;
  }
  // The stable master when only `numbers` are considered (the others may be cut off).
  std::optional<std::size_t> stableMasterAmong(const std::vector<std::size_t>& numbers) const {
    std::optional<std::size_t> master;
    for (std::size_t number : numbers) {
      es::EsNode& node = cluster.node(number);
      if (!node.up()) return std::nullopt;
      sim::NodeId followed = node.masterNode();
      es::ClusterStatePtr applied = node.appliedState();
      if (followed == sim::no_node || applied == nullptr || applied->masterNodeId != followed) return std::nullopt;
      std::size_t followedNumber = 0;
      for (std::size_t i = 1; i <= cluster.size(); i++) {
        if (cluster.node(i).id() == followed) followedNumber = i;
      }
      if (master && *master != followedNumber) return std::nullopt;
      master = followedNumber;
    }
    return master;
  }
  std::vector<std::size_t> masters() const {
    std::vector<std::size_t> numbers;
    for (sim::NodeId id : cluster.masters()) {
      for (std::size_t i = 1; i <= cluster.size(); i++) {
        if (cluster.node(i).id() == id) numbers.push_back(i);
      }
    }
    return numbers;
  }
};

inline es::EsConfig config(std::size_t nodes, int minimumMasterNodes, double rate = 0) {
  es::EsConfig config;
  config.nodes = nodes;
  config.minimum_master_nodes = minimumMasterNodes;
  config.cluster_tasks.rate = rate;
  return config;
}

}  // namespace estest
