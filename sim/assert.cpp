#include "sim/assert.h"

#include <cstring>

namespace sim {

void assertion_failed(const char* expression, const char* file, int line, const std::string& message) {
  // Report the path from the project root, not the build machine's absolute path.
  const char* relative = std::strstr(file, "/sim/");
  for (const char* folder : {"/model/", "/properties/", "/cli/", "/harness/"}) {
    if (relative == nullptr) relative = std::strstr(file, folder);
  }
  std::string where = relative != nullptr ? std::string(relative + 1) : std::string(file);
  std::string text = "assertion failed: " + std::string(expression) + " at " + where + ":" + std::to_string(line);
  if (!message.empty()) text += ": " + message;
  throw AssertionFailure(text);
}

}  // namespace sim
