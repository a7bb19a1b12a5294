// AckSet: the servers that acknowledged one proposal (Leader.Proposal's ack set). The leader makes
// one per write, so sids 0..63 (electsim's scenarios use 1..15) are bits of one word and cost no
// allocation; any other sid goes to a std::set. Only membership and the count are asked for.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <set>

#include "model/zk/types.h"

namespace zk {

class AckSet {
 public:
  // True if `sid` was not in the set yet.
  bool insert(ServerId sid) {
    if (sid >= 0 && sid < 64) {
      std::uint64_t bit = std::uint64_t{1} << sid;
      bool added = (bits_ & bit) == 0;
      bits_ |= bit;
      return added;
    }
    return others_.insert(sid).second;
  }
  bool contains(ServerId sid) const {
    if (sid >= 0 && sid < 64) return (bits_ & (std::uint64_t{1} << sid)) != 0;
    return others_.contains(sid);
  }
  std::size_t size() const { return static_cast<std::size_t>(std::popcount(bits_)) + others_.size(); }

 private:
  std::uint64_t bits_ = 0;
  std::set<ServerId> others_;  // sids outside 0..63, if a test ever uses one
};

}  // namespace zk
