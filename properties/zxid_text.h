// A zxid as the properties' messages print it, "0x100000005" (as zk::format_zxid, which the
// properties, fed by trace events and not linked with the model, do not reach).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace properties {

inline std::string zxid_text(std::int64_t zxid) {
  char text[24];
  std::snprintf(text, sizeof text, "0x%llx", static_cast<unsigned long long>(zxid));
  return text;
}

}  // namespace properties
