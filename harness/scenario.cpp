#include "harness/scenario.h"

#include <algorithm>

#include <array>
#include <utility>

#include "sim/assert.h"

namespace harness {

namespace {

// One table per enum, in enum order, so name() is an index and from_name() a linear search over at
// most 13 entries.
constexpr std::array<std::string_view, 6> recipe_names{"none",         "elasticjob", "leader-latch", "leader-selector",
                                                       "naive-master", "es-zen"};
constexpr std::array<std::string_view, 2> start_mode_names{"together", "staggered"};
constexpr std::array<std::string_view, 1> distribution_names{"uniform"};
constexpr std::array<std::string_view, 6> es_priority_names{"IMMEDIATE", "URGENT", "HIGH", "NORMAL", "LOW", "LANGUID"};
constexpr std::array<std::string_view, 2> es_task_executor_names{"per-task", "shared"};
constexpr std::array<std::string_view, 13> fault_kind_names{
    "crash",
    "power_off",
    "restart",
    "partition",
    "isolate",
    "bridge",
    "drop",
    "heal",
    "pause",
    "disable",
    "enable",
    "shutdown",
    "set_sharding_total_count",
};

static_assert(static_cast<std::size_t>(Recipe::es_zen) + 1 == recipe_names.size());
static_assert(static_cast<std::size_t>(StartMode::staggered) + 1 == start_mode_names.size());
static_assert(static_cast<std::size_t>(LatencyDistribution::uniform) + 1 == distribution_names.size());
static_assert(static_cast<std::size_t>(EsPriority::languid) + 1 == es_priority_names.size());
static_assert(es_priorities_count == es_priority_names.size());
static_assert(static_cast<std::size_t>(EsTaskExecutor::shared) + 1 == es_task_executor_names.size());
static_assert(static_cast<std::size_t>(FaultKind::set_sharding_total_count) + 1 == fault_kind_names.size());

template <typename Enum, std::size_t size>
std::string_view name_of(const std::array<std::string_view, size>& names, Enum value) {
  auto index = static_cast<std::size_t>(value);
  ELECTSIM_ASSERT(index < size);
  return names[index];
}

template <typename Enum, std::size_t size>
std::optional<Enum> from_name(const std::array<std::string_view, size>& names, std::string_view name) {
  for (std::size_t index = 0; index < size; index++) {
    if (names[index] == name) return static_cast<Enum>(index);
  }
  return std::nullopt;
}

}  // namespace

std::string_view recipe_name(Recipe recipe) { return name_of(recipe_names, recipe); }
std::string_view start_mode_name(StartMode mode) { return name_of(start_mode_names, mode); }
std::string_view distribution_name(LatencyDistribution distribution) {
  return name_of(distribution_names, distribution);
}
std::string_view es_priority_name(EsPriority priority) { return name_of(es_priority_names, priority); }
std::string_view es_task_executor_name(EsTaskExecutor executor) { return name_of(es_task_executor_names, executor); }
std::string_view fault_kind_name(FaultKind kind) { return name_of(fault_kind_names, kind); }

std::optional<Recipe> recipe_from_name(std::string_view name) { return from_name<Recipe>(recipe_names, name); }
std::optional<StartMode> start_mode_from_name(std::string_view name) {
  return from_name<StartMode>(start_mode_names, name);
}
std::optional<LatencyDistribution> distribution_from_name(std::string_view name) {
  return from_name<LatencyDistribution>(distribution_names, name);
}
std::optional<EsPriority> es_priority_from_name(std::string_view name) {
  return from_name<EsPriority>(es_priority_names, name);
}
std::optional<EsTaskExecutor> es_task_executor_from_name(std::string_view name) {
  return from_name<EsTaskExecutor>(es_task_executor_names, name);
}
std::optional<FaultKind> fault_kind_from_name(std::string_view name) {
  return from_name<FaultKind>(fault_kind_names, name);
}

std::string server_name(int number) {
  ELECTSIM_ASSERT(number >= 1);
  return "zk" + std::to_string(number);
}

std::string instance_name(int number) {
  ELECTSIM_ASSERT(number >= 1);
  return "i" + std::to_string(number);
}

std::string es_node_name(int number) {
  ELECTSIM_ASSERT(number >= 1);
  return "es" + std::to_string(number);
}

std::string instance_id(const Scenario& scenario, int number) {
  ELECTSIM_ASSERT(number >= 1);
  ELECTSIM_ASSERT(number <= scenario.instances.count);
  auto explicit_id = scenario.instances.ids.find(instance_name(number));
  if (explicit_id != scenario.instances.ids.end()) return explicit_id->second;
  std::string n = std::to_string(number);
  return "10.0.0." + n + "@-@" + n;
}

const std::vector<std::string_view>& zookeeper_versions() {
  static const std::vector<std::string_view> versions{"3.8.0", "3.8.5", "3.9.3"};
  return versions;
}

bool is_zookeeper_version(std::string_view version) {
  const auto& versions = zookeeper_versions();
  return std::find(versions.begin(), versions.end(), version) != versions.end();
}

}  // namespace harness
