// The hashes behind electsim's own strategies (consistent-hash, rendezvous): FNV-1a over the bytes,
// then SplitMix64's finaliser (sim/random.h). They depend on nothing but the strings and numbers
// hashed, so an assignment is the same on every platform, in every run and for any list order.
#pragma once

#include <cstdint>
#include <string_view>

#include "sim/random.h"

namespace elasticjob::portable_hash {

// Distinct salts so that an item number and a virtual-node number never hash alike.
inline constexpr std::uint64_t item_salt = 0x6a09e667f3bcc909ULL;
inline constexpr std::uint64_t virtual_node_salt = 0xbb67ae8584caa73bULL;

inline std::uint64_t ofString(std::string_view text) { return sim::mix64(sim::stable_hash(text)); }

// Where item `item` of the job whose name hashes to `jobHash` lands.
inline std::uint64_t ofItem(std::uint64_t jobHash, int item) {
  return sim::mix64(jobHash ^ sim::mix64(static_cast<std::uint64_t>(item) + item_salt));
}

// The position of virtual node `virtualNode` of the instance whose id hashes to `instanceHash`.
inline std::uint64_t ofVirtualNode(std::uint64_t instanceHash, int virtualNode) {
  return sim::mix64(instanceHash ^ sim::mix64(static_cast<std::uint64_t>(virtualNode) + virtual_node_salt));
}

}  // namespace elasticjob::portable_hash
