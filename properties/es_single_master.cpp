#include "properties/es_single_master.h"

namespace properties {

std::span<const std::string_view> EsSingleMaster::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"es.commit", "es.master", "node.crash", "node.power_off", "node.start"};
  return read;
}

void EsSingleMaster::on_event(const sim::TraceEvent& event) {
  if (event.kind == "es.commit") {
    onCommit(event);
  } else if (event.kind == "es.master") {
    if (!event.boolean("master")) close(event.node);
  } else if (event.kind == "node.crash" || event.kind == "node.power_off" || event.kind == "node.start") {
    close(event.node);
  }
}

void EsSingleMaster::close(sim::NodeId node) {
  auto it = open_.find(node);
  if (it == open_.end()) return;
  tenures_[it->second].open = false;
  open_.erase(it);
}

void EsSingleMaster::onCommit(const sim::TraceEvent& event) {
  std::int64_t version = event.integer("version");
  auto it = open_.find(event.node);
  std::size_t index;
  if (it == open_.end()) {
    index = tenures_.size();
    tenures_.push_back(Tenure{event.node, event.time, event.time, version, version, true});
    open_.emplace(event.node, index);
  } else {
    index = it->second;
    tenures_[index].lastCommit = event.time;
    tenures_[index].lastVersion = version;
  }
  const Tenure& mine = tenures_[index];
  for (std::size_t other = 0; other < tenures_.size(); other++) {
    const Tenure& theirs = tenures_[other];
    if (other == index || theirs.node == mine.node) continue;
    // [mine.first, now] and [theirs.first, theirs.last] overlap iff theirs.last >= mine.first
    // (theirs.first <= now holds for every tenure recorded so far).
    if (theirs.lastCommit < mine.firstCommit) continue;
    auto pair = std::minmax(index, other);
    if (!reported_.insert(pair).second) continue;
    violate(node_name(mine.node) + " committed version " + std::to_string(version) + " while " + node_name(theirs.node) +
            " was committing as master too (its versions " + std::to_string(theirs.firstVersion) + ".." + std::to_string(theirs.lastVersion) +
            ", since " + sim::format_instant(theirs.firstCommit) + ")");
  }
}

}  // namespace properties
