#include "model/curator/ProtectedUtils.h"

#include "model/curator/ZKPaths.h"

namespace curator::ProtectedUtils {

namespace {

bool isUuid(std::string_view text) {
  if (text.size() != 36) return false;
  for (std::size_t i = 0; i < text.size(); i++) {
    bool dash = i == 8 || i == 13 || i == 18 || i == 23;
    char c = text[i];
    if (dash) {
      if (c != '-') return false;
    } else if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::string randomUuid(sim::Rng& random) {
  std::uint64_t high = random.next_u64();
  std::uint64_t low = random.next_u64();
  high = (high & ~0xf000ULL) | 0x4000ULL;                                  // version 4
  low = (low & ~(0xc000000000000000ULL)) | 0x8000000000000000ULL;          // IETF variant
  static constexpr char digits[] = "0123456789abcdef";
  std::string text;
  text.reserve(36);
  auto put = [&](std::uint64_t value, int from_nibble, int count) {
    for (int i = 0; i < count; i++) text.push_back(digits[(value >> (4 * (from_nibble - i))) & 0xf]);
  };
  put(high, 15, 8);
  text.push_back('-');
  put(high, 7, 4);
  text.push_back('-');
  put(high, 3, 4);
  text.push_back('-');
  put(low, 15, 4);
  text.push_back('-');
  put(low, 11, 12);
  ELECTSIM_ASSERT(isUuid(text));
  return text;
}

std::string getProtectedPrefix(std::string_view protectedId) {
  std::string prefix(PROTECTED_PREFIX);
  prefix.append(protectedId);
  prefix.push_back(PROTECTED_SEPARATOR);
  return prefix;
}

std::string toProtectedZNodePath(std::string_view path, std::string_view protectedId) {
  std::string parent = ZKPaths::getParent(path);
  return ZKPaths::makePath(parent, getProtectedPrefix(protectedId) + ZKPaths::getNodeFromPath(path));
}

bool isProtectedZNode(std::string_view znodeName) {
  return znodeName.size() > PROTECTED_PREFIX_WITH_UUID_LENGTH && znodeName.substr(0, PROTECTED_PREFIX.size()) == PROTECTED_PREFIX &&
         znodeName[PROTECTED_PREFIX_WITH_UUID_LENGTH - 1] == PROTECTED_SEPARATOR &&
         isUuid(znodeName.substr(PROTECTED_PREFIX.size(), 36));
}

std::string normalize(std::string_view znodeName) {
  if (!isProtectedZNode(znodeName)) return std::string(znodeName);
  return std::string(znodeName.substr(PROTECTED_PREFIX_WITH_UUID_LENGTH));
}

}  // namespace curator::ProtectedUtils
