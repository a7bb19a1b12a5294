#include "model/es/Priority.h"

#include <array>
#include <cctype>

namespace es {

namespace {
constexpr std::array<std::string_view, priority_count> names{"IMMEDIATE", "URGENT", "HIGH", "NORMAL", "LOW", "LANGUID"};
}

std::string_view priorityName(Priority priority) {
  auto index = static_cast<std::size_t>(priority);
  return index < names.size() ? names[index] : "UNKNOWN";
}

std::optional<Priority> parsePriority(std::string_view name) {
  for (std::size_t i = 0; i < names.size(); i++) {
    if (names[i].size() != name.size()) continue;
    bool same = true;
    for (std::size_t c = 0; c < name.size() && same; c++) {
      same = std::toupper(static_cast<unsigned char>(name[c])) == names[i][c];
    }
    if (same) return static_cast<Priority>(i);
  }
  return std::nullopt;
}

}  // namespace es
