// org.apache.curator.framework.imps.ProtectedUtils: the "_c_<uuid>-" prefix that
// create().withProtection() puts in front of the last path component, so that after a connection
// loss a retry can find the node the server may already have created for us.
//
//   /election/latch-  ->  /election/_c_8f0c62a5-....-latch-0000000007
//
// UUIDs come from the framework's seeded random stream (Java: UUID.randomUUID()), formatted as a
// version-4 UUID, so the prefix is exactly 40 characters as in Curator.
#pragma once

#include <string>
#include <string_view>

#include "sim/random.h"

namespace curator::ProtectedUtils {

inline constexpr std::string_view PROTECTED_PREFIX = "_c_";
inline constexpr char PROTECTED_SEPARATOR = '-';
inline constexpr std::size_t PROTECTED_PREFIX_WITH_UUID_LENGTH = 40;  // "_c_" + 36 + "-"

// A random version-4 UUID in its 36-character text form.
std::string randomUuid(sim::Rng& random);
// "_c_" + protectedId + "-"
std::string getProtectedPrefix(std::string_view protectedId);
// The path with the prefix in front of its last component.
std::string toProtectedZNodePath(std::string_view path, std::string_view protectedId);
bool isProtectedZNode(std::string_view znodeName);
// The name without its protection prefix (unchanged if it has none).
std::string normalize(std::string_view znodeName);

}  // namespace curator::ProtectedUtils
