// org.elasticsearch.common.Priority: the six priorities of cluster-state tasks. A lower value runs
// first; within one priority, tasks run in insertion order (PrioritizedEsThreadPoolExecutor).
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace es {

enum class Priority : std::uint8_t { IMMEDIATE = 0, URGENT = 1, HIGH = 2, NORMAL = 3, LOW = 4, LANGUID = 5 };

inline constexpr std::uint8_t priority_count = 6;

std::string_view priorityName(Priority priority);  // "IMMEDIATE" .. "LANGUID", as _cat/pending_tasks prints
std::optional<Priority> parsePriority(std::string_view name);  // case-insensitive

}  // namespace es
