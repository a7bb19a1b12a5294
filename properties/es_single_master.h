// es-single-master: no two Elasticsearch nodes act as master with committed publications in
// overlapping time.
//
// A node's tenure as master runs from its first es.commit to the moment it steps down (es.master
// with master=false), crashes, powers off or restarts; its committed span is [first commit, last
// commit] within the tenure. The property is violated when the committed spans of two different
// nodes overlap: one master committed a publication after another had started committing and before
// it stopped. A stale master that only believes it is master (it commits nothing: minimum_master_nodes
// denies it the acks) does not violate it; that is Zen1's design, and a belief overlap is legal.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "properties/Property.h"

namespace properties {

class EsSingleMaster final : public Property {
 public:
  explicit EsSingleMaster(sim::Simulation& sim) : Property(sim) {}
  std::string_view name() const override { return "es-single-master"; }
  void on_event(const sim::TraceEvent& event) override;
  std::span<const std::string_view> kinds() const override;
  // How many tenures (runs of commits by one node between step-downs) the run had.
  std::size_t tenures() const { return tenures_.size(); }

 private:
  struct Tenure {
    sim::NodeId node;
    sim::Instant firstCommit;
    sim::Instant lastCommit;
    std::int64_t firstVersion;
    std::int64_t lastVersion;
    bool open;
  };
  void close(sim::NodeId node);
  void onCommit(const sim::TraceEvent& event);

  std::vector<Tenure> tenures_;
  std::map<sim::NodeId, std::size_t> open_;  // node -> index of its open tenure
  std::set<std::pair<std::size_t, std::size_t>> reported_;
};

}  // namespace properties
