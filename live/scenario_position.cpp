#include "live/scenario_position.h"

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

namespace live {

namespace {

struct Step {
  std::string key;     // a mapping key; empty for a bare list index
  bool item = false;   // followed by [N] or [*]
  bool any = false;    // [*]
  std::size_t index = 0;
};

std::optional<std::vector<Step>> parse_path(std::string_view path) {
  std::vector<Step> steps;
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t end = path.find('.', start);
    if (end == std::string_view::npos) end = path.size();
    std::string_view part = path.substr(start, end - start);
    Step step;
    std::size_t bracket = part.find('[');
    step.key = std::string(part.substr(0, bracket));
    if (bracket != std::string_view::npos) {
      if (part.back() != ']') return std::nullopt;
      std::string_view inside = part.substr(bracket + 1, part.size() - bracket - 2);
      step.item = true;
      if (inside == "*") {
        step.any = true;
      } else {
        if (inside.empty() || inside.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
        step.index = std::stoul(std::string(inside));
      }
    }
    if (step.key.empty()) return std::nullopt;
    steps.push_back(std::move(step));
    start = end + 1;
  }
  return steps;
}

std::optional<FilePosition> position_of(const YAML::Node& node) {
  YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0 || mark.column < 0) return std::nullopt;
  return FilePosition{mark.line + 1, mark.column + 1};
}

bool has_value(const YAML::Node& node, std::string_view value) {
  return value.empty() || (node.IsScalar() && node.Scalar() == value);
}

// The position of steps[at..] under `node`.
std::optional<FilePosition> find(const YAML::Node& node, const std::vector<Step>& steps, std::size_t at, std::string_view value) {
  const Step& step = steps[at];
  if (!node.IsMap()) return std::nullopt;
  for (const auto& entry : node) {
    if (!entry.first.IsScalar() || entry.first.Scalar() != step.key) continue;
    bool last = at + 1 == steps.size();
    if (!step.item) {
      if (last) return has_value(entry.second, value) ? position_of(entry.first) : std::nullopt;
      return find(entry.second, steps, at + 1, value);
    }
    if (!entry.second.IsSequence()) return std::nullopt;
    for (std::size_t index = 0; index < entry.second.size(); index++) {
      if (!step.any && index != step.index) continue;
      const YAML::Node item = entry.second[index];
      std::optional<FilePosition> found = last ? (has_value(item, value) ? position_of(item) : std::nullopt)
                                               : find(item, steps, at + 1, value);
      if (found || !step.any) return found;
    }
    return std::nullopt;
  }
  return std::nullopt;
}

}  // namespace

std::optional<FilePosition> find_key_position(std::string_view yaml, std::string_view key_path, std::string_view value) {
  std::optional<std::vector<Step>> steps = parse_path(key_path);
  if (!steps || steps->empty()) return std::nullopt;
  try {
    // The scenario parser reads the first document only; so does this.
    YAML::Node root = YAML::Load(std::string(yaml));
    return find(root, *steps, 0, value);
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace live
