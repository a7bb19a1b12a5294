// A transparent hash for string keys: an unordered container keyed by std::string, with this and
// std::equal_to<>, is searched with a std::string_view (no string made per lookup).
//
// The hash is sim/hash_fold.h's, a fixed function of the bytes on every platform, cheaper than
// std::hash's _Hash_bytes for the short paths and names used as keys. Still, nothing may walk such
// a container in hash order where it affects a run (docs/engine.md, Events).
#pragma once

#include <cstddef>
#include <string_view>

#include "sim/hash_fold.h"

namespace sim {

struct StringHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return static_cast<std::size_t>(hash_fold_text(0x6a09e667f3bcc908ULL, text)); }
};

}  // namespace sim
