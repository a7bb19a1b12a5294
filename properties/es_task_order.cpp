#include "properties/es_task_order.h"

#include <algorithm>
#include <optional>
#include <string_view>

#include "model/es/Priority.h"

namespace properties {

namespace {

std::string entryName(std::uint64_t insertOrder, std::uint8_t priority) {
  return "#" + std::to_string(insertOrder) + " (" + std::string(es::priorityName(static_cast<es::Priority>(priority))) + ")";
}

}  // namespace

std::uint8_t EsTaskOrder::priorityOf(const sim::TraceEvent& event) {
  std::string_view name = event.text("priority");
  if (std::optional<es::Priority> priority = es::parsePriority(name)) return static_cast<std::uint8_t>(*priority);
  violate(node_name(event.node) + " traced " + std::string(event.kind) + " with an unknown priority '" + std::string(name) + "'");
  return es::priority_count - 1;
}

std::span<const std::string_view> EsTaskOrder::kinds() const {
  // What on_event compares its kind with.
  static constexpr std::string_view read[] = {"es.task.submit", "es.task", "es.task.timeout", "node.crash", "node.power_off", "node.start"};
  return read;
}

void EsTaskOrder::on_event(const sim::TraceEvent& event) {
  if (event.kind == "es.task.submit") {
    onSubmit(event);
  } else if (event.kind == "es.task") {
    onBatch(event);
  } else if (event.kind == "es.task.timeout") {
    onTimeout(event);
  } else if (event.kind == "node.crash" || event.kind == "node.power_off" || event.kind == "node.start") {
    queues_.erase(event.node);  // the queue was in the process's memory
  }
}

void EsTaskOrder::onSubmit(const sim::TraceEvent& event) {
  Queue& queue = queues_[event.node];
  auto insertOrder = static_cast<std::uint64_t>(event.integer("insert_order"));
  auto batchingKey = static_cast<std::uint64_t>(event.integer("batching_key"));
  auto tasks = static_cast<std::uint64_t>(event.integer("tasks"));
  std::uint8_t priority = priorityOf(event);
  if (tasks == 0) {
    violate(node_name(event.node) + " queued entry #" + std::to_string(insertOrder) + " without a task");
    return;
  }
  bool fresh = queue.entries.emplace(insertOrder, Entry{priority, batchingKey, tasks, event.time}).second;
  if (!fresh) {
    violate(node_name(event.node) + " queued entry #" + std::to_string(insertOrder) + " twice");
    return;
  }
  queue.ranks.emplace(priority, insertOrder);
  queue.byBatchingKey[batchingKey].push_back(insertOrder);
}

void EsTaskOrder::onBatch(const sim::TraceEvent& event) {
  batches_++;
  Queue& queue = queues_[event.node];
  auto leader = static_cast<std::uint64_t>(event.integer("insert_order"));
  auto batchingKey = static_cast<std::uint64_t>(event.integer("batching_key"));
  auto batch = static_cast<std::uint64_t>(event.integer("batch"));
  auto found = queue.entries.find(leader);
  if (found == queue.entries.end()) {
    violate(node_name(event.node) + " ran a batch led by entry #" + std::to_string(leader) + ", which has no waiting task");
    return;
  }
  const Entry lead = found->second;  // a copy: the entry goes with its batch below
  ELECTSIM_ASSERT(!queue.ranks.empty());
  Rank first = *queue.ranks.begin();
  if (first != Rank{lead.priority, leader}) {
    const Entry& skipped = queue.entries.at(first.second);
    violate(node_name(event.node) + " ran " + entryName(leader, lead.priority) + " [" + std::string(event.text("source")).substr(0, 80) +
            "] while " + entryName(first.second, skipped.priority) + " waited since " + sim::format_instant(skipped.submitted) +
            ": MasterService runs by priority, then insertion order");
  }
  // An overtake: an entry queued before the leader still waits (it has a lower priority).
  if (queue.entries.begin()->first < leader) overtakes_++;

  // The batch is every waiting task of its key.
  std::uint64_t waiting = 0;
  auto byKey = queue.byBatchingKey.find(batchingKey);
  if (byKey != queue.byBatchingKey.end()) {
    std::vector<std::uint64_t> orders = std::move(byKey->second);
    queue.byBatchingKey.erase(byKey);
    for (std::uint64_t order : orders) {
      auto entry = queue.entries.find(order);
      if (entry == queue.entries.end()) continue;  // timed out
      waiting += entry->second.waiting;
      remove(queue, order);
    }
  }
  if (lead.batchingKey != batchingKey) {
    violate(node_name(event.node) + " ran entry #" + std::to_string(leader) + " of batching key " + std::to_string(lead.batchingKey) +
            " in a batch of key " + std::to_string(batchingKey));
  } else if (waiting != batch) {
    violate(node_name(event.node) + " ran a batch of " + std::to_string(batch) + " tasks led by " + entryName(leader, lead.priority) + " while " +
            std::to_string(waiting) + " tasks of its executor waited: a batch takes them all");
  }
}

void EsTaskOrder::onTimeout(const sim::TraceEvent& event) {
  auto found = queues_.find(event.node);
  auto insertOrder = static_cast<std::uint64_t>(event.integer("insert_order"));
  if (found == queues_.end() || !found->second.entries.contains(insertOrder)) {
    violate(node_name(event.node) + " timed out entry #" + std::to_string(insertOrder) + ", which has no waiting task");
    return;
  }
  Queue& queue = found->second;
  Entry& entry = queue.entries.at(insertOrder);
  auto tasks = static_cast<std::uint64_t>(event.integer("tasks"));
  if (tasks != entry.waiting) {
    violate(node_name(event.node) + " timed out " + std::to_string(tasks) + " tasks of entry #" + std::to_string(insertOrder) + ", which had " +
            std::to_string(entry.waiting) + " waiting");
  }
  std::vector<std::uint64_t>& sameKey = queue.byBatchingKey[entry.batchingKey];
  sameKey.erase(std::remove(sameKey.begin(), sameKey.end(), insertOrder), sameKey.end());
  if (sameKey.empty()) queue.byBatchingKey.erase(entry.batchingKey);
  remove(queue, insertOrder);
}

void EsTaskOrder::remove(Queue& queue, std::uint64_t insertOrder) {
  auto entry = queue.entries.find(insertOrder);
  ELECTSIM_ASSERT(entry != queue.entries.end());
  queue.ranks.erase(Rank{entry->second.priority, insertOrder});
  queue.entries.erase(entry);
}

}  // namespace properties
