// A transparent hash for string keys: an unordered container keyed by std::string, with this and
// std::equal_to<>, is searched with a std::string_view (no string made per lookup).
//
// std::hash<std::string_view> is a fixed function of the bytes (libstdc++'s _Hash_bytes with a
// constant seed), so a run does not depend on it changing; still, nothing may walk such a
// container in hash order where it affects a run (docs/engine.md, Events).
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace sim {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>{}(text); }
};

}  // namespace sim
